/**
 * The trigger node against the sandbox gateway, in process: registration on activation (once, reused, replaced,
 * removed), the https rule, the secret derived from the API key and URL (none in static data), and the webhook
 * handler with real deliveries, forged and malformed requests, duplicates, other phones, and mark-as-read.
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MessagingGatewayTrigger } from '../../nodes/MessagingGatewayTrigger/MessagingGatewayTrigger.node';
import { parseNotification } from '../../nodes/MessagingGatewayTrigger/notifications';
import { deriveWebhookSecret, SECRET_HEADER, secretVerifier } from '../../nodes/MessagingGatewayTrigger/registration';
import { PHONE_ID_QUERY_PARAM } from '../../nodes/gateway/spec';
import { getLogs, runHook, runWebhook } from '../harness';
import type { RunWebhookResult } from '../harness';
import { startSandbox } from '../sandbox';
import type { Sandbox } from '../sandbox';

/** The samples of the specification, copied into the repository (test/unit/notifications.test.ts checks them). */
const SAMPLES_DIR = path.join(__dirname, '..', 'fixtures', 'notifications');
const SAMPLES: Array<[string, Record<string, unknown>]> = fs
	.readdirSync(SAMPLES_DIR)
	.filter((file) => file.endsWith('.json'))
	.sort()
	.map((file) => [file, JSON.parse(fs.readFileSync(path.join(SAMPLES_DIR, file), 'utf8'))]);
const sample = (name: string) => SAMPLES.find(([file]) => file === name)![1];

const node = new MessagingGatewayTrigger();
const WEBHOOK_URL = 'https://n8n.example.com/webhook/6f1a7a0e-0000-4000-8000-0000000000aa/webhook';

/** A second API key of the sandbox: another account, whose webhooks the first key does not see. */
const OTHER_API_KEY = 'sandbox-other-account-key-0001';

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox({ extraApiKeys: [OTHER_API_KEY] });
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(() => sandbox.reset());

function credentials(baseUrl = sandbox.url, apiKey = sandbox.apiKey) {
	return { messagingGatewayApi: { apiKey, phoneId: sandbox.phoneId, baseUrl } };
}

const hook = (
	method: 'checkExists' | 'create' | 'delete',
	staticData: IDataObject,
	parameters: INodeParameters = {},
	webhookUrl = WEBHOOK_URL,
	baseUrl?: string,
	apiKey?: string,
) => runHook({ node, parameters, credentials: credentials(baseUrl, apiKey), staticData, method, webhookUrl });

/** What n8n does on activation: checkExists, and create when it answered false. */
async function activate(
	staticData: IDataObject,
	parameters: INodeParameters = {},
	webhookUrl = WEBHOOK_URL,
	apiKey?: string,
) {
	if (await hook('checkExists', staticData, parameters, webhookUrl, undefined, apiKey)) return 'reused';
	await hook('create', staticData, parameters, webhookUrl, undefined, apiKey);
	return 'created';
}

/** The secret the gateway must send: derived from the API key and the webhook URL, never stored. */
const secretFor = (webhookUrl = WEBHOOK_URL, apiKey = sandbox.apiKey) => deriveWebhookSecret(apiKey, webhookUrl);

const routesCalled = () => sandbox.requests.map((request) => request.route);
const registered = () => [...sandbox.state.webhooks.values()];

interface WebhookRequest {
	headers?: Record<string, string>;
	body?: unknown;
	rawBody?: Buffer;
}

/**
 * A trigger of its own name: the duplicate guard remembers events per workflow and node name in the process, so each
 * test that delivers gets a trigger that has seen nothing yet.
 */
let triggersMade = 0;
function freshTrigger() {
	const trigger = new MessagingGatewayTrigger();
	trigger.description = { ...trigger.description, defaults: { name: `Trigger ${++triggersMade}` } };
	return trigger;
}

function webhook(
	staticData: IDataObject,
	request: WebhookRequest,
	parameters: INodeParameters = {},
	trigger: MessagingGatewayTrigger = freshTrigger(),
) {
	return runWebhook({ node: trigger, parameters, credentials: credentials(), staticData, request });
}

describe('activation and deactivation', () => {
	it('registers once: messages, LATEST, the credential phone (body and query), the URL, a secret header', async () => {
		const staticData: IDataObject = {};
		expect(await activate(staticData)).toBe('created');

		expect(routesCalled()).toEqual(['webhooks.list', 'webhooks.list', 'webhooks.create']);
		const create = sandbox.requests[2];
		expect(create.query).toEqual({ [PHONE_ID_QUERY_PARAM]: sandbox.phoneId });
		expect(create.body).toEqual({
			phone: sandbox.phoneId,
			meta_version: 'LATEST',
			types: ['messages'],
			endpoint: WEBHOOK_URL,
			headers: { [SECRET_HEADER]: secretFor() },
		});
		expect(registered()).toHaveLength(1);
		const [registration] = registered();
		expect(staticData).toEqual({
			webhookId: registration.id,
			secretVerifier: secretVerifier(secretFor()),
			registrationFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
			phoneId: sandbox.phoneId,
		});
	});

	it('the static data holds no value that the webhook accepts as the secret; the derived secret is accepted', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const values = JSON.stringify(staticData).match(/[^"{}:,[\]]+/g) ?? [];
		expect(values.length).toBeGreaterThan(0);
		for (const value of [...values, JSON.stringify(staticData)]) {
			const forged = await webhook(staticData, { headers: { [SECRET_HEADER]: value }, body: sample('incoming-text.value.json') });
			expect(forged.response).toMatchObject({ written: true, statusCode: 401 });
			expect(forged.result.workflowData).toBeUndefined();
		}
		expect(JSON.stringify(staticData)).not.toContain(secretFor());
		expect(JSON.stringify(staticData)).not.toContain(sandbox.apiKey);
		const real = await webhook(staticData, { headers: { [SECRET_HEADER]: secretFor() }, body: sample('incoming-text.value.json') });
		expect(real.result.workflowData?.[0]).toHaveLength(1);
	});

	it('a changed API key gives another secret and registers again; the old secret is refused after', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		expect(await activate(staticData, {}, WEBHOOK_URL, OTHER_API_KEY)).toBe('created');
		const mine = registered().filter((registration) => registration.apiKey === OTHER_API_KEY);
		expect(mine).toHaveLength(1);
		expect(mine[0].headers[SECRET_HEADER]).toBe(secretFor(WEBHOOK_URL, OTHER_API_KEY));
		expect(secretFor(WEBHOOK_URL, OTHER_API_KEY)).not.toBe(secretFor());
		const old = await webhook(staticData, { headers: { [SECRET_HEADER]: secretFor() }, body: sample('incoming-text.value.json') });
		expect(old.response).toMatchObject({ written: true, statusCode: 401 });
		// Back to the first key: its registration was replaced by nothing the node knows, so it registers again.
		expect(await activate(staticData)).toBe('created');
	});

	it('a changed webhook URL gives another secret and registers again', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const otherUrl = 'https://n8n.example.com/webhook/moved/webhook';
		expect(await activate(staticData, {}, otherUrl)).toBe('created');
		const moved = registered().find((registration) => registration.endpoint === otherUrl)!;
		expect(moved.headers[SECRET_HEADER]).toBe(secretFor(otherUrl));
		expect(staticData.secretVerifier).toBe(secretVerifier(secretFor(otherUrl)));
	});

	it('a registration of an earlier version (secret stored in static data) is replaced at the next activation', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const { webhookId, registrationFingerprint } = staticData;
		const legacy: IDataObject = { webhookId, webhookSecret: secretFor(), registrationFingerprint };
		expect(await activate(legacy)).toBe('created');
		expect(legacy.webhookSecret).toBeUndefined();
		expect(legacy.secretVerifier).toBe(secretVerifier(secretFor()));
		expect(registered()).toHaveLength(1);
	});

	it('re-activation with the same settings reuses the registration', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const before = { ...staticData };
		sandbox.requests.length = 0;

		expect(await activate(staticData)).toBe('reused');
		expect(routesCalled()).toEqual(['webhooks.list']);
		expect(staticData).toEqual(before);
		expect(registered()).toHaveLength(1);
	});

	it.each([
		['the events', { events: ['messages', 'message_template_status_update'] }],
		['the Meta version', { options: { metaVersion: 'v16' } }],
		['an extra header', { options: { extraHeaders: { header: [{ name: 'X-Team', value: 'support' }] } } }],
	])('a change of %s replaces the registration: deleted, then created, never two', async (_label, changed) => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const first = { ...staticData };
		sandbox.requests.length = 0;

		expect(await activate(staticData, changed)).toBe('created');
		expect(routesCalled()).toEqual(['webhooks.list', 'webhooks.list', 'webhooks.delete', 'webhooks.create']);
		expect(sandbox.requests[2].path).toBe(`/api/Webhooks/${first.webhookId}`);
		expect(registered()).toHaveLength(1);
		const [registration] = registered();
		expect(registration.id).not.toBe(first.webhookId);
		expect(staticData.webhookId).toBe(registration.id);
		expect(registration.headers[SECRET_HEADER]).toBe(secretFor());
	});

	it('the registered headers are the extra headers plus the secret', async () => {
		const staticData: IDataObject = {};
		await activate(staticData, {
			options: {
				extraHeaders: {
					header: [
						{ name: 'X-Team', value: 'support' },
						{ name: 'Authorization', value: 'Bearer t' },
					],
				},
			},
		});
		expect(registered()[0].headers).toEqual({
			'x-team': 'support',
			authorization: 'Bearer t',
			[SECRET_HEADER]: secretFor(),
		});
		expect(registered()[0].types).toEqual(['messages']);
	});

	it('a registration for this URL unknown to the node (lost static data) is replaced, not duplicated', async () => {
		await activate({});
		const [orphan] = registered();
		const staticData: IDataObject = {};
		expect(await activate(staticData)).toBe('created');
		expect(registered()).toHaveLength(1);
		expect(registered()[0].id).not.toBe(orphan.id);
		expect(staticData.webhookId).toBe(registered()[0].id);
	});

	it('registrations of other URLs are left alone', async () => {
		await activate({}, {}, 'https://n8n.example.com/webhook/other-node/webhook');
		await activate({});
		expect(registered().map((registration) => registration.endpoint).sort()).toEqual([
			WEBHOOK_URL,
			'https://n8n.example.com/webhook/other-node/webhook',
		]);
	});

	it('deactivation removes the registration and forgets id and secret', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const id = staticData.webhookId;
		sandbox.requests.length = 0;

		expect(await hook('delete', staticData)).toBe(true);
		expect(sandbox.requests.map((request) => [request.method, request.path, request.status])).toEqual([
			['DELETE', `/api/Webhooks/${id}`, 200],
		]);
		expect(registered()).toEqual([]);
		expect(staticData).toEqual({});
	});

	it('a gateway refusing the removal does not fail the deactivation; it is logged without the secret', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		const secret = secretFor();
		const id = String(staticData.webhookId);
		sandbox.failNext('webhooks.delete', 1, '500');
		const logsBefore = getLogs().length;

		expect(await hook('delete', staticData)).toBe(true);
		expect(staticData).toEqual({});
		const logged = getLogs().slice(logsBefore);
		expect(logged.some((line) => line.startsWith('warn') && line.includes(id))).toBe(true);
		expect(logged.join('\n')).not.toContain(secret);
		expect(logged.join('\n')).not.toContain(sandbox.apiKey);
	});

	it('a registration already gone at the gateway (404) is deactivated quietly', async () => {
		const staticData: IDataObject = {};
		await activate(staticData);
		sandbox.state.webhooks.clear();
		const logsBefore = getLogs().length;

		expect(await hook('delete', staticData)).toBe(true);
		expect(sandbox.requests.at(-1)).toMatchObject({ method: 'DELETE', status: 404 });
		expect(staticData).toEqual({});
		expect(getLogs().slice(logsBefore).filter((line) => line.startsWith('warn'))).toEqual([]);
	});

	it('deactivation with nothing registered calls nothing', async () => {
		expect(await hook('delete', {})).toBe(true);
		expect(sandbox.requests).toEqual([]);
	});

	it('a webhook URL that is not https is refused with how to fix it', async () => {
		const staticData: IDataObject = {};
		const activateAt = (url: string) => hook('create', staticData, {}, url, 'https://gateway.example.com');
		await expect(activateAt('http://n8n.example.com/webhook/x/webhook')).rejects.toThrow(
			/only delivers to https addresses.*http:\/\/n8n\.example\.com/,
		);
		await expect(activateAt('http://n8n.example.com/webhook/x/webhook')).rejects.toMatchObject({
			name: 'NodeOperationError',
			description: expect.stringContaining('WEBHOOK_URL'),
		});
		expect(staticData).toEqual({});
	});

	it('the check on activation (and on Execute step) says it before any request, even when the gateway is unreachable', async () => {
		const check = hook('checkExists', {}, {}, 'http://127.0.0.1:5678/webhook-test/x/webhook', 'https://gateway.example.invalid');
		await expect(check).rejects.toThrow(/only delivers to https addresses.*http:\/\/127\.0\.0\.1:5678\/webhook-test/);
		expect(sandbox.requests).toEqual([]);
	});

	it('a plain http webhook URL is accepted against a loopback gateway (local sandbox)', async () => {
		const staticData: IDataObject = {};
		expect(await activate(staticData, {}, 'http://127.0.0.1:5678/webhook/x/webhook')).toBe('created');
		expect(registered()).toHaveLength(1);
	});

	it('a gateway error on creation fails the activation with the gateway message and stores nothing', async () => {
		const staticData: IDataObject = {};
		sandbox.failNext('webhooks.create', 1, '500');
		await expect(hook('create', staticData)).rejects.toMatchObject({ name: 'NodeApiError', httpCode: '500' });
		expect(staticData).toEqual({});
	});

	it('a credential without Phone ID is refused before calling the gateway', async () => {
		const promise = runHook({
			node,
			parameters: {},
			credentials: { messagingGatewayApi: { apiKey: sandbox.apiKey, phoneId: '', baseUrl: sandbox.url } },
			staticData: {},
			method: 'create',
			webhookUrl: WEBHOOK_URL,
		});
		await expect(promise).rejects.toMatchObject({
			name: 'NodeOperationError',
			message: expect.stringContaining('Phone ID'),
		});
		expect(routesCalled()).toEqual([]);
	});

	it('extra headers that would break the registration are refused before calling the gateway', async () => {
		const bad = { options: { extraHeaders: { header: [{ name: SECRET_HEADER, value: 'mine' }] } } };
		await expect(hook('create', {}, bad)).rejects.toMatchObject({ name: 'NodeOperationError' });
		expect(routesCalled()).toEqual([]);
	});
});

/**
 * A stand-in for n8n's webhook server at a loopback URL: the sandbox POSTs its deliveries here, each is handed to the
 * node's webhook() with the same static data, and the node's answer goes back to the sandbox.
 */
async function startReceiver(staticData: IDataObject, parameters: INodeParameters = {}) {
	const runs: RunWebhookResult[] = [];
	const trigger = freshTrigger();
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const rawBody = Buffer.concat(chunks);
			const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
			webhook(staticData, { headers, rawBody }, parameters, trigger).then(
				(run) => {
					runs.push(run);
					res.statusCode = run.response.written ? run.response.statusCode : 200;
					res.end(JSON.stringify(run.response.body ?? {}));
				},
				(error: unknown) => {
					res.statusCode = 500;
					res.end(String(error));
				},
			);
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook/node/webhook`;
	return { url, runs, close: () => new Promise<void>((resolve) => server.close(() => resolve())) };
}

describe('notifications delivered by the gateway', () => {
	it('a registered trigger receives what the gateway delivers, with the secret it registered', async () => {
		const staticData: IDataObject = {};
		const receiver = await startReceiver(staticData);
		try {
			await activate(staticData, {}, receiver.url);
			const deliveries = await sandbox.deliver(sample('incoming-text.value.json'));
			expect(deliveries.map((delivery) => delivery.status)).toEqual([200]);
			expect(receiver.runs).toHaveLength(1);
			const items = receiver.runs[0].result.workflowData![0].map((item) => item.json);
			expect(items).toEqual([
				expect.objectContaining({
					event: 'message',
					messageId: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1',
					from: '5511988887777',
					contactName: 'Ana Souza',
					text: 'Olá, quero saber do meu pedido',
					timestamp: '2025-11-22T08:26:40.000Z',
				}),
			]);
			expect(JSON.parse(deliveries[0].body)).toEqual({ received: true, items: 1, duplicates: 0 });
			expect(JSON.stringify(items)).not.toContain(secretFor(receiver.url));

			// The gateway delivers the same notification again: answered the same way, nothing started.
			const again = await sandbox.deliver(sample('incoming-text.value.json'));
			expect(again.map((delivery) => [delivery.status, JSON.parse(delivery.body)])).toEqual([
				[200, { received: true, items: 0, duplicates: 1 }],
			]);
			expect(receiver.runs).toHaveLength(2);
			expect(receiver.runs[1].result.workflowData).toBeUndefined();
		} finally {
			await receiver.close();
		}
	});

	it('a delivery without the custom headers (forged) is answered 401 and starts nothing', async () => {
		const staticData: IDataObject = {};
		const receiver = await startReceiver(staticData);
		try {
			await activate(staticData, {}, receiver.url);
			const deliveries = await sandbox.deliver(sample('incoming-text.value.json'), { omitCustomHeaders: true });
			expect(deliveries.map((delivery) => delivery.status)).toEqual([401]);
			expect(receiver.runs[0].result).toEqual({ noWebhookResponse: true });
		} finally {
			await receiver.close();
		}
	});
});

describe('the webhook handler', () => {
	const SECRET = 'f'.repeat(64);
	const PHONE_ID = '104857600000001';
	/** What activation leaves in static data: a verifier of the secret, never the secret. */
	const registeredData = (): IDataObject => ({
		webhookId: 'wh-1',
		secretVerifier: secretVerifier(SECRET),
		registrationFingerprint: 'x',
		phoneId: PHONE_ID,
	});
	const withSecret = () => ({ [SECRET_HEADER]: SECRET });

	/** A request as the gateway sends it: the registered secret header and a JSON notification. */
	const fromGateway = (
		data: IDataObject,
		body: unknown,
		parameters: INodeParameters = {},
		trigger?: MessagingGatewayTrigger,
	) => webhook(data, { headers: withSecret(), body }, parameters, trigger);

	/** The items of a run, or [] when no execution starts. */
	const itemsOf = (run: RunWebhookResult) => (run.result.workflowData?.[0] ?? []).map((item) => item.json);

	it.each(SAMPLES)('sample %s: exact items, statuses on', async (_file, notification) => {
		const run = await fromGateway(registeredData(), notification, { options: { statusUpdates: 'all' } });
		const parsed = parseNotification(notification);
		if (!parsed.isNotification) throw new Error('every sample is a notification');
		expect(parsed.items.length).toBeGreaterThan(0);
		expect(itemsOf(run)).toEqual(parsed.items);
		// The node answers with the acknowledgement (n8n's placeholder answer is never sent), and n8n starts the run.
		expect(run.result.noWebhookResponse).toBe(true);
		expect(run.response).toMatchObject({
			written: true,
			statusCode: 200,
			body: { received: true, items: parsed.items.length, duplicates: 0 },
		});
	});

	it('an incoming text sample, item by item', async () => {
		const notification = sample('incoming-text.value.json');
		const run = await fromGateway(registeredData(), notification);
		expect(itemsOf(run)).toEqual([
			{
				event: 'message',
				messageId: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1',
				from: '5511988887777',
				contactName: 'Ana Souza',
				timestamp: '2025-11-22T08:26:40.000Z',
				timestampUnix: 1763800000,
				type: 'text',
				text: 'Olá, quero saber do meu pedido',
				replyId: null,
				mediaId: null,
				location: null,
				context: null,
				phoneNumberId: '104857600000001',
				displayPhoneNumber: '5511900001111',
				message: (notification.messages as unknown[])[0],
				contact: (notification.contacts as unknown[])[0],
				metadata: notification.metadata,
			},
		]);
	});

	it('status updates are off by default: a status notification starts nothing and is answered 200', async () => {
		const run = await fromGateway(registeredData(), sample('status-delivered.value.json'));
		expect(run.result.workflowData).toBeUndefined();
		expect(run.response).toMatchObject({ written: true, statusCode: 200, body: { received: true, items: 0, duplicates: 0 } });
	});

	it('chosen statuses only', async () => {
		const parameters = { options: { statusUpdates: 'chosen', statuses: ['failed'] } };
		const failed = await fromGateway(registeredData(), sample('status-failed.value.json'), parameters);
		expect(itemsOf(failed)).toMatchObject([{ event: 'status', status: 'failed', errorCode: 131047 }]);
		const delivered = await fromGateway(registeredData(), sample('status-delivered.value.json'), parameters);
		expect(itemsOf(delivered)).toEqual([]);
	});

	it('only the chosen message types', async () => {
		const run = await webhook(
			registeredData(),
			{ headers: withSecret(), body: sample('incoming-image-and-location.value.json') },
			{ options: { messageTypes: ['location'] } },
		);
		expect(itemsOf(run).map((item) => item.messageId)).toEqual(['wamid.LOC0001']);
	});

	it('the raw notification is added on request', async () => {
		const notification = sample('incoming-text.meta-envelope.json');
		const run = await fromGateway(registeredData(), notification, { options: { includeRawPayload: true } });
		expect(itemsOf(run)).toEqual([
			expect.objectContaining({ messageId: 'wamid.ENVELOPE0001', rawNotification: notification }),
		]);
	});

	it.each([
		['no secret header', {}],
		['a wrong secret', { [SECRET_HEADER]: 'e'.repeat(64) }],
		['a shorter secret', { [SECRET_HEADER]: 'f'.repeat(63) }],
		['the secret in another header', { 'x-other': 'f'.repeat(64) }],
	])('%s: 401, no execution', async (_label, headers) => {
		const run = await webhook(registeredData(), { headers, body: sample('incoming-text.value.json') });
		expect(run.result).toEqual({ noWebhookResponse: true });
		expect(run.response).toMatchObject({ written: true, statusCode: 401 });
		expect(JSON.stringify(run.response.body)).not.toContain(SECRET);
	});

	it('401 when nothing was registered (no secret in static data), even with an empty header', async () => {
		const run = await webhook({}, { headers: { [SECRET_HEADER]: '' }, body: sample('incoming-text.value.json') });
		expect(run.response).toMatchObject({ written: true, statusCode: 401 });
		expect(run.result.workflowData).toBeUndefined();
	});

	it('the secret header name is case-insensitive, as on the wire', async () => {
		const run = await webhook(registeredData(), {
			headers: { 'X-Gateway-Webhook-Secret': SECRET },
			body: sample('incoming-text.value.json'),
		});
		expect(itemsOf(run)).toHaveLength(1);
	});

	const text = { 'content-type': 'text/plain' };
	const json = { 'content-type': 'application/json' };
	it.each<[string, WebhookRequest, string]>([
		['a body that is not JSON', { rawBody: Buffer.from('messages=hello'), headers: text }, 'not JSON'],
		['broken JSON', { rawBody: Buffer.from('{"messages": ['), headers: json }, 'not JSON'],
		['an empty body', { rawBody: Buffer.from('') }, 'Not a notification'],
		['JSON that is no notification', { body: { hello: 'world' } }, 'Not a notification'],
		['a JSON array', { body: [sample('incoming-text.value.json')] }, 'Not a notification'],
	])('%s: 400, no execution', async (_label, request, message) => {
		const run = await webhook(registeredData(), { ...request, headers: { ...withSecret(), ...request.headers } });
		expect(run.result).toEqual({ noWebhookResponse: true });
		expect(run.response).toMatchObject({
			written: true,
			statusCode: 400,
			body: { message: expect.stringContaining(message) },
		});
	});

	it('the secret is checked before the body: a forged malformed request is 401', async () => {
		const run = await webhook(registeredData(), { rawBody: Buffer.from('garbage') });
		expect(run.response).toMatchObject({ written: true, statusCode: 401 });
	});

	describe('duplicate deliveries', () => {
		const text = sample('incoming-text.value.json');
		const messageId = 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1';
		/** The same notification with another message id. */
		const withMessageId = (id: string) => ({
			...text,
			messages: (text.messages as IDataObject[]).map((message) => ({ ...message, id })),
		});
		const statusAll = { options: { statusUpdates: 'all' } };

		it('the same notification delivered twice: one emission; the second is acknowledged as a duplicate', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const first = await fromGateway(data, text, {}, trigger);
			const second = await fromGateway(data, text, {}, trigger);
			expect(itemsOf(first).map((item) => item.messageId)).toEqual([messageId]);
			expect(second.result.workflowData).toBeUndefined();
			expect(second.response).toMatchObject({ written: true, statusCode: 200, body: { received: true, items: 0, duplicates: 1 } });
		});

		it('two concurrent deliveries of one message: one emission', async () => {
			const trigger = freshTrigger();
			// As in n8n: each request reads its own copy of the static data from the database; only the process is shared.
			const runs = await Promise.all([1, 2, 3].map(() => fromGateway(registeredData(), text, {}, trigger)));
			expect(runs.map((run) => itemsOf(run).length).sort()).toEqual([0, 0, 1]);
		});

		it('another message id: two emissions', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const first = await fromGateway(data, text, {}, trigger);
			const second = await fromGateway(data, withMessageId('wamid.ANOTHER0001'), {}, trigger);
			expect([...itemsOf(first), ...itemsOf(second)].map((item) => item.messageId)).toEqual([
				messageId,
				'wamid.ANOTHER0001',
			]);
		});

		it('a status, then the same status again: one; the next status of that message: one more', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const delivered = sample('status-delivered.value.json');
			const read = {
				...delivered,
				statuses: (delivered.statuses as IDataObject[]).map((status) => ({ ...status, status: 'read' })),
			};
			const runs = [];
			for (const body of [delivered, delivered, read, read]) runs.push(await fromGateway(data, body, statusAll, trigger));
			expect(runs.map((run) => itemsOf(run).map((item) => item.status))).toEqual([['delivered'], [], ['read'], []]);
		});

		it('a template event twice: one', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const template = sample('template-status.value.json');
			const runs = [await fromGateway(data, template, {}, trigger), await fromGateway(data, template, {}, trigger)];
			expect(runs.map((run) => itemsOf(run).length)).toEqual([1, 0]);
		});

		it('a notification with a seen and a new message emits only the new one', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			await fromGateway(data, text, {}, trigger);
			const both = { ...text, messages: [...(text.messages as IDataObject[]), ...(withMessageId('wamid.NEW1').messages as IDataObject[])] };
			const run = await fromGateway(data, both, {}, trigger);
			expect(itemsOf(run).map((item) => item.messageId)).toEqual(['wamid.NEW1']);
			expect(run.response.body).toEqual({ received: true, items: 1, duplicates: 1 });
		});

		it('the same notification to the test URL and the production URL starts both; a re-delivery to either starts nothing', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const deliver = (mode: 'webhook' | 'manual') =>
				runWebhook({ node: trigger, parameters: {}, credentials: credentials(), staticData: data, request: { headers: withSecret(), body: text }, mode });
			const production = await deliver('webhook');
			const test = await deliver('manual');
			expect(itemsOf(production).map((item) => item.messageId)).toEqual([messageId]);
			expect(itemsOf(test).map((item) => item.messageId)).toEqual([messageId]);
			const again = [await deliver('webhook'), await deliver('manual')];
			expect(again.map((run) => run.response.body)).toEqual([
				{ received: true, items: 0, duplicates: 1 },
				{ received: true, items: 0, duplicates: 1 },
			]);
		});

		it('a test listener neither writes its events to static data nor is held back by what production saved', async () => {
			const data = registeredData();
			const testRun = () =>
				runWebhook({ node: freshTrigger(), parameters: {}, credentials: credentials(), staticData: data, request: { headers: withSecret(), body: text }, mode: 'manual' });
			await testRun();
			expect(data.seenEvents).toBeUndefined();
			await fromGateway(data, text, {}, freshTrigger());
			expect(data.seenEvents).toBeDefined();
			expect(itemsOf(await testRun())).toHaveLength(1);
		});

		it('held across a restart and another process: what static data saved is honoured by a fresh memory', async () => {
			const data = registeredData();
			await fromGateway(data, text, {}, freshTrigger());
			// Static data as n8n saves it (JSON), read by a trigger whose process memory knows nothing.
			const saved = JSON.parse(JSON.stringify(data)) as IDataObject;
			expect(JSON.stringify(saved)).not.toContain(messageId);
			const afterRestart = await fromGateway(saved, text, {}, freshTrigger());
			expect(afterRestart.result.workflowData).toBeUndefined();
			expect(afterRestart.response.body).toMatchObject({ duplicates: 1 });
			const fresh = await fromGateway(saved, withMessageId('wamid.AFTER1'), {}, freshTrigger());
			expect(itemsOf(fresh)).toHaveLength(1);
		});

		it('a filtered-out delivery is not remembered: the same message later counts when the filter allows it', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const filtered = await fromGateway(data, text, { options: { messageTypes: ['image'] } }, trigger);
			expect(itemsOf(filtered)).toEqual([]);
			expect(data.seenEvents).toBeUndefined();
			expect(itemsOf(await fromGateway(data, text, {}, trigger))).toHaveLength(1);
		});

		it('a window of 0 hours turns the guard off', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const parameters = { options: { duplicateWindowHours: 0 } };
			const runs = [await fromGateway(data, text, parameters, trigger), await fromGateway(data, text, parameters, trigger)];
			expect(runs.map((run) => itemsOf(run).length)).toEqual([1, 1]);
			expect(data.seenEvents).toBeUndefined();
		});

		it('a message seen longer ago than the window starts again', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const realNow = Date.now;
			try {
				await fromGateway(data, text, { options: { duplicateWindowHours: 1 } }, trigger);
				Date.now = () => realNow() + 61 * 60 * 1000;
				const later = await fromGateway(data, text, { options: { duplicateWindowHours: 1 } }, trigger);
				expect(itemsOf(later)).toHaveLength(1);
			} finally {
				Date.now = realNow;
			}
		});
	});

	describe('only this phone', () => {
		const otherPhone = (body: Record<string, unknown>) => ({
			...body,
			metadata: { ...(body.metadata as IDataObject), phone_number_id: '104857600000999' },
		});

		it("another phone's notification starts nothing (and is acknowledged)", async () => {
			const run = await fromGateway(registeredData(), otherPhone(sample('incoming-text.value.json')));
			expect(run.result.workflowData).toBeUndefined();
			expect(run.response.body).toEqual({ received: true, items: 0, duplicates: 0 });
		});

		it("another phone's status updates too", async () => {
			const body = otherPhone(sample('status-delivered.value.json'));
			const run = await fromGateway(registeredData(), body, { options: { statusUpdates: 'all' } });
			expect(run.result.workflowData).toBeUndefined();
		});

		it('this phone in an envelope with another phone: only this phone\'s items', async () => {
			const envelope = sample('incoming-text.meta-envelope.json') as { entry: Array<{ changes: Array<{ value: IDataObject }> }> };
			const mine = envelope.entry[0].changes[0];
			const theirs = { ...mine, value: { ...otherPhone(mine.value as Record<string, unknown>), messages: [{ ...(mine.value.messages as IDataObject[])[0], id: 'wamid.THEIRS' }] } };
			const body = { ...envelope, entry: [{ ...envelope.entry[0], changes: [mine, theirs] }] };
			const run = await fromGateway(registeredData(), body);
			expect(itemsOf(run).map((item) => item.messageId)).toEqual(['wamid.ENVELOPE0001']);
		});

		it('template events name no phone and are kept', async () => {
			const run = await fromGateway(registeredData(), sample('template-status.value.json'));
			expect(itemsOf(run)).toHaveLength(1);
		});

		it('turned off, other phones start the workflow', async () => {
			const run = await fromGateway(registeredData(), otherPhone(sample('incoming-text.value.json')), {
				options: { onlyThisPhone: false },
			});
			expect(itemsOf(run).map((item) => item.phoneNumberId)).toEqual(['104857600000999']);
		});
	});

	describe('mark as read on receipt', () => {
		const messagesPosted = () =>
			sandbox.requests.filter((request) => request.route === 'messages').map((request) => request.body);

		it('off by default: nothing is posted', async () => {
			await fromGateway(registeredData(), sample('incoming-image-and-location.value.json'));
			await new Promise((resolve) => setImmediate(resolve));
			expect(messagesPosted()).toEqual([]);
		});

		it('on: one mark-as-read body per incoming message that starts the workflow, none for duplicates', async () => {
			const trigger = freshTrigger();
			const data = registeredData();
			const parameters = { options: { markAsRead: true } };
			const run = await fromGateway(data, sample('incoming-image-and-location.value.json'), parameters, trigger);
			await fromGateway(data, sample('incoming-image-and-location.value.json'), parameters, trigger);
			expect(itemsOf(run)).toHaveLength(2);
			const bodies = await waitForPosts(2);
			expect(bodies).toEqual(
				itemsOf(run).map((item) => ({ messaging_product: 'whatsapp', status: 'read', message_id: item.messageId })),
			);
			expect(sandbox.requests.filter((request) => request.route === 'messages').every((r) => r.status === 200)).toBe(true);
		});

		it('a gateway failure is logged without the API key, and the execution still starts', async () => {
			sandbox.failNext('messages', 1, '500');
			const logsBefore = getLogs().length;
			const run = await fromGateway(registeredData(), sample('incoming-text.value.json'), { options: { markAsRead: true } });
			expect(itemsOf(run)).toHaveLength(1);
			await waitForPosts(1);
			const warned = await waitFor(() => getLogs().slice(logsBefore).filter((line) => line.includes('as read failed')));
			expect(warned).toHaveLength(1);
			expect(warned[0]).toContain('wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1');
			expect(warned.join('\n')).not.toContain(sandbox.apiKey);
		});

		async function waitForPosts(count: number) {
			return await waitFor(() => {
				const posted = messagesPosted();
				return posted.length >= count ? posted : [];
			});
		}
	});
});

/** Polls until `read` returns a non-empty list (mark-as-read runs after the answer, detached from the run). */
async function waitFor<T>(read: () => T[], timeoutMs = 10_000): Promise<T[]> {
	const started = Date.now();
	for (;;) {
		const value = read();
		if (value.length > 0) return value;
		if (Date.now() - started > timeoutMs) throw new Error('waited in vain');
		await new Promise((resolve) => setTimeout(resolve, 20));
	}
}
