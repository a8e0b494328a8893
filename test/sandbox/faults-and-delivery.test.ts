/** Fault injection (the next n requests of a route fail after their body was read) and notification delivery. */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { ENDPOINTS } from '../../nodes/gateway/spec';
import { call, NOTIFICATIONS, sendMessage, VALID_MESSAGES } from './helpers';
import { startSandbox, type Sandbox } from './server';

const { incomingText, envelope, templateStatus } = NOTIFICATIONS;

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

describe('fault injection', () => {
	it("'500' answers a JSON server error, then the route works again", async () => {
		sandbox.failNext('messages', 2, '500');
		for (let i = 0; i < 2; i++) {
			const failed = await sendMessage(sandbox, VALID_MESSAGES.text);
			expect(failed.status).toBe(500);
			expect(failed.json.error.message).toEqual(expect.any(String));
		}
		expect((await sendMessage(sandbox, VALID_MESSAGES.text)).status).toBe(200);
		// The failed requests were received whole: the recorded body is the message.
		expect(sandbox.requests.map((r) => [r.status, r.body])).toEqual([
			[500, VALID_MESSAGES.text],
			[500, VALID_MESSAGES.text],
			[200, VALID_MESSAGES.text],
		]);
	});

	it("'429' answers with Retry-After in seconds and a JSON error", async () => {
		sandbox.failNext('messages', 1, '429', { retryAfterSeconds: 3 });
		const failed = await sendMessage(sandbox, VALID_MESSAGES.text);
		expect(failed.status).toBe(429);
		expect(failed.headers.get('retry-after')).toBe('3');
		expect(failed.json.error.code).toEqual(expect.any(Number));
		sandbox.failNext('messages', 1, '429');
		expect((await sendMessage(sandbox, VALID_MESSAGES.text)).headers.get('retry-after')).toBe('1');
	});

	it("'key-refused' answers 401 as a refused key always is: the gateway's message, no network code", async () => {
		sandbox.failNext('messages', 1, 'key-refused');
		const failed = await sendMessage(sandbox, VALID_MESSAGES.text);
		expect(failed.status).toBe(401);
		expect(failed.json).toEqual({ message: 'Invalid API key: the key was revoked' });
		expect((await sendMessage(sandbox, VALID_MESSAGES.text)).status).toBe(200);
	});

	it("'drop' closes the connection without an answer, after reading the body", async () => {
		sandbox.failNext('messages', 1, 'drop');
		await expect(sendMessage(sandbox, VALID_MESSAGES.text)).rejects.toThrow();
		expect(sandbox.requests[0]).toMatchObject({ route: 'messages', status: 0, body: VALID_MESSAGES.text });
		expect((await sendMessage(sandbox, VALID_MESSAGES.text)).status).toBe(200);
	});

	it("'non-json' answers 502 with an HTML body", async () => {
		sandbox.failNext('profiles', 1, 'non-json');
		const failed = await call(sandbox, 'GET', ENDPOINTS.profiles.path, { endpoint: 'profiles' });
		expect(failed.status).toBe(502);
		expect(failed.headers.get('content-type')).toMatch(/text\/html/);
		expect(failed.json).toBeUndefined();
	});

	it('fails only the named route, and a failed creation changes no state', async () => {
		sandbox.failNext('webhooks.create', 1, '500');
		expect((await call(sandbox, 'GET', ENDPOINTS.webhooks.path, { endpoint: 'webhooks' })).status).toBe(200);
		const body = { phone: '1', meta_version: 'LATEST', types: ['messages'], headers: {}, endpoint: 'https://example.com/h' };
		expect((await call(sandbox, 'POST', `${ENDPOINTS.webhooks.path}/`, { endpoint: 'webhooks', body })).status).toBe(500);
		expect(sandbox.state.webhooks.size).toBe(0);
	});

	it('is set through the control API, and reset clears pending failures', async () => {
		const set = await fetch(`${sandbox.url}/__sandbox/fail`, {
			method: 'POST',
			body: JSON.stringify({ route: 'messages', count: 1, mode: '500' }),
		});
		expect(set.status).toBe(200);
		expect((await sendMessage(sandbox, VALID_MESSAGES.text)).status).toBe(500);
		const refused = await fetch(`${sandbox.url}/__sandbox/fail`, { method: 'POST', body: JSON.stringify({ route: 'nope', count: 1, mode: '500' }) });
		expect(refused.status).toBe(400);
		sandbox.failNext('messages', 1, '500');
		sandbox.reset();
		expect((await sendMessage(sandbox, VALID_MESSAGES.text)).status).toBe(200);
	});
});

interface Received {
	path: string;
	headers: http.IncomingHttpHeaders;
	body: unknown;
}

/** A local receiver standing for an n8n webhook: records what arrives and answers 200 (or the given status). */
async function startReceiver(status = 200): Promise<{ url: string; received: Received[]; close(): Promise<void> }> {
	const received: Received[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			received.push({ path: req.url ?? '', headers: req.headers, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) });
			res.writeHead(status, { 'content-type': 'application/json' }).end('{"received":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	return { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
}

async function registerWebhook(endpoint: string, types: string[], headers: Record<string, string>): Promise<string> {
	const body = { phone: '5511900001111', meta_version: 'LATEST', types, headers, endpoint };
	const result = await call(sandbox, 'POST', `${ENDPOINTS.webhooks.path}/`, { endpoint: 'webhooks', body });
	expect(result.status).toBe(201);
	return result.json.id;
}

describe('delivery', () => {
	let receiver: Awaited<ReturnType<typeof startReceiver>>;
	beforeEach(async () => {
		receiver = await startReceiver();
	});
	afterEach(() => receiver.close());

	it('POSTs a message notification to each subscribed webhook with its custom headers', async () => {
		const messagesHook = await registerWebhook(`${receiver.url}/messages`, ['messages'], { 'X-Webhook-Secret': 's3cr3t' });
		await registerWebhook(`${receiver.url}/templates`, ['message_template_status_update'], { 'x-other': '1' });
		const results = await sandbox.deliver(incomingText);
		expect(results).toEqual([{ webhookId: messagesHook, endpoint: `${receiver.url}/messages`, status: 200, body: '{"received":true}' }]);
		expect(receiver.received).toHaveLength(1);
		expect(receiver.received[0]).toMatchObject({
			path: '/messages',
			headers: expect.objectContaining({ 'x-webhook-secret': 's3cr3t', 'content-type': 'application/json' }),
			body: incomingText,
		});
	});

	it('routes a template status notification to message_template_status_update subscribers', async () => {
		await registerWebhook(`${receiver.url}/messages`, ['messages'], {});
		await registerWebhook(`${receiver.url}/templates`, ['message_template_status_update'], {});
		const results = await sandbox.deliver(templateStatus);
		expect(results.map((r) => r.endpoint)).toEqual([`${receiver.url}/templates`]);
		expect(receiver.received[0].body).toEqual(templateStatus);
	});

	it('routes a Meta envelope by entry[].changes[].field and delivers it whole', async () => {
		await registerWebhook(`${receiver.url}/messages`, ['messages'], {});
		const results = await sandbox.deliver(envelope);
		expect(results).toHaveLength(1);
		expect(receiver.received[0].body).toEqual(envelope);
	});

	it('can leave out the custom headers (a forged notification) or add others', async () => {
		await registerWebhook(`${receiver.url}/messages`, ['messages'], { 'x-webhook-secret': 's3cr3t' });
		await sandbox.deliver(incomingText, { omitCustomHeaders: true, extraHeaders: { 'x-webhook-secret': 'guess' } });
		expect(receiver.received[0].headers['x-webhook-secret']).toBe('guess');
	});

	it("reports the receiver's status, and 0 for an unreachable endpoint", async () => {
		const refusing = await startReceiver(403);
		try {
			await registerWebhook(`${refusing.url}/hook`, ['messages'], {});
			await registerWebhook('http://127.0.0.1:9/unreachable', ['messages'], {});
			const results = await sandbox.deliver(incomingText);
			expect(results.map((r) => r.status).sort()).toEqual([0, 403]);
		} finally {
			await refusing.close();
		}
	});

	it('delivers through the control API and answers the per-webhook results', async () => {
		await registerWebhook(`${receiver.url}/messages`, ['messages'], { 'x-webhook-secret': 's3cr3t' });
		const response = await fetch(`${sandbox.url}/__sandbox/deliver`, {
			method: 'POST',
			body: JSON.stringify({ notification: incomingText }),
		});
		expect(response.status).toBe(200);
		expect(await response.json()).toEqual([expect.objectContaining({ status: 200, endpoint: `${receiver.url}/messages` })]);
		expect(receiver.received[0].headers['x-webhook-secret']).toBe('s3cr3t');
	});

	it('refuses a notification whose kind cannot be told', async () => {
		await expect(sandbox.deliver({ hello: 'world' })).rejects.toThrow(/subscription field/);
	});
});
