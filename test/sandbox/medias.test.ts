/** `POST /api/Medias` (spec 2.7, 4.8): multipart parts checked, the file streamed and hashed. */
import { createHash, randomBytes } from 'node:crypto';

import { CHANNEL, ENDPOINTS } from '../../nodes/gateway/spec';
import { liveBytes } from '../harness/memory';
import { rawRequest } from './helpers';
import { MultipartReader } from './multipart';
import { startSandbox, type Sandbox } from './server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const BOUNDARY = '----sandboxBoundary7MA4YWxkTrZu0gW';

interface Part {
	name: string;
	fileName?: string;
	contentType?: string;
	data: Buffer | string;
}

function multipart(parts: Part[], boundary = BOUNDARY): Buffer {
	const chunks: Buffer[] = [];
	for (const part of parts) {
		let head = `--${boundary}\r\nContent-Disposition: form-data; name="${part.name}"`;
		if (part.fileName !== undefined) head += `; filename="${part.fileName}"`;
		head += '\r\n';
		if (part.contentType) head += `Content-Type: ${part.contentType}\r\n`;
		chunks.push(Buffer.from(`${head}\r\n`), Buffer.from(part.data), Buffer.from('\r\n'));
	}
	chunks.push(Buffer.from(`--${boundary}--\r\n`));
	return Buffer.concat(chunks);
}

function upload(body: Buffer, options: { contentType?: string; chunkSize?: number } = {}) {
	return rawRequest(`${sandbox.url}${ENDPOINTS.medias.path}`, {
		method: 'POST',
		headers: {
			apikey: sandbox.apiKey,
			version: ENDPOINTS.medias.version,
			'content-type': options.contentType ?? `multipart/form-data; boundary=${BOUNDARY}`,
		},
		body,
		chunkSize: options.chunkSize,
	});
}

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');
const image = randomBytes(300_000);
const channelPart: Part = { name: 'messaging_product', data: CHANNEL };
const filePart: Part = { name: 'File', fileName: 'nota fiscal.png', contentType: 'image/png', data: image };

describe('accepted uploads', () => {
	it('answers { id: digits } and records the file by size and hash', async () => {
		const result = await upload(multipart([channelPart, filePart]));
		expect(result.status).toBe(200);
		const { id } = JSON.parse(result.text);
		expect(id).toMatch(/^\d+$/);
		expect(sandbox.state.media.get(id)).toMatchObject({ fileName: 'nota fiscal.png', contentType: 'image/png', size: image.length, sha256: sha256(image) });
		expect(sandbox.requests[0].body).toEqual({
			fields: { messaging_product: CHANNEL },
			files: [{ field: 'File', fileName: 'nota fiscal.png', contentType: 'image/png', size: image.length, sha256: sha256(image) }],
		});
	});

	it('reads the same bytes whatever the chunking (boundaries split across chunks)', async () => {
		// File bytes that look like a delimiter start, to catch a reader that cuts on a partial match.
		const tricky = Buffer.concat([Buffer.from(`\r\n--${BOUNDARY.slice(0, 10)}`), randomBytes(2000), Buffer.from('\r\n-')]);
		const body = multipart([channelPart, { ...filePart, data: tricky }]);
		for (const chunkSize of [1, 7, 64]) {
			const result = await upload(body, { chunkSize });
			expect(result.status).toBe(200);
			const media = sandbox.state.media.get(JSON.parse(result.text).id);
			expect(media).toMatchObject({ size: tricky.length, sha256: sha256(tricky) });
		}
	});

	it('accepts the form built by Node FormData (as an HTTP client sends it)', async () => {
		const form = new FormData();
		form.append('messaging_product', CHANNEL);
		form.append('File', new Blob([image], { type: 'image/jpeg' }), 'foto.jpg');
		const response = await fetch(`${sandbox.url}${ENDPOINTS.medias.path}`, {
			method: 'POST',
			headers: { apikey: sandbox.apiKey, version: ENDPOINTS.medias.version },
			body: form,
		});
		expect(response.status).toBe(200);
		expect([...sandbox.state.media.values()][0]).toMatchObject({ fileName: 'foto.jpg', contentType: 'image/jpeg', sha256: sha256(image) });
	});
});

describe('refused uploads', () => {
	it.each<[string, Part[], string]>([
		['without messaging_product', [filePart], 'messaging_product'],
		['with another messaging_product', [{ ...channelPart, data: 'telegram' }, filePart], 'messaging_product'],
		['without File', [channelPart], 'File'],
		['with the file part under another name', [channelPart, { ...filePart, name: 'file' }], 'file'],
		['with a File part that has no filename', [channelPart, { name: 'File', contentType: 'image/png', data: 'abc' }], 'File'],
		['with a File part that has no content type', [channelPart, { name: 'File', fileName: 'a.png', data: 'abc' }], 'File'],
		['with an extra text part', [channelPart, { name: 'type', data: 'image/png' }, filePart], 'type'],
	])('refuses an upload %s with 400 naming the part', async (_case, parts, field) => {
		const result = await upload(multipart(parts));
		expect(result.status).toBe(400);
		expect(JSON.parse(result.text).error.message).toContain(`Invalid parameter: ${field} `);
		expect(sandbox.state.media.size).toBe(0);
	});

	it('refuses a JSON body with 415', async () => {
		const result = await upload(Buffer.from('{"messaging_product":"whatsapp"}'), { contentType: 'application/json' });
		expect(result.status).toBe(415);
	});

	it('refuses a truncated multipart body', async () => {
		const body = multipart([channelPart, filePart]);
		const result = await upload(body.subarray(0, body.length - 40));
		expect(result.status).toBe(400);
		expect(JSON.parse(result.text).error.message).toMatch(/closing boundary/);
	});
});

describe('streaming', () => {
	it('keeps no file bytes: memory stays flat while 64 MB pass through the reader', () => {
		const reader = new MultipartReader(BOUNDARY);
		const head = Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="File"; filename="big.bin"\r\nContent-Type: application/octet-stream\r\n\r\n`);
		const block = randomBytes(1024 * 1024);
		reader.write(head);
		// Live memory after a collection: garbage the test itself makes does not count, bytes the reader keeps do.
		const before = liveBytes('major');
		let peak = before;
		for (let i = 0; i < 64; i++) {
			reader.write(block);
			peak = Math.max(peak, liveBytes());
		}
		reader.write(Buffer.from(`\r\n--${BOUNDARY}--\r\n`));
		const summary = reader.end();
		expect(reader.error).toBeNull();
		expect(summary.files[0].size).toBe(64 * 1024 * 1024);
		// A reader that buffered the file would hold 64 MB more; a streaming one holds about one block.
		expect(peak - before).toBeLessThan(32 * 1024 * 1024);
	});
});
