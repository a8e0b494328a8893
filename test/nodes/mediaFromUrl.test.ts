/**
 * Media Source: URL, on media messages and on Media > Upload: the node downloads the file through n8n's HTTP helper
 * (from a file server in this test), applies the checks of a binary file, and only then uploads it to the sandbox
 * gateway. A refusal leaves the gateway untouched.
 */
import { createHash } from 'node:crypto';
import { createServer, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

import { mediaFile } from '../fixtures/media';
import { rejectionOf, runGateway, useSandbox } from './support';

const MB = 1_000_000;
const gateway = useSandbox();

const JPEG = mediaFile('jpeg', 40_000);
const PDF = mediaFile('pdf', 30_000);
const VIDEO_20MB = mediaFile('mp4', 20 * MB);

interface Served {
	path: string;
	/** Bytes the server managed to write before the client went away. */
	bytesWritten: number;
}
let server: Server;
let baseUrl: string;
const served: Served[] = [];

function drainedOrClosed(res: ServerResponse): Promise<void> {
	return new Promise((resolve) => {
		const done = () => {
			res.off('drain', done);
			res.off('close', done);
			resolve();
		};
		res.on('drain', done);
		res.on('close', done);
	});
}

/** Writes `file` in 64 KB chunks, waiting for the client to take each (a stream, not one buffer). */
async function writeInChunks(res: ServerResponse, file: Buffer, record: Served) {
	for (let offset = 0; offset < file.length && !res.destroyed; offset += 65_536) {
		const chunk = file.subarray(offset, offset + 65_536);
		record.bytesWritten += chunk.length;
		if (!res.write(chunk)) await drainedOrClosed(res);
	}
	res.end();
}

beforeAll(async () => {
	server = createServer((req, res) => {
		const record: Served = { path: req.url ?? '', bytesWritten: 0 };
		served.push(record);
		switch (req.url) {
			case '/photos/harbour%20at%20dawn.jpg':
				res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': JPEG.length });
				return void writeInChunks(res, JPEG, record);
			case '/files/brochure':
				res.writeHead(200, {
					'content-type': 'application/pdf',
					'content-length': PDF.length,
					'content-disposition': 'attachment; filename="brochure-2026.pdf"',
				});
				return void writeInChunks(res, PDF, record);
			case '/videos/big.mp4':
				res.writeHead(200, { 'content-type': 'video/mp4', 'content-length': VIDEO_20MB.length });
				return void writeInChunks(res, VIDEO_20MB, record);
			case '/videos/chunked.mp4':
				// No Content-Length: the size is known only once the stream passes the limit.
				res.writeHead(200, { 'content-type': 'video/mp4' });
				return void writeInChunks(res, VIDEO_20MB, record);
			case '/photos/broken.jpg':
				// The connection is lost after the first bytes of a 40 KB file.
				res.writeHead(200, { 'content-type': 'image/jpeg', 'content-length': JPEG.length });
				res.write(JPEG.subarray(0, 10), () => res.destroy());
				return;
			default:
				res.writeHead(404, { 'content-type': 'text/plain' });
				res.end('no such file');
		}
	});
	server.listen(0, '127.0.0.1');
	await new Promise((resolve) => server.once('listening', resolve));
	baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(async () => await new Promise((resolve) => server.close(resolve)));
beforeEach(() => {
	served.length = 0;
});

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

const sendMedia = (messageType: string, url: string, continueOnFail = false) =>
	runGateway(
		gateway.sandbox,
		{
			resource: 'message',
			operation: 'send',
			recipientPhoneNumber: '+55 (11) 98888-7777',
			messageType,
			mediaSource: 'url',
			mediaUrl: url,
		},
		{ continueOnFail },
	);

describe('Media Source: URL on a media message', () => {
	it('downloads a JPEG, uploads it as an image with the URL\'s file name, and sends the image with the new media id', async () => {
		const result = await sendMedia('image', `${baseUrl}/photos/harbour%20at%20dawn.jpg`);

		const [upload, message] = gateway.sandbox.requests;
		expect(gateway.sandbox.requests.map((request) => `${request.method} ${request.path}`)).toEqual([
			'POST /api/Medias',
			'POST /api/Messages',
		]);
		expect(upload.body).toEqual({
			fields: { messaging_product: 'whatsapp' },
			files: [
				expect.objectContaining({
					field: 'File',
					fileName: 'harbour at dawn.jpg',
					contentType: 'image/jpeg',
					size: JPEG.length,
					sha256: sha256(JPEG),
				}),
			],
		});
		const mediaId = (upload.responseBody as { id: string }).id;
		expect(message.body).toMatchObject({ type: 'image', image: { id: mediaId }, to: '5511988887777' });
		expect(result.output[0]).toHaveLength(1);
	});

	it('sends a document from a URL named by the answer\'s Content-Disposition', async () => {
		await sendMedia('document', `${baseUrl}/files/brochure`);
		const [upload, message] = gateway.sandbox.requests;
		expect(upload.body).toMatchObject({ files: [expect.objectContaining({ fileName: 'brochure-2026.pdf', contentType: 'application/pdf', sha256: sha256(PDF) })] });
		expect(message.body).toMatchObject({ type: 'document', document: { filename: 'brochure-2026.pdf' } });
	});

	it('refuses a PDF URL sent as an image, naming the field and the item; nothing reaches the gateway', async () => {
		const error = await rejectionOf(sendMedia('image', `${baseUrl}/files/brochure`));
		expect(error.message).toBe('Media URL (item 0): Image files must be JPEG or PNG; this file is PDF. Convert it, or send it as a document');
		expect(error.description).toBe('Nothing was uploaded or sent for this item.');
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('refuses a URL that answers 404, with the status; nothing reaches the gateway', async () => {
		const error = await rejectionOf(sendMedia('image', `${baseUrl}/photos/missing.jpg`));
		// The host only: a URL's path and query may hold a token.
		expect(error.message).toBe(`Media URL (item 0): ${new URL(baseUrl).host} answered 404 Not Found, not a file`);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('refuses a 20 MB video by its Content-Length before the upload, without downloading it', async () => {
		const error = await rejectionOf(sendMedia('video', `${baseUrl}/videos/big.mp4`));
		expect(error.message).toBe(
			'Media URL (item 0): The file is 20,000,000 bytes; video files are at most 16 MB (16,000,000 bytes)',
		);
		expect(gateway.sandbox.requests).toEqual([]);
		// The download is dropped after its first bytes (socket buffers allow some megabytes in flight).
		await new Promise((resolve) => setTimeout(resolve, 200));
		expect(served[0].bytesWritten).toBeLessThan(VIDEO_20MB.length);
	});

	it('refuses a 20 MB video without Content-Length as soon as the stream passes 16 MB, before any upload', async () => {
		const error = await rejectionOf(sendMedia('video', `${baseUrl}/videos/chunked.mp4`));
		expect(error.message).toBe(
			'Media URL (item 0): The file is larger than 16,000,000 bytes; video files are at most 16 MB',
		);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('a download that breaks off is that item\'s error, and nothing reaches the gateway', async () => {
		const error = await rejectionOf(sendMedia('image', `${baseUrl}/photos/broken.jpg`));
		expect(error.message).toBe(
			`Media URL (item 0): the download from ${new URL(baseUrl).host} failed: the connection was closed before the whole file came`,
		);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('refuses a value that is not an http(s) address as bad input of the Media URL field, before any download', async () => {
		const error = await rejectionOf(sendMedia('image', 'file:///etc/passwd'));
		expect(error.message).toMatch(/Media URL/);
		expect(error.message).toMatch(/"file:\/\/\/etc\/passwd" is not an http\(s\) address/);
		expect(served).toEqual([]);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('with Continue On Fail, a refused URL is that item\'s error and the next item is still sent', async () => {
		const result = await runGateway(
			gateway.sandbox,
			{
				resource: 'message',
				operation: 'send',
				recipientPhoneNumber: '+55 (11) 98888-7777',
				messageType: 'image',
				mediaSource: 'url',
				mediaUrl: '={{ $json.url }}',
			},
			{
				continueOnFail: true,
				items: [{ json: { url: `${baseUrl}/photos/missing.jpg` } }, { json: { url: `${baseUrl}/photos/harbour%20at%20dawn.jpg` } }],
			},
		);
		const [first, second] = result.output[0];
		expect(first.json.error).toMatch(/answered 404/);
		expect(first.pairedItem).toEqual({ item: 0 });
		expect(second.json).toMatchObject({ to: '5511988887777' });
		expect(gateway.sandbox.requests.map((request) => request.path)).toEqual(['/api/Medias', '/api/Messages']);
	});
});

describe('Media > Upload with Media Source: URL', () => {
	it('streams the download into the upload and outputs the media id, detecting the kind from the file', async () => {
		const result = await runGateway(gateway.sandbox, {
			resource: 'media',
			operation: 'upload',
			mediaSource: 'url',
			mediaUrl: `${baseUrl}/photos/harbour%20at%20dawn.jpg`,
		});
		const [upload] = gateway.sandbox.requests;
		expect(upload.body).toMatchObject({ files: [expect.objectContaining({ size: JPEG.length, sha256: sha256(JPEG) })] });
		expect(result.output[0][0].json).toEqual({
			id: (upload.responseBody as { id: string }).id,
			fileName: 'harbour at dawn.jpg',
			mimeType: 'image/jpeg',
			fileSize: JPEG.length,
			kind: 'image',
		});
	});

	it('refuses a 20 MB video URL before uploading it', async () => {
		const error = await rejectionOf(
			runGateway(gateway.sandbox, { resource: 'media', operation: 'upload', mediaSource: 'url', mediaUrl: `${baseUrl}/videos/chunked.mp4` }),
		);
		expect(error.message).toMatch(/larger than 16,000,000 bytes; video files are at most 16 MB/);
		expect(gateway.sandbox.requests).toEqual([]);
	});
});
