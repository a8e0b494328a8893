/** Webhooks: creation (spec 4.2), listing (4.3), deletion (docs/gateway.md), and refused creations. */
import { ENDPOINTS, PHONE_ID_QUERY_PARAM } from '../../nodes/gateway/spec';
import { call } from './helpers';
import { startSandbox, type Sandbox } from './server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ phoneId: '104857600000001' });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const CREATE_PATH = `${ENDPOINTS.webhooks.path}/`;
const VALID_WEBHOOK = {
	phone: '5511900001111',
	meta_version: 'LATEST',
	types: ['messages'],
	headers: { 'x-webhook-secret': 's3cr3t' },
	endpoint: 'https://n8n.example.com/webhook/abc',
};
const ISO_WITH_OFFSET = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?[+-]\d{2}:\d{2}$/;

function create(body: unknown, query = '') {
	return call(sandbox, 'POST', `${CREATE_PATH}${query}`, { endpoint: 'webhooks', body });
}

describe('creation', () => {
	it('answers 201 with the spec 4.2 fields, LATEST spelt LASTEST and the resolved phone id', async () => {
		const result = await create(VALID_WEBHOOK);
		expect(result.status).toBe(201);
		expect(result.json).toEqual({
			success: true,
			id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
			phone: '104857600000001',
			phone_id: '104857600000001',
			meta_version: 'LASTEST',
			types: ['messages'],
			endpoint: VALID_WEBHOOK.endpoint,
			create_date: expect.stringMatching(ISO_WITH_OFFSET),
			update_date: expect.stringMatching(ISO_WITH_OFFSET),
			headers: VALID_WEBHOOK.headers,
		});
	});

	it('uses the phone id of the query parameter when given', async () => {
		const result = await create({ ...VALID_WEBHOOK, meta_version: 'v16' }, `?${PHONE_ID_QUERY_PARAM}=999000111`);
		expect(result.status).toBe(201);
		expect(result.json).toMatchObject({ phone: '999000111', phone_id: '999000111', meta_version: 'v16' });
	});

	it('accepts plain http to a loopback host, for a local n8n', async () => {
		for (const endpoint of ['http://127.0.0.1:5678/webhook/x', 'http://localhost:5678/webhook/x']) {
			expect((await create({ ...VALID_WEBHOOK, endpoint })).status).toBe(201);
		}
	});
});

/** [case, body change, the offending field the refusal names]. */
const REFUSED: Array<[string, Record<string, unknown>, string]> = [
	['a plain http endpoint on a public host', { endpoint: 'http://n8n.example.com/webhook/abc' }, 'endpoint'],
	['an endpoint that is not a URL', { endpoint: 'n8n.example.com/webhook' }, 'endpoint'],
	['an ftp endpoint', { endpoint: 'ftp://example.com/hook' }, 'endpoint'],
	['no endpoint', { endpoint: undefined }, 'endpoint'],
	['an unknown meta_version', { meta_version: 'v17' }, 'meta_version'],
	['meta_version spelt as the responses spell it', { meta_version: 'LASTEST' }, 'meta_version'],
	['empty types', { types: [] }, 'types'],
	['an unknown subscription field', { types: ['messages', 'message_echoes'] }, 'types[1]'],
	['types as a string', { types: 'messages' }, 'types'],
	['a repeated subscription field', { types: ['messages', 'messages'] }, 'types'],
	['a header value that is a number', { headers: { 'x-secret': 42 } }, 'headers.x-secret'],
	['a header name with a space', { headers: { 'x secret': 'a' } }, 'headers.x secret'],
	['headers missing', { headers: undefined }, 'headers'],
	['no phone', { phone: undefined }, 'phone'],
	['an unknown field', { url: 'https://example.com' }, 'url'],
];

describe('refused creations', () => {
	it.each(REFUSED)('refuses %s with 400 naming the field', async (_case, change, field) => {
		const result = await create({ ...VALID_WEBHOOK, ...change });
		expect(result.status).toBe(400);
		expect(result.json.error.message).toContain(`Invalid parameter: ${field} `);
		expect(sandbox.state.webhooks.size).toBe(0);
	});

	it('explains why an http endpoint is refused', async () => {
		const result = await create({ ...VALID_WEBHOOK, endpoint: 'http://n8n.example.com/webhook/abc' });
		expect(result.json.error.message).toMatch(/https/);
		expect(result.json.error.message).toMatch(/certificate/);
	});

	it('refuses an unknown query parameter', async () => {
		expect((await create(VALID_WEBHOOK, '?phone_id=1')).status).toBe(400);
	});
});

describe('listing and deletion', () => {
	it('lists every webhook of the key without types (spec 4.3)', async () => {
		const first = (await create(VALID_WEBHOOK)).json;
		const second = (await create({ ...VALID_WEBHOOK, meta_version: 'v11', types: ['message_template_status_update'] })).json;
		const result = await call(sandbox, 'GET', ENDPOINTS.webhooks.path, { endpoint: 'webhooks' });
		expect(result.status).toBe(200);
		expect(result.json.success).toBe(true);
		expect(result.json.webhooks).toHaveLength(2);
		const { types: _a, success: _b, ...firstListed } = first;
		expect(result.json.webhooks[0]).toEqual(firstListed);
		expect(result.json.webhooks[1]).toMatchObject({ id: second.id, meta_version: 'v11' });
		for (const webhook of result.json.webhooks) expect(webhook).not.toHaveProperty('types');
	});

	it('deletes a webhook, then answers 404 for it', async () => {
		const { id } = (await create(VALID_WEBHOOK)).json;
		const deleted = await call(sandbox, 'DELETE', `${ENDPOINTS.webhooks.path}/${id}`, { endpoint: 'webhooks' });
		expect(deleted.status).toBe(200);
		expect(deleted.json).toEqual({ success: true });
		expect(sandbox.state.webhooks.size).toBe(0);
		const again = await call(sandbox, 'DELETE', `${ENDPOINTS.webhooks.path}/${id}`, { endpoint: 'webhooks' });
		expect(again.status).toBe(404);
		expect(again.json.error.message).toContain(id);
	});
});
