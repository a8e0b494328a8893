/** Routing, authentication, version and content-type checks that every endpoint shares. */
import { CHANNEL, ENDPOINTS, type EndpointName } from '../../nodes/gateway/spec';
import { call, rawRequest, sendMessage, VALID_MESSAGES } from './helpers';
import { startSandbox, type Sandbox } from './server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const metaError = expect.objectContaining({
	error: expect.objectContaining({ message: expect.any(String), type: expect.any(String), code: expect.any(Number) }),
});

describe('routing', () => {
	it('answers 404 JSON on a path that is not an endpoint, and on a wrong case of one', async () => {
		for (const path of ['/api/Message', '/api/messages', '/api/Messages/extra', '/']) {
			const result = await call(sandbox, 'POST', path, { endpoint: 'messages', body: VALID_MESSAGES.text });
			expect(result.status).toBe(404);
			expect(result.json).toEqual(metaError);
		}
	});

	it('answers 405 with Allow on a known path with a wrong method', async () => {
		const result = await call(sandbox, 'GET', ENDPOINTS.messages.path, { endpoint: 'messages' });
		expect(result.status).toBe(405);
		expect(result.headers.get('allow')).toBe('POST');
		expect(result.json).toEqual(metaError);
	});

	it('creates webhooks only on the path with the trailing slash', async () => {
		const body = {
			phone: '5511900001111',
			meta_version: 'LATEST',
			types: ['messages'],
			headers: {},
			endpoint: 'https://example.com/hook',
		};
		const withoutSlash = await call(sandbox, 'POST', ENDPOINTS.webhooks.path, { endpoint: 'webhooks', body });
		expect(withoutSlash.status).toBe(405);
		expect(sandbox.state.webhooks.size).toBe(0);
		const withSlash = await call(sandbox, 'POST', `${ENDPOINTS.webhooks.path}/`, { endpoint: 'webhooks', body });
		expect(withSlash.status).toBe(201);
	});
});

describe('API key', () => {
	// The gateway's own refusal, before the network: 401 with a message and no network code (docs/gateway.md,
	// Decisions). Meta's 190 ("access token expired") would send a user with a mistyped key after the wrong problem.
	it('refuses a request without the apikey header with 401 JSON that names the header, without a network code', async () => {
		const result = await sendMessage(sandbox, VALID_MESSAGES.text, { apikey: null });
		expect(result.status).toBe(401);
		expect(result.json).toEqual({ message: expect.stringMatching(/apikey/i) });
	});

	it('refuses another key with 401 JSON, without a network code', async () => {
		const result = await sendMessage(sandbox, VALID_MESSAGES.text, { apikey: `${sandbox.apiKey}x` });
		expect(result.status).toBe(401);
		expect(result.json).toEqual({ message: 'Invalid API key: the apikey header does not match any caller' });
		expect(JSON.stringify(result.json)).not.toMatch(/"code"|190|OAuthException/);
	});

	it('refuses a wrong key on every endpoint the same way', async () => {
		const reads: Array<[EndpointName, string]> = [
			['profiles', ENDPOINTS.profiles.path],
			['webhooks', ENDPOINTS.webhooks.path],
			['templates', `${ENDPOINTS.templates.path}/1`],
		];
		for (const [endpoint, path] of reads) {
			const result = await call(sandbox, 'GET', path, { endpoint, headers: { apikey: 'not-a-key' } });
			expect([path, result.status, result.json]).toEqual([path, 401, { message: expect.stringMatching(/^Invalid API key/) }]);
		}
	});

	it('reads the header name case-insensitively (apiKey is the same header)', async () => {
		const result = await rawRequest(`${sandbox.url}${ENDPOINTS.messages.path}`, {
			method: 'POST',
			headers: { apiKey: sandbox.apiKey, Version: ENDPOINTS.messages.version, 'Content-Type': 'application/json' },
			body: JSON.stringify(VALID_MESSAGES.text),
		});
		expect(result.status).toBe(200);
	});

	it('accepts the extra keys, each with its own webhooks', async () => {
		const other = await startSandbox({ extraApiKeys: ['second-key'] });
		try {
			const body = { phone: '1', meta_version: 'v16', types: ['messages'], headers: {}, endpoint: 'https://example.com/a' };
			const created = await call(other, 'POST', '/api/Webhooks/', { endpoint: 'webhooks', body, headers: { apikey: 'second-key' } });
			expect(created.status).toBe(201);
			const listedBySecond = await call(other, 'GET', '/api/Webhooks', { endpoint: 'webhooks', headers: { apikey: 'second-key' } });
			const listedByFirst = await call(other, 'GET', '/api/Webhooks', { endpoint: 'webhooks' });
			expect(listedBySecond.json.webhooks).toHaveLength(1);
			expect(listedByFirst.json.webhooks).toHaveLength(0);
		} finally {
			await other.close();
		}
	});
});

describe('version header', () => {
	it.each([
		['missing', null],
		['the declared default 5 instead of 5.0', '5'],
		['the version of another endpoint', '4.0'],
	])('refuses a message with the version %s', async (_case, version) => {
		const result = await sendMessage(sandbox, VALID_MESSAGES.text, { version });
		expect(result.status).toBe(400);
		expect(result.json.error.message).toMatch(/version/);
		expect(result.json.error.message).toContain('5.0');
	});

	it('requires each endpoint its own version', async () => {
		expect((await call(sandbox, 'GET', ENDPOINTS.profiles.path, { headers: { version: '5.0' } })).status).toBe(400);
		expect((await call(sandbox, 'GET', ENDPOINTS.profiles.path, { endpoint: 'profiles' })).status).toBe(200);
		expect((await call(sandbox, 'GET', ENDPOINTS.webhooks.path, { headers: { version: '5.0' } })).status).toBe(400);
	});

	it('takes no version on the person upload', async () => {
		const result = await rawRequest(`${sandbox.url}${ENDPOINTS.personUpload.path}`, {
			method: 'POST',
			headers: { apiKey: sandbox.apiKey, 'Content-Type': 'application/csv' },
			body: 'FirstName;Email\nAna;ana@example.com\n',
		});
		expect(result.status).toBe(200);
	});
});

describe('JSON bodies', () => {
	it('needs Content-Type application/json (415 otherwise)', async () => {
		const result = await sendMessage(sandbox, VALID_MESSAGES.text, { 'content-type': 'text/plain' });
		expect(result.status).toBe(415);
		expect(result.json).toEqual(metaError);
	});

	it('accepts a charset parameter on the content type', async () => {
		expect((await sendMessage(sandbox, VALID_MESSAGES.text, { 'content-type': 'application/json; charset=utf-8' })).status).toBe(200);
	});

	it('refuses a body that does not parse, with 400', async () => {
		const result = await call(sandbox, 'POST', ENDPOINTS.messages.path, { endpoint: 'messages', rawBody: '{"messaging_product":' });
		expect(result.status).toBe(400);
		expect(result.json.error.message).toMatch(/not valid JSON/);
	});

	it('refuses query parameters an endpoint does not take', async () => {
		const result = await call(sandbox, 'POST', `${ENDPOINTS.messages.path}?phoneId=1`, { endpoint: 'messages', body: VALID_MESSAGES.text });
		expect(result.status).toBe(400);
		expect(result.json.error.message).toContain('phoneId');
	});

	it('refuses a body on an endpoint that takes none', async () => {
		const result = await rawRequest(`${sandbox.url}${ENDPOINTS.profiles.path}`, {
			method: 'GET',
			headers: { apikey: sandbox.apiKey, version: ENDPOINTS.profiles.version, 'content-type': 'application/json' },
			body: '{}',
		});
		expect(result.status).toBe(400);
		expect(JSON.parse(result.text).error.message).toMatch(/takes no body/);
	});
});

describe('profiles', () => {
	it('answers the profile of spec 2.6', async () => {
		const result = await call(sandbox, 'GET', ENDPOINTS.profiles.path, { endpoint: 'profiles' });
		expect(result.status).toBe(200);
		expect(result.json).toEqual({
			data: [
				{
					messaging_product: CHANNEL,
					address: expect.any(String),
					description: expect.any(String),
					vertical: 'OTHER',
					about: expect.any(String),
					email: expect.any(String),
					profile_picture_url: expect.stringMatching(/^https:\/\//),
					websites: [expect.stringMatching(/^https:\/\//)],
				},
			],
		});
	});
});

describe('recorded requests', () => {
	it('records every request in order with route, lower-case headers, parsed body and the answer', async () => {
		await sendMessage(sandbox, VALID_MESSAGES.text, { 'X-Trace': 'abc' });
		await call(sandbox, 'GET', '/nowhere', {});
		expect(sandbox.requests).toHaveLength(2);
		const [first, second] = sandbox.requests;
		expect(first).toMatchObject({
			route: 'messages',
			method: 'POST',
			path: ENDPOINTS.messages.path,
			body: VALID_MESSAGES.text,
			status: 200,
			headers: expect.objectContaining({ apikey: sandbox.apiKey, 'x-trace': 'abc', version: '5.0' }),
		});
		expect((first.responseBody as { messages: unknown[] }).messages).toHaveLength(1);
		expect(second).toMatchObject({ route: null, path: '/nowhere', status: 404 });
	});

	it('serves them, the state and a reset on the control API without a key', async () => {
		await sendMessage(sandbox, VALID_MESSAGES.text);
		const requests = (await (await fetch(`${sandbox.url}/__sandbox/requests`)).json()) as Array<{ route: string }>;
		expect(requests).toHaveLength(1);
		expect(requests[0].route).toBe('messages');
		const info = await (await fetch(`${sandbox.url}/__sandbox/info`)).json();
		expect(info).toEqual({ url: sandbox.url, apiKey: sandbox.apiKey, phoneId: sandbox.phoneId });
		expect((await fetch(`${sandbox.url}/__sandbox/reset`, { method: 'POST' })).status).toBe(200);
		expect(sandbox.requests).toHaveLength(0);
		const state = await (await fetch(`${sandbox.url}/__sandbox/state`)).json();
		expect(state).toEqual({ templates: [], webhooks: [], media: [], personFiles: [] });
	});
});
