/**
 * Media Source: URL when the file host misbehaves: the download is a request like the gateway's (the node's Timeout
 * and Stop apply), its errors name the item, the field and the host and nothing more of the URL, and a download that
 * fails leaves the gateway nothing complete. A local file host plays each fault; the sandbox gateway takes the upload.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

import { mediaFile } from '../fixtures/media';
import { getLogs } from '../harness';
import { outputJson, rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const JPEG = mediaFile('jpeg', 40_000);
const PDF_2MB = mediaFile('pdf', 2_000_000);
const PASSWORD = 'Pa55-word-7g3k';
const TOKEN = 'tok-9d8f7e6a5b';

let server: Server;
let host: string;
/** Requests the file host got, with the Authorization header each carried. */
const received: Array<{ path: string; authorization?: string }> = [];

beforeAll(async () => {
	server = createServer((req, res) => {
		received.push({ path: req.url ?? '', authorization: req.headers.authorization });
		const path = (req.url ?? '').split('?')[0];
		switch (path) {
			case '/photo.jpg':
				res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': JPEG.length });
				return void res.end(JPEG);
			case '/silent.jpg':
				// The headers, then nothing: the connection stays open.
				res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': JPEG.length });
				return void res.flushHeaders();
			case '/stalls-after-start.jpg':
				res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': JPEG.length });
				return void res.write(JPEG.subarray(0, 4096));
			case '/breaks-at-60.pdf': {
				// 60 % of the file, in steps so that the upload is under way, then the connection is lost.
				res.writeHead(200, { 'content-type': 'application/pdf', 'content-length': PDF_2MB.length });
				const end = Math.floor(PDF_2MB.length * 0.6);
				let at = 0;
				const step = () => {
					if (res.destroyed) return;
					if (at >= end) return void setTimeout(() => res.destroy(), 200);
					res.write(PDF_2MB.subarray(at, Math.min(end, at + 100_000)));
					at += 100_000;
					setTimeout(step, 20);
				};
				return step();
			}
			case '/redirect-loop':
				res.writeHead(302, { location: '/redirect-loop' });
				return void res.end();
			default:
				res.writeHead(404, { 'content-type': 'text/plain' });
				return void res.end('no such file');
		}
	});
	server.listen(0, '127.0.0.1');
	await new Promise((resolve) => server.once('listening', resolve));
	host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
	received.length = 0;
});

const sendImage = (url: string, options: { timeout?: number; abortSignal?: AbortSignal; continueOnFail?: boolean; messageType?: string } = {}) =>
	runGateway(
		gateway.sandbox,
		{
			resource: 'message',
			operation: 'send',
			recipientPhoneNumber: '+55 (11) 98888-7777',
			messageType: options.messageType ?? 'image',
			mediaSource: 'url',
			mediaUrl: url,
			...(options.timeout ? { sending: { timeout: options.timeout } } : {}),
		},
		{ abortSignal: options.abortSignal, continueOnFail: options.continueOnFail },
	);

/** A port nothing listens on: a server is started and closed. */
async function closedPort(): Promise<number> {
	const probe = createServer();
	probe.listen(0, '127.0.0.1');
	await new Promise((resolve) => probe.once('listening', resolve));
	const { port } = probe.address() as AddressInfo;
	await new Promise((resolve) => probe.close(resolve));
	return port;
}

/** Everything of an error that n8n shows or stores with the execution. */
function storedTextOf(error: Error & { description?: unknown; messages?: unknown; context?: unknown; cause?: unknown }): string {
	const cause = error.cause as { message?: unknown } | undefined;
	return JSON.stringify({
		message: error.message,
		description: error.description,
		messages: error.messages,
		context: error.context,
		cause: cause?.message,
		stack: error.stack,
	});
}

describe('the node’s Timeout and Stop apply to the download', () => {
	it('a file host that sends its headers and then nothing: the item fails at the Timeout, and nothing is uploaded', async () => {
		const started = Date.now();
		const error = await rejectionOf(sendImage(`http://${host}/silent.jpg`, { timeout: 1 }));
		const elapsed = Date.now() - started;
		expect(error.message).toBe(`Media URL (item 0): the download from ${host} failed: no byte came for 1 s (Timeout option)`);
		expect(error.description).toBe('The download failed; nothing was uploaded or sent for this item.');
		expect(elapsed).toBeGreaterThanOrEqual(950);
		expect(elapsed).toBeLessThan(4000);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('a file host that stalls after the first bytes, the upload begun: the download is blamed, at the Timeout', async () => {
		const started = Date.now();
		const error = await rejectionOf(sendImage(`http://${host}/stalls-after-start.jpg`, { timeout: 1 }));
		expect(error.message).toBe(`Media URL (item 0): the download from ${host} failed: no byte came for 1 s (Timeout option)`);
		expect(error.description).toBe('The download failed; nothing was uploaded or sent for this item.');
		expect(Date.now() - started).toBeLessThan(4000);
		// The upload was cut before its last byte: the gateway never answered it and stored nothing.
		expect(gateway.sandbox.requests.map((request) => [request.route, request.status])).toEqual([['medias', 0]]);
		expect(gateway.sandbox.state.media.size).toBe(0);
	});

	it('Stop during a download ends the run within 100 ms', async () => {
		const execution = new AbortController();
		const run = rejectionOf(sendImage(`http://${host}/silent.jpg`, { abortSignal: execution.signal }));
		await new Promise((resolve) => setTimeout(resolve, 500));
		expect(received.map((request) => request.path)).toEqual(['/silent.jpg']);
		const stoppedAt = Date.now();
		execution.abort();
		const error = await run;
		expect(Date.now() - stoppedAt).toBeLessThan(100);
		expect(error.message).toMatch(/canceled/);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('follows at most 3 redirects', async () => {
		const error = await rejectionOf(sendImage(`http://${host}/redirect-loop`));
		expect(error.message).toBe(`Media URL (item 0): the download from ${host} failed: it redirected more than 3 times`);
		expect(received.length).toBeLessThanOrEqual(4);
		expect(gateway.sandbox.requests).toEqual([]);
	});
});

describe('a download that breaks off during the upload', () => {
	it('at 60 %: the gateway keeps nothing, and the item says the download failed and nothing was uploaded', async () => {
		const error = await rejectionOf(sendImage(`http://${host}/breaks-at-60.pdf`, { messageType: 'document' }));
		expect(error.message).toBe(
			`Media URL (item 0): the download from ${host} failed: the connection was closed before the whole file came`,
		);
		expect(error.description).toBe('The download failed; nothing was uploaded or sent for this item.');
		// The upload had begun (the gateway saw its request), was cut before its last byte, and stored nothing.
		expect(gateway.sandbox.requests.map((request) => [request.route, request.status])).toEqual([['medias', 0]]);
		expect(gateway.sandbox.state.media.size).toBe(0);
	});
});

describe('a URL’s user, password and query stay out of every text', () => {
	const cases = async () => ({
		'404': `http://user:${PASSWORD}@${host}/missing.jpg?token=${TOKEN}`,
		'closed port': `http://user:${PASSWORD}@127.0.0.1:${await closedPort()}/photo.jpg?sig=${TOKEN}`,
		'unknown host': `http://user:${PASSWORD}@no-such-host.invalid/photo.jpg?X-Amz-Signature=${TOKEN}`,
	});

	it('404, closed port, unknown host: not in the message, description, kept messages, context, stack, output or log', async () => {
		const expected = {
			'404': (url: string) => `Media URL (item 0): ${new URL(url).host} answered 404 Not Found, not a file`,
			'closed port': (url: string) =>
				`Media URL (item 0): the download from ${new URL(url).host} failed: the connection was refused (is the file host running, and the port right?)`,
			'unknown host': () => 'Media URL (item 0): the download from no-such-host.invalid failed: the host name was not found',
		};
		for (const [fault, url] of Object.entries(await cases())) {
			const logsBefore = getLogs().length;
			const error = await rejectionOf(sendImage(url));
			expect(error.message).toBe(expected[fault as keyof typeof expected](url));
			const stored = storedTextOf(error);
			expect(stored).not.toContain(PASSWORD);
			expect(stored).not.toContain(TOKEN);
			expect(error.messages).toEqual([]);

			const { output } = await sendImage(url, { continueOnFail: true });
			const shown = JSON.stringify(outputJson({ output } as never));
			expect(shown).toContain('Media URL (item 0)');
			expect(shown).not.toContain(PASSWORD);
			expect(shown).not.toContain(TOKEN);
			expect(getLogs().slice(logsBefore).join('\n')).not.toContain(PASSWORD);
		}
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('the user and password still reach the file host (Basic authentication), and the file is sent', async () => {
		const { output } = await sendImage(`http://user:${PASSWORD}@${host}/photo.jpg`);
		expect(received[0].authorization).toBe(`Basic ${Buffer.from(`user:${PASSWORD}`).toString('base64')}`);
		expect(JSON.stringify(output)).not.toContain(PASSWORD);
		expect(gateway.sandbox.state.media.size).toBe(1);
	});
});

describe('refused and unknown hosts name the item, the field and the host (n8n does not replace the message)', () => {
	it('the second item of a run, refused: item 1, Media URL, the host; the first item was sent', async () => {
		const port = await closedPort();
		const { output } = await runGateway(
			gateway.sandbox,
			{
				resource: 'message',
				operation: 'send',
				recipientPhoneNumber: '+55 (11) 98888-7777',
				messageType: 'image',
				mediaSource: 'url',
				mediaUrl: '={{ $json.url }}',
			},
			{ continueOnFail: true, items: [{ json: { url: `http://${host}/photo.jpg` } }, { json: { url: `http://127.0.0.1:${port}/photo.jpg` } }] },
		);
		const [sent, refused] = output[0].map((item) => item.json as { error?: string; messageId?: string });
		expect(typeof sent.messageId).toBe('string');
		expect(refused.error).toBe(
			`Media URL (item 1): the download from 127.0.0.1:${port} failed: the connection was refused (is the file host running, and the port right?)`,
		);
	});

	it('an unknown host, as the thrown error n8n shows: message and description', async () => {
		const error = await rejectionOf(sendImage('http://no-such-host.invalid/photo.jpg'));
		expect(error.message).toBe('Media URL (item 0): the download from no-such-host.invalid failed: the host name was not found');
		expect(error.description).toBe('The download failed; nothing was uploaded or sent for this item.');
		expect(error.message).not.toMatch(/The connection cannot be established/);
	});
});
