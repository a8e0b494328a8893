/**
 * Webhook > Create and List, through the real node against the sandbox gateway.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { jsonItems, outputJson, rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const run = (parameters: INodeParameters, credentials: Record<string, string> = {}, items: IDataObject[] = [{}]) =>
	runGateway(gateway.sandbox, parameters, { credentials, items: jsonItems(items) });
const json = outputJson;

const failure = rejectionOf;

const ENDPOINT = 'https://n8n.example.com/webhook/messages';
const create = (parameters: INodeParameters = {}) =>
	({ resource: 'webhook', operation: 'create', endpoint: ENDPOINT, ...parameters }) as INodeParameters;

describe('Webhook > Create', () => {
	it('sends POST /api/Webhooks/ (trailing slash, version 4.0) with the defaults and outputs the created webhook', async () => {
		const result = await run(create());

		expect(gateway.sandbox.requests).toHaveLength(1);
		const [request] = gateway.sandbox.requests;
		expect([request.method, request.path, request.headers.version, request.headers.apikey]).toEqual([
			'POST',
			'/api/Webhooks/',
			'4.0',
			gateway.sandbox.apiKey,
		]);
		expect(request.query).toEqual({});
		expect(request.body).toEqual({
			phone: gateway.sandbox.phoneId,
			meta_version: 'LATEST',
			types: ['messages'],
			headers: {},
			endpoint: ENDPOINT,
		});
		expect(request.status).toBe(201);
		const [webhook] = json(result);
		expect(webhook).toEqual({
			success: true,
			id: expect.stringMatching(/^[0-9a-f-]{36}$/),
			phone: gateway.sandbox.phoneId,
			phone_id: gateway.sandbox.phoneId,
			// The gateway answers LASTEST; the node outputs the spelling requests use.
			meta_version: 'LATEST',
			types: ['messages'],
			endpoint: ENDPOINT,
			create_date: expect.any(String),
			update_date: expect.any(String),
			headers: {},
		});
		expect((request.responseBody as IDataObject).meta_version).toBe('LASTEST');
	});

	it('sends the chosen types, version, custom headers, phone and phone-id query parameter', async () => {
		const result = await run(
			create({
				types: ['messages', 'message_template_status_update'],
				metaVersion: 'v16',
				customHeaders: { header: [{ name: 'X-Webhook-Secret', value: 's3cr3t' }, { name: 'X-Source', value: 'n8n' }] },
				phone: '5511999990000',
				options: { phoneId: '777000111' },
			}),
		);

		const [request] = gateway.sandbox.requests;
		expect(request.query).toEqual({ phoneId: '777000111' });
		expect(request.body).toEqual({
			phone: '5511999990000',
			meta_version: 'v16',
			types: ['messages', 'message_template_status_update'],
			headers: { 'X-Webhook-Secret': 's3cr3t', 'X-Source': 'n8n' },
			endpoint: ENDPOINT,
		});
		// The gateway resolves the phone to the account's phone id.
		expect(json(result)[0]).toMatchObject({ phone: '777000111', phone_id: '777000111', meta_version: 'v16' });
	});

	it.each([
		[
			'an http endpoint',
			create({ endpoint: 'http://n8n.example.com/webhook' }),
			{},
			'Endpoint (item 0): "http://n8n.example.com/webhook" is not an https address: the gateway delivers notifications only to servers with a valid TLS certificate (self-signed certificates are not supported)',
		],
		['an endpoint that is not a URL', create({ endpoint: 'n8n.example.com' }), {}, /^Endpoint \(item 0\): "n8n.example.com" is not a URL/],
		['no subscription type', create({ types: [] }), {}, 'Subscription Types (item 0): is empty: choose at least one, such as Messages'],
		[
			'a header given twice',
			create({ customHeaders: { header: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }] } }),
			{},
			'Custom Headers (item 0): "x-a" is given twice',
		],
		['a header without name', create({ customHeaders: { header: [{ name: '', value: '1' }] } }), {}, 'Custom Headers (item 0): header 1 has no name'],
		['no phone anywhere', create(), { phoneId: '' }, 'Phone (item 0): is empty and the credential has no Phone ID'],
		['an unknown meta version', create({ metaVersion: '={{ "v99" }}' }), {}, 'Meta Version (item 0): "v99" is not one of v11, v16, LATEST'],
	])('refuses %s with a clear error and sends nothing', async (_case, parameters, credentialOverrides, message) => {
		const error = await failure(run(parameters, credentialOverrides));

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
		expect(error.context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});

describe('Webhook > List', () => {
	it('sends GET /api/Webhooks and outputs one item per webhook, LASTEST spelled LATEST', async () => {
		await run(create());
		await run(create({ endpoint: 'https://other.example/hook', metaVersion: 'v11' }));
		gateway.sandbox.requests.length = 0;

		const result = await run({ resource: 'webhook', operation: 'list' });

		expect(gateway.sandbox.requests.map((r) => [r.method, r.path, r.headers.version, r.body])).toEqual([
			['GET', '/api/Webhooks', '4.0', null],
		]);
		const webhooks = json(result);
		expect(webhooks.map((webhook) => [webhook.endpoint, webhook.meta_version])).toEqual([
			[ENDPOINT, 'LATEST'],
			['https://other.example/hook', 'v11'],
		]);
		expect(webhooks[0]).toEqual({
			id: expect.any(String),
			phone: gateway.sandbox.phoneId,
			phone_id: gateway.sandbox.phoneId,
			meta_version: 'LATEST',
			endpoint: ENDPOINT,
			create_date: expect.any(String),
			update_date: expect.any(String),
			headers: {},
		});
		expect(result.output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 0 }]);
	});

	it('outputs no item when there is no webhook', async () => {
		expect(json(await run({ resource: 'webhook', operation: 'list' }))).toEqual([]);
	});

	it('turns a gateway failure into a NodeApiError', async () => {
		gateway.sandbox.failNext('webhooks.list', 1, '500');
		const error = await failure(run({ resource: 'webhook', operation: 'list' }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).httpCode).toBe('500');
	});
});
