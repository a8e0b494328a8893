/**
 * The trigger node against the sandbox gateway, in process: registration on activation (once, reused, replaced,
 * removed), the https rule, and the webhook handler with real deliveries, forged and malformed requests.
 */
import * as fs from 'fs';
import * as http from 'http';
import type { AddressInfo } from 'net';
import * as path from 'path';

import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { MessagingGatewayTrigger } from '../../nodes/MessagingGatewayTrigger/MessagingGatewayTrigger.node';
import { parseNotification } from '../../nodes/MessagingGatewayTrigger/notifications';
import { SECRET_HEADER } from '../../nodes/MessagingGatewayTrigger/registration';
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

let sandbox: Sandbox;

beforeAll(async () => {
	sandbox = await startSandbox();
});

afterAll(async () => {
	await sandbox.close();
});

beforeEach(() => sandbox.reset());

function credentials(baseUrl = sandbox.url) {
	return { messagingGatewayApi: { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl } };
}

const hook = (
	method: 'checkExists' | 'create' | 'delete',
	staticData: IDataObject,
	parameters: INodeParameters = {},
	webhookUrl = WEBHOOK_URL,
	baseUrl?: string,
) => runHook({ node, parameters, credentials: credentials(baseUrl), staticData, method, webhookUrl });

/** What n8n does on activation: checkExists, and create when it answered false. */
async function activate(staticData: IDataObject, parameters: INodeParameters = {}, webhookUrl = WEBHOOK_URL) {
	if (await hook('checkExists', staticData, parameters, webhookUrl)) return 'reused';
	await hook('create', staticData, parameters, webhookUrl);
	return 'created';
}

const routesCalled = () => sandbox.requests.map((request) => request.route);
const registered = () => [...sandbox.state.webhooks.values()];

interface WebhookRequest {
	headers?: Record<string, string>;
	body?: unknown;
	rawBody?: Buffer;
}

function webhook(staticData: IDataObject, request: WebhookRequest, parameters: INodeParameters = {}) {
	return runWebhook({ node, parameters, credentials: credentials(), staticData, request });
}

const withSecret = (staticData: IDataObject) => ({ [SECRET_HEADER]: String(staticData.webhookSecret) });

/** A request as the gateway sends it: the registered secret header and a JSON notification. */
const fromGateway = (staticData: IDataObject, body: unknown, parameters: INodeParameters = {}) =>
	webhook(staticData, { headers: withSecret(staticData), body }, parameters);

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
			headers: { [SECRET_HEADER]: expect.stringMatching(/^[0-9a-f]{64}$/) },
		});
		expect(registered()).toHaveLength(1);
		const [registration] = registered();
		expect(staticData).toEqual({
			webhookId: registration.id,
			webhookSecret: registration.headers[SECRET_HEADER],
			registrationFingerprint: expect.stringMatching(/^[0-9a-f]{64}$/),
		});
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
		['the Meta version', { metaVersion: 'v16' }],
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
		expect(staticData.webhookSecret).not.toBe(first.webhookSecret);
		expect(registration.headers[SECRET_HEADER]).toBe(staticData.webhookSecret);
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
			[SECRET_HEADER]: staticData.webhookSecret,
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
		const secret = String(staticData.webhookSecret);
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
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			const rawBody = Buffer.concat(chunks);
			const headers = Object.fromEntries(Object.entries(req.headers).map(([name, value]) => [name, String(value)]));
			webhook(staticData, { headers, rawBody }, parameters).then(
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
			expect(JSON.stringify(items)).not.toContain(String(staticData.webhookSecret));
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
	const staticData = { webhookId: 'wh-1', webhookSecret: 'f'.repeat(64), registrationFingerprint: 'x' };

	/** The items of a run, or [] when no execution starts. */
	const itemsOf = (run: RunWebhookResult) => (run.result.workflowData?.[0] ?? []).map((item) => item.json);

	it.each(SAMPLES)('sample %s: exact items, statuses on', async (_file, notification) => {
		const run = await fromGateway(staticData, notification, { options: { statusUpdates: 'all' } });
		const parsed = parseNotification(notification);
		if (!parsed.isNotification) throw new Error('every sample is a notification');
		expect(parsed.items.length).toBeGreaterThan(0);
		expect(itemsOf(run)).toEqual(parsed.items);
		expect(run.response.written).toBe(false);
	});

	it('an incoming text sample, item by item', async () => {
		const notification = sample('incoming-text.value.json');
		const run = await fromGateway(staticData, notification);
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
		const run = await fromGateway(staticData, sample('status-delivered.value.json'));
		expect(run.result.workflowData).toBeUndefined();
		expect(run.result.noWebhookResponse).toBeFalsy();
		expect(run.response.written).toBe(false);
	});

	it('chosen statuses only', async () => {
		const parameters = { options: { statusUpdates: 'chosen', statuses: ['failed'] } };
		const failed = await fromGateway(staticData, sample('status-failed.value.json'), parameters);
		expect(itemsOf(failed)).toMatchObject([{ event: 'status', status: 'failed', errorCode: 131047 }]);
		const delivered = await fromGateway(staticData, sample('status-delivered.value.json'), parameters);
		expect(itemsOf(delivered)).toEqual([]);
	});

	it('only the chosen message types', async () => {
		const run = await webhook(
			staticData,
			{ headers: withSecret(staticData), body: sample('incoming-image-and-location.value.json') },
			{ options: { messageTypes: ['location'] } },
		);
		expect(itemsOf(run).map((item) => item.messageId)).toEqual(['wamid.LOC0001']);
	});

	it('the raw notification is added on request', async () => {
		const notification = sample('incoming-text.meta-envelope.json');
		const run = await fromGateway(staticData, notification, { options: { includeRawPayload: true } });
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
		const run = await webhook(staticData, { headers, body: sample('incoming-text.value.json') });
		expect(run.result).toEqual({ noWebhookResponse: true });
		expect(run.response).toMatchObject({ written: true, statusCode: 401 });
		expect(JSON.stringify(run.response.body)).not.toContain(staticData.webhookSecret);
	});

	it('401 when nothing was registered (no secret in static data), even with an empty header', async () => {
		const run = await webhook({}, { headers: { [SECRET_HEADER]: '' }, body: sample('incoming-text.value.json') });
		expect(run.response).toMatchObject({ written: true, statusCode: 401 });
		expect(run.result.workflowData).toBeUndefined();
	});

	it('the secret header name is case-insensitive, as on the wire', async () => {
		const run = await webhook(staticData, {
			headers: { 'X-Gateway-Webhook-Secret': staticData.webhookSecret },
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
		const run = await webhook(staticData, { ...request, headers: { ...withSecret(staticData), ...request.headers } });
		expect(run.result).toEqual({ noWebhookResponse: true });
		expect(run.response).toMatchObject({
			written: true,
			statusCode: 400,
			body: { message: expect.stringContaining(message) },
		});
	});

	it('the secret is checked before the body: a forged malformed request is 401', async () => {
		const run = await webhook(staticData, { rawBody: Buffer.from('garbage') });
		expect(run.response).toMatchObject({ written: true, statusCode: 401 });
	});
});
