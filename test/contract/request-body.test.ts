/**
 * Contract: n8n's request helper passes the package's Blob-like bodies (nodes/gateway/blobBody.ts: files, media
 * forms, person-file parts) on to the gateway byte for byte, streamed, with the length and type they announce. The
 * package relies on three behaviours of n8n-core and its axios that no n8n document promises, each named by a test
 * here, so that the day an n8n release changes one of them this file fails rather than a user's upload:
 *
 * 1. n8n-core hands a body object to axios only when n8n-workflow's `isObjectEmpty` says it is not empty (a real
 *    `Blob`, without own enumerable properties, is dropped: the request would go out without its body);
 * 2. axios takes an object whose `Symbol.toStringTag` is `Blob` as a Blob: Content-Length from `size`, Content-Type
 *    from `type`, the bytes from `stream()`;
 * 3. axios sends those bytes as `stream()` gives them, without gathering the whole body first.
 *
 * And one behaviour of the request path itself: 4. `httpRequestWithAuthentication` aborts the request when its
 * context's `getExecutionCancelSignal()` aborts (n8n-core sets it as the request's signal, replacing the request's
 * own), which is how an attempt's deadline and the execution's Stop reach it (nodes/gateway/attempt.ts).
 *
 * Through the real ExecuteContext's `httpRequestWithAuthentication` (the harness runs n8n-core 2.41.1) to a local
 * server that records what arrives.
 */
import { createHash } from 'node:crypto';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { isObjectEmpty, NodeConnectionTypes } from 'n8n-workflow';

import { FileBody } from '../../nodes/gateway/blobBody';
import { createMediaUploadBody } from '../../nodes/gateway/blobBody';
import { gatewayRequest } from '../../nodes/gateway/transport';
import { runNode } from '../harness';

interface Arrival {
	headers: IncomingMessage['headers'];
	sha256: string;
	length: number;
	/** When the first body bytes arrived. */
	firstBytesAt: number;
}

let server: Server;
let baseUrl: string;
const arrivals: Arrival[] = [];
/** Called when the server gets the first bytes of a body. */
let onFirstBytes: () => void = () => undefined;

beforeAll(async () => {
	server = createServer((req, res) => {
		if (req.url?.startsWith('/hang')) return; // never answers
		const hash = createHash('sha256');
		let length = 0;
		let firstBytesAt = 0;
		req.on('data', (chunk: Buffer) => {
			if (length === 0) {
				firstBytesAt = Date.now();
				onFirstBytes();
			}
			hash.update(chunk);
			length += chunk.length;
		});
		req.on('end', () => {
			arrivals.push({ headers: req.headers, sha256: hash.digest('hex'), length, firstBytesAt });
			res.writeHead(200, { 'content-type': 'application/json' });
			res.end(JSON.stringify({ id: '1' }));
		});
	});
	server.listen(0, '127.0.0.1');
	await new Promise((resolve) => server.once('listening', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => {
	// The /hang request's socket: its server side stopped reading, so it never sees the client close it.
	server.closeAllConnections();
	await new Promise((resolve) => server.close(resolve));
});
beforeEach(() => {
	arrivals.length = 0;
	onFirstBytes = () => undefined;
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const FILE = Buffer.from(Array.from({ length: 300_000 }, (_, index) => (index * 7) % 251));

/** The body a test sends, built inside the node run. */
let makeBody: () => FileBody | ReturnType<typeof createMediaUploadBody> = () => new FileBody(FILE, FILE.length, 'text/csv');

class BodyProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Body Probe',
		name: 'bodyProbe',
		group: ['output'],
		version: 1,
		description: 'Sends one Blob-like body to the gateway',
		defaults: { name: 'Body Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true }],
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const timeoutMs = (await this.getCredentials('messagingGatewayApi')).baseUrl?.toString().endsWith('/hang') ? 400 : 10_000;
		const response = await gatewayRequest.call(this, { endpoint: 'personUpload', method: 'POST', body: makeBody(), timeoutMs });
		return [[{ json: response.body }]];
	}
}

const send = () =>
	runNode({ node: new BodyProbe(), parameters: {}, credentials: { messagingGatewayApi: { apiKey: 'contract-key', baseUrl } } });

describe("n8n's request helper and the package's Blob-like bodies", () => {
	it('1. n8n-workflow isObjectEmpty: a body is not empty (n8n-core passes it on); a real Blob would be', () => {
		expect(isObjectEmpty(new FileBody(FILE, FILE.length, 'text/csv'))).toBe(false);
		expect(isObjectEmpty(createMediaUploadBody({ data: FILE, fileName: 'f.pdf', mimeType: 'application/pdf', size: FILE.length }))).toBe(false);
		// Why the body is not a platform Blob: n8n-core would drop it.
		expect(isObjectEmpty(new Blob([FILE]))).toBe(true);
	});

	it('2. axios reads it as a Blob: the bytes arrive as they are, with Content-Length = size and Content-Type = type', async () => {
		makeBody = () => new FileBody(FILE, FILE.length, 'text/csv');
		expect(Object.prototype.toString.call(makeBody())).toBe('[object Blob]');
		await send();
		expect(arrivals).toHaveLength(1);
		expect(arrivals[0].length).toBe(FILE.length);
		expect(arrivals[0].sha256).toBe(sha256(FILE));
		expect(arrivals[0].headers['content-length']).toBe(String(FILE.length));
		expect(arrivals[0].headers['content-type']).toBe('text/csv');
		expect(arrivals[0].headers.apikey).toBe('contract-key');
	});

	it('2. the media form, a multipart body of the package, arrives byte for byte as it reads itself', async () => {
		const form = () => createMediaUploadBody({ data: FILE, fileName: 'report.pdf', mimeType: 'application/pdf', size: FILE.length });
		const expected: Uint8Array[] = [];
		const reference = form();
		for await (const chunk of reference.stream()) expected.push(chunk);
		makeBody = form;
		await send();
		// Each form has its own boundary: the bytes expected are the reference form's with the sent form's boundary.
		const boundaryOf = (type: string) => /boundary=(\S+)/.exec(type)![1];
		const sentType = String(arrivals[0].headers['content-type']);
		const sentBytes = Buffer.from(
			Buffer.concat(expected).toString('latin1').split(boundaryOf(reference.type)).join(boundaryOf(sentType)),
			'latin1',
		);
		expect(arrivals[0].sha256).toBe(sha256(sentBytes));
		expect(arrivals[0].headers['content-length']).toBe(String(reference.size));
		expect(sentType).toBe(reference.type.replace(boundaryOf(reference.type), boundaryOf(sentType)));
	});

	it('3. axios streams it: the first bytes reach the server before the body has given its last chunk', async () => {
		let firstBytesArrived: () => void = () => undefined;
		const arrived = new Promise<void>((resolve) => (firstBytesArrived = resolve));
		onFirstBytes = () => firstBytesArrived();
		let lastChunkGivenAt = 0;
		async function* slowly(): AsyncGenerator<Uint8Array> {
			yield FILE.subarray(0, 100_000);
			// The rest only once the server has the first bytes (or after 5 s, which fails the test); the 5 s timer is
			// cleared, so that it does not keep Jest's process (or worker) alive after the file.
			let timer: NodeJS.Timeout | undefined;
			await Promise.race([arrived, new Promise((resolve) => (timer = setTimeout(resolve, 5000)))]);
			clearTimeout(timer);
			yield FILE.subarray(100_000);
			lastChunkGivenAt = Date.now();
		}
		makeBody = () => new FileBody(slowly(), FILE.length, 'text/csv');
		await send();
		expect(arrivals[0].sha256).toBe(sha256(FILE));
		expect(arrivals[0].firstBytesAt).toBeGreaterThan(0);
		expect(arrivals[0].firstBytesAt).toBeLessThanOrEqual(lastChunkGivenAt);
		expect(lastChunkGivenAt - arrivals[0].firstBytesAt).toBeLessThan(4000);
	});
});

describe("the attempt's signal reaches n8n's httpRequestWithAuthentication", () => {
	it('4. a request to a server that never answers ends at its deadline, through the context cancel signal', async () => {
		makeBody = () => new FileBody(FILE, FILE.length, 'text/csv');
		const started = Date.now();
		let message = '';
		try {
			await runNode({
				node: new BodyProbe(),
				parameters: {},
				credentials: { messagingGatewayApi: { apiKey: 'contract-key', baseUrl: `${baseUrl}/hang` } },
			});
		} catch (error) {
			message = (error as Error).message;
		}
		const elapsed = Date.now() - started;
		expect(message).toMatch(/^The upload stalled: no byte moved for 0.4 s/);
		expect(elapsed).toBeGreaterThanOrEqual(350);
		expect(elapsed).toBeLessThan(3000);
	});
});
