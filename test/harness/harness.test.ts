/**
 * Proves the harness runs nodes through n8n's real machinery, using small throwaway nodes against a local server.
 */
import { createHash } from 'node:crypto';
import { once } from 'node:events';
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';
import type {
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
	JsonObject,
} from 'n8n-workflow';

import { DEFAULT_BASE_URL } from '../../nodes/gateway/spec';
import {
	EXECUTION_ID,
	getLogs,
	readBinary,
	runCredentialTest,
	runHook,
	runLoadOptions,
	runNode,
	runWebhook,
} from './index';

const API_KEY = 'key-5ecret-123';

// ---- a local gateway-like server that reports what it received ------------------------------------------------

interface Received {
	method: string;
	url: string;
	headers: IncomingMessage['headers'];
	bytes: number;
	sha256: string;
	body?: unknown;
}

const received: Received[] = [];
const registeredHooks = new Map<string, string>();
let uploadedFile: { sha256: string; bytes: number } | undefined;
let server: Server;
let baseUrl: string;

async function readRequest(req: IncomingMessage): Promise<Received> {
	// Hash as it arrives, so the server never holds a large upload in memory.
	const hash = createHash('sha256');
	const small: Buffer[] = [];
	let bytes = 0;
	for await (const chunk of req as AsyncIterable<Buffer>) {
		hash.update(chunk);
		bytes += chunk.length;
		if (bytes <= 64 * 1024) small.push(chunk);
	}
	const text = bytes <= 64 * 1024 ? Buffer.concat(small).toString('utf8') : '';
	let body: unknown;
	if (text) body = (req.headers['content-type'] ?? '').includes('json') ? JSON.parse(text) : text;
	return { method: req.method!, url: req.url!, headers: req.headers, bytes, sha256: hash.digest('hex'), body };
}

function sendJson(res: ServerResponse, status: number, body: unknown) {
	res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
}

async function handle(req: IncomingMessage, res: ServerResponse) {
	const request = await readRequest(req);
	received.push(request);
	const authorized = req.headers.apikey === API_KEY;
	const path = new URL(request.url, baseUrl).pathname;

	if (!authorized) return sendJson(res, 401, { message: 'Invalid API key' });
	if (path === '/echo') return sendJson(res, 200, { seen: request.body, apikey: req.headers.apikey });
	if (path === '/fail') return sendJson(res, 500, { message: 'Gateway exploded' });
	if (path === '/upload') {
		uploadedFile = { sha256: request.sha256, bytes: request.bytes };
		return sendJson(res, 200, { id: 'media-1', ...uploadedFile });
	}
	if (path === '/templates') {
		return sendJson(res, 200, [
			{ name: 'welcome', language: 'en' },
			{ name: 'bem_vindo', language: 'pt_BR' },
			{ name: 'order_update', language: 'en' },
		]);
	}
	if (path === '/hooks' && req.method === 'GET') {
		return sendJson(res, 200, [...registeredHooks].map(([id, url]) => ({ id, url })));
	}
	if (path === '/hooks' && req.method === 'POST') {
		const id = `hook-${registeredHooks.size + 1}`;
		registeredHooks.set(id, (request.body as IDataObject).url as string);
		return sendJson(res, 201, { id });
	}
	if (path.startsWith('/hooks/') && req.method === 'DELETE') {
		registeredHooks.delete(path.slice('/hooks/'.length));
		return sendJson(res, 200, { deleted: true });
	}
	return sendJson(res, 404, { message: 'Not found' });
}

beforeAll(async () => {
	server = createServer((req, res) => void handle(req, res));
	server.listen(0, '127.0.0.1');
	await once(server, 'listening');
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
	server.close();
	await once(server, 'close');
});

beforeEach(() => {
	received.length = 0;
	registeredHooks.clear();
	uploadedFile = undefined;
});

const credentials = () => ({ messagingGatewayApi: { apiKey: API_KEY, baseUrl } });

// ---- throwaway nodes --------------------------------------------------------------------------------------------

const baseDescription: Omit<INodeTypeDescription, 'name' | 'displayName' | 'properties'> = {
	group: ['transform'],
	version: 1,
	description: 'Harness test node',
	defaults: {},
	inputs: [NodeConnectionTypes.Main],
	outputs: [NodeConnectionTypes.Main],
	credentials: [{ name: 'messagingGatewayApi', required: true, testedBy: 'gatewayTest' }],
};

/** Sends each item's `note` to the server with the credential's authentication and returns what came back. */
class EchoNode implements INodeType {
	description: INodeTypeDescription = {
		...baseDescription,
		displayName: 'Echo',
		name: 'harnessEcho',
		properties: [
			{ displayName: 'Path', name: 'path', type: 'string', default: '/echo' },
			{ displayName: 'Note', name: 'note', type: 'string', default: '' },
			{ displayName: 'Count', name: 'count', type: 'number', default: 7 },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl: gatewayUrl } = await this.getCredentials<{ baseUrl: string }>('messagingGatewayApi');
		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
			try {
				const note = this.getNodeParameter('note', itemIndex) as string;
				this.logger.info('Echo sends a note', { note });
				const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'messagingGatewayApi', {
					method: 'POST',
					url: `${gatewayUrl}${this.getNodeParameter('path', itemIndex) as string}`,
					body: { note, count: this.getNodeParameter('count', itemIndex) },
					json: true,
				})) as IDataObject;
				output.push({ json: response, pairedItem: { item: itemIndex } });
			} catch (error) {
				const apiError = new NodeApiError(this.getNode(), error as JsonObject, { itemIndex });
				if (!this.continueOnFail()) throw apiError;
				output.push({ json: { error: apiError.message }, pairedItem: { item: itemIndex } });
			}
		}
		return [output];
	}
}

/** Streams each item's binary `data` to the server, then returns the same bytes as a new binary property. */
class UploadNode implements INodeType {
	description: INodeTypeDescription = {
		...baseDescription,
		displayName: 'Upload',
		name: 'harnessUpload',
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl: gatewayUrl } = await this.getCredentials<{ baseUrl: string }>('messagingGatewayApi');
		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < this.getInputData().length; itemIndex++) {
			const binaryData = this.helpers.assertBinaryData(itemIndex, 'data');
			const upload = await this.helpers.getBinaryStream(binaryData.id!);
			const response = (await this.helpers.httpRequestWithAuthentication.call(this, 'messagingGatewayApi', {
				method: 'POST',
				url: `${gatewayUrl}/upload`,
				body: upload,
				headers: { 'content-type': 'application/octet-stream', 'content-length': binaryData.bytes },
				// Following redirects makes n8n's HTTP client keep a copy of the whole body to replay it.
				disableFollowRedirect: true,
			})) as IDataObject;
			const copy = await this.helpers.prepareBinaryData(
				await this.helpers.getBinaryStream(binaryData.id!),
				`copy-${binaryData.fileName}`,
				binaryData.mimeType,
			);
			output.push({ json: response, binary: { copy }, pairedItem: { item: itemIndex } });
		}
		return [output];
	}
}

/** Returns the credential fields other than the key, as the node sees them. */
class CredentialFieldsNode implements INodeType {
	description: INodeTypeDescription = {
		...baseDescription,
		displayName: 'Fields',
		name: 'harnessFields',
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { phoneId, baseUrl: gatewayUrl } = await this.getCredentials('messagingGatewayApi');
		return [[{ json: { phoneId, baseUrl: gatewayUrl } }]];
	}
}

/** Puts the execution to wait for an hour and returns the URLs a recipient would use to resume it. */
class WaitNode implements INodeType {
	description: INodeTypeDescription = {
		...baseDescription,
		credentials: [],
		displayName: 'Wait',
		name: 'harnessWait',
		properties: [{ displayName: 'Message', name: 'message', type: 'string', default: '' }],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		await this.putExecutionToWait(new Date('2030-01-01T00:00:00Z'));
		return [
			[
				{
					json: {
						message: this.getNodeParameter('message', 0),
						signedUrl: this.getSignedResumeUrl({ approved: 'true' }),
					},
				},
			],
		];
	}
}

/**
 * A trigger that registers its URL with the server (webhookMethods), accepts notifications carrying the secret
 * it registered, and answers 401 to the rest itself. Also offers template names as load options.
 */
class HookNode implements INodeType {
	description: INodeTypeDescription = {
		...baseDescription,
		group: ['trigger'],
		inputs: [],
		displayName: 'Hook',
		name: 'harnessHook',
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [
			{ displayName: 'Language', name: 'language', type: 'string', default: 'en' },
			{
				displayName: 'Template',
				name: 'template',
				type: 'options',
				typeOptions: { loadOptionsMethod: 'getTemplates' },
				default: '',
			},
		],
	};

	methods = {
		loadOptions: {
			async getTemplates(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
				const { baseUrl: gatewayUrl } = await this.getCredentials<{ baseUrl: string }>('messagingGatewayApi');
				const templates = (await this.helpers.httpRequestWithAuthentication.call(this, 'messagingGatewayApi', {
					url: `${gatewayUrl}/templates`,
					json: true,
				})) as Array<{ name: string; language: string }>;
				const language = this.getCurrentNodeParameter('language') as string;
				return templates.filter((t) => t.language === language).map((t) => ({ name: t.name, value: t.name }));
			},
		},
		credentialTest: {
			async gatewayTest(
				this: ICredentialTestFunctions,
				credential: ICredentialsDecrypted,
			): Promise<INodeCredentialTestResult> {
				const data = credential.data as { apiKey: string; baseUrl: string };
				try {
					const uri = `${data.baseUrl}/templates`;
					await this.helpers.request({ uri, headers: { apikey: data.apiKey }, json: true });
					return { status: 'OK', message: 'Connection successful' };
				} catch (error) {
					const { statusCode } = error as { statusCode?: number };
					return { status: 'Error', message: `Gateway refused the key (${statusCode})` };
				}
			},
		},
	};

	webhookMethods = {
		default: {
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const hooks = (await request(this, 'GET', '/hooks')) as Array<{ id: string; url: string }>;
				return hooks.some((hook) => hook.url === this.getNodeWebhookUrl('default'));
			},
			async create(this: IHookFunctions): Promise<boolean> {
				const url = this.getNodeWebhookUrl('default');
				const { id } = (await request(this, 'POST', '/hooks', { url })) as IDataObject;
				const staticData = this.getWorkflowStaticData('node');
				staticData.hookId = id;
				staticData.secret = 'shared-secret';
				return true;
			},
			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node');
				await request(this, 'DELETE', `/hooks/${staticData.hookId as string}`);
				delete staticData.hookId;
				delete staticData.secret;
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const { secret } = this.getWorkflowStaticData('node');
		if (this.getHeaderData()['x-hook-secret'] !== secret) {
			this.getResponseObject().status(401).send('Unknown sender');
			return { noWebhookResponse: true };
		}
		const rawBody = (this.getRequestObject() as unknown as { rawBody: Buffer }).rawBody;
		return { workflowData: [[{ json: { ...this.getBodyData(), rawLength: rawBody.length } }]] };
	}
}

async function request(context: IHookFunctions, method: 'GET' | 'POST' | 'DELETE', path: string, body?: IDataObject) {
	const { baseUrl: gatewayUrl } = await context.getCredentials<{ baseUrl: string }>('messagingGatewayApi');
	return await context.helpers.httpRequestWithAuthentication.call(context, 'messagingGatewayApi', {
		method,
		url: `${gatewayUrl}${path}`,
		body,
		json: true,
	});
}

// ---- tests ------------------------------------------------------------------------------------------------------

describe('runNode', () => {
	it('sends requests with the apikey header from the credential and resolves expressions per item', async () => {
		const { output } = await runNode({
			node: new EchoNode(),
			parameters: { note: '={{ $json.name }} #{{ $itemIndex }}' },
			credentials: credentials(),
			items: [{ json: { name: 'Ana' } }, { json: { name: 'Bruno' } }],
		});

		expect(output[0].map((item) => item.json)).toEqual([
			{ seen: { note: 'Ana #0', count: 7 }, apikey: API_KEY },
			{ seen: { note: 'Bruno #1', count: 7 }, apikey: API_KEY },
		]);
		expect(received.map((r) => r.headers.apikey)).toEqual([API_KEY, API_KEY]);
	});

	it('captures log lines, and the API key the node never logged is not in them', async () => {
		const { logs } = await runNode({
			node: new EchoNode(),
			parameters: { note: 'hello' },
			credentials: credentials(),
		});

		expect(logs.some((line) => line.includes('Echo sends a note') && line.includes('hello'))).toBe(true);
		expect(getLogs().join('\n')).not.toContain(API_KEY);
	});

	it('with continueOnFail turns a failed request into an error item and keeps going', async () => {
		const { output } = await runNode({
			node: new EchoNode(),
			parameters: { path: '={{ $json.path }}', note: 'x' },
			credentials: credentials(),
			continueOnFail: true,
			items: [{ json: { path: '/fail' } }, { json: { path: '/echo' } }],
		});

		expect(output[0]).toHaveLength(2);
		expect(output[0][0].json.error).toEqual(expect.any(String));
		expect(output[0][0].pairedItem).toEqual({ item: 0 });
		expect(output[0][1].json.seen).toEqual({ note: 'x', count: 7 });
	});

	it('without continueOnFail throws what the node throws', async () => {
		const run = runNode({ node: new EchoNode(), parameters: { path: '/fail' }, credentials: credentials() });

		await expect(run).rejects.toBeInstanceOf(NodeApiError);
		await expect(run).rejects.toMatchObject({ httpCode: '500' });
	});

	it('fails like n8n when the node needs credentials the test did not give', async () => {
		await expect(runNode({ node: new EchoNode(), parameters: {} })).rejects.toBeInstanceOf(NodeOperationError);
	});

	it('gives the node credential fields the test left out at their defaults, as n8n does', async () => {
		const { output } = await runNode({
			node: new CredentialFieldsNode(),
			parameters: {},
			credentials: { messagingGatewayApi: { apiKey: API_KEY } },
		});

		expect(output[0][0].json).toEqual({ phoneId: '', baseUrl: DEFAULT_BASE_URL });
	});

	it('puts the execution to wait and exposes the wait time and resume URLs', async () => {
		const { output, waitTill, resumeUrl } = await runNode({
			node: new WaitNode(),
			parameters: { message: '={{ "Approve? " + $execution.resumeUrl }}' },
		});

		expect(waitTill).toEqual(new Date('2030-01-01T00:00:00Z'));
		expect(resumeUrl).toMatch(new RegExp(`^http://127\\.0\\.0\\.1:5678/webhook-waiting/${EXECUTION_ID}\\b`));
		expect(output[0][0].json.message).toBe(`Approve? ${resumeUrl}`);
		const signedUrl = new URL(output[0][0].json.signedUrl as string);
		expect(signedUrl.pathname).toMatch(new RegExp(`^/webhook-waiting/${EXECUTION_ID}/`));
		expect(signedUrl.searchParams.get('approved')).toBe('true');
		expect(signedUrl.searchParams.get('signature')).toEqual(expect.any(String));
	});
});

describe('binary data', () => {
	let folder: string;

	beforeAll(() => {
		folder = mkdtempSync(join(tmpdir(), 'harness-binary-test-'));
	});

	afterAll(() => rmSync(folder, { recursive: true, force: true }));

	it('takes a Buffer input and returns binary output readable with readBinary', async () => {
		const bytes = Buffer.from('%PDF-1.4 tiny document');
		const { output } = await runNode({
			node: new UploadNode(),
			parameters: {},
			credentials: credentials(),
			items: [{ json: {}, binary: { data: { data: bytes, fileName: 'doc.pdf', mimeType: 'application/pdf' } } }],
		});

		expect(uploadedFile).toEqual({ sha256: sha256(bytes), bytes: bytes.length });
		expect(output[0][0].binary?.copy).toMatchObject({ fileName: 'copy-doc.pdf', mimeType: 'application/pdf' });
		expect(await readBinary(output[0][0], 'copy')).toEqual(bytes);
	});
	// A 50 MB input streamed without being held in memory: harness.heavy.test.ts (`npm run test:heavy`).
});

describe('runWebhook and runHook', () => {
	const webhookUrl = 'http://127.0.0.1:5678/webhook/harness-hook/webhook';

	it('registers, finds and removes the webhook, keeping ids in the static data it is given', async () => {
		const staticData: IDataObject = {};
		const hook = (method: 'checkExists' | 'create' | 'delete') =>
			runHook({ node: new HookNode(), parameters: {}, credentials: credentials(), staticData, method, webhookUrl });

		expect(await hook('checkExists')).toBe(false);
		expect(await hook('create')).toBe(true);
		expect(staticData).toEqual({ hookId: 'hook-1', secret: 'shared-secret' });
		expect([...registeredHooks.values()]).toEqual([webhookUrl]);
		expect(await hook('checkExists')).toBe(true);

		expect(await hook('delete')).toBe(true);
		expect(staticData).toEqual({});
		expect(registeredHooks.size).toBe(0);
	});

	it('passes an accepted notification on as workflow data, with the raw body available', async () => {
		const body = { messages: [{ id: 'wamid.1' }] };
		const { result, response } = await runWebhook({
			node: new HookNode(),
			parameters: {},
			credentials: credentials(),
			staticData: { hookId: 'hook-1', secret: 'shared-secret' },
			request: { headers: { 'X-Hook-Secret': 'shared-secret' }, body },
		});

		expect(result.workflowData).toEqual([[{ json: { ...body, rawLength: JSON.stringify(body).length } }]]);
		expect(response.written).toBe(false);
	});

	it('records what the node answers itself when it rejects a request', async () => {
		const { result, response } = await runWebhook({
			node: new HookNode(),
			parameters: {},
			staticData: { secret: 'shared-secret' },
			request: { headers: { 'x-hook-secret': 'forged' }, rawBody: Buffer.from('{"messages":[]}') },
		});

		expect(result).toEqual({ noWebhookResponse: true });
		expect(response).toMatchObject({ written: true, statusCode: 401, body: 'Unknown sender' });
	});
});

describe('runLoadOptions and runCredentialTest', () => {
	it('calls a loadOptions method with credentials and the current parameters', async () => {
		const options = await runLoadOptions({
			node: new HookNode(),
			parameters: { language: 'en' },
			credentials: credentials(),
			method: 'getTemplates',
		});

		expect(options).toEqual([
			{ name: 'welcome', value: 'welcome' },
			{ name: 'order_update', value: 'order_update' },
		]);
		expect(received[0].headers.apikey).toBe(API_KEY);
	});

	it('runs the credential test function with the credential data', async () => {
		const ok = await runCredentialTest({
			node: new HookNode(),
			testName: 'gatewayTest',
			credentials: { apiKey: API_KEY, baseUrl },
		});
		const refused = await runCredentialTest({
			node: new HookNode(),
			testName: 'gatewayTest',
			credentials: { apiKey: 'wrong', baseUrl },
		});

		expect(ok).toEqual({ status: 'OK', message: 'Connection successful' });
		expect(refused).toEqual({ status: 'Error', message: 'Gateway refused the key (401)' });
	});
});

// ---- helpers ----------------------------------------------------------------------------------------------------

function sha256(bytes: Buffer) {
	return createHash('sha256').update(bytes).digest('hex');
}

