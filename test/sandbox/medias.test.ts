/**
 * `POST /api/Medias` (spec 2.7, 4.8): multipart parts checked, the file streamed and hashed. The 100 MB limit and the
 * reader's memory check are in medias.heavy.test.ts (`npm run test:heavy`).
 */
import { createHash, randomBytes } from 'node:crypto';

import { CHANNEL, ENDPOINTS } from '../../nodes/gateway/spec';
import { mediaFile } from '../fixtures/media';
import { message, rawRequest, sendMessage } from './helpers';
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
const image = mediaFile('png', 300_000);
const channelPart: Part = { name: 'messaging_product', data: CHANNEL };
const filePart: Part = { name: 'File', fileName: 'nota fiscal.png', contentType: 'image/png', data: image };

describe('accepted uploads', () => {
	it('answers { id: digits } and records the file by size and hash', async () => {
		const result = await upload(multipart([channelPart, filePart]));
		expect(result.status).toBe(200);
		const { id } = JSON.parse(result.text);
		expect(id).toMatch(/^\d+$/);
		expect(sandbox.state.media.get(id)).toMatchObject({ fileName: 'nota fiscal.png', contentType: 'image/png', size: image.length, sha256: sha256(image), format: 'png' });
		expect(sandbox.requests[0].body).toEqual({
			fields: { messaging_product: CHANNEL },
			files: [{ field: 'File', fileName: 'nota fiscal.png', contentType: 'image/png', size: image.length, sha256: sha256(image), format: 'png' }],
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

describe('media messages: the format and decimal size of the uploaded file per kind (spec 8, NOTES.md)', () => {
	async function uploaded(file: Buffer, contentType: string): Promise<string> {
		const result = await upload(multipart([channelPart, { name: 'File', fileName: 'file', contentType, data: file }]));
		expect(result.status).toBe(200);
		return JSON.parse(result.text).id;
	}

	it.each([
		['image', 'jpeg', 'image/jpeg', 5_000_000],
		['image', 'png', 'image/png', 1000],
		['sticker', 'webp', 'image/webp', 100_000],
		['video', 'mp4', 'video/mp4', 1000],
		['video', '3gpp', 'video/3gpp', 1000],
		['audio', 'ogg-opus', 'audio/ogg; codecs=opus', 1000],
		['audio', 'mpeg', 'audio/mpeg', 1000],
		['document', 'gif', 'image/gif', 1000],
	] as const)('sends %s media of %s uploaded as %s (%d bytes)', async (kind, format, contentType, size) => {
		const id = await uploaded(mediaFile(format, size), contentType);
		expect((await sendMessage(sandbox, message(kind, { id }))).status).toBe(200);
	});

	it.each([
		['image', 'pdf', 'application/pdf', 1000, 'is a PDF file; image media must be one of JPEG, PNG'],
		['image', 'gif', 'image/gif', 1000, 'is a GIF file; image media must be one of JPEG, PNG'],
		['sticker', 'png', 'image/png', 1000, 'is a PNG file; sticker media must be one of WebP'],
		['video', 'quicktime', 'video/quicktime', 1000, 'is a QuickTime (MOV) file'],
		['audio', 'ogg-vorbis', 'audio/ogg', 1000, 'is a OGG Vorbis file'],
		['audio', 'ogg-opus', 'audio/ogg', 1000, 'was uploaded as audio/ogg; audio media in OGG Opus must be uploaded as audio/ogg; codecs=opus'],
		['image', 'png', 'image/jpeg', 1000, 'was uploaded as image/jpeg'],
		['image', 'jpeg', 'image/jpeg', 5_000_001, 'is a file of 5000001 bytes; image media are at most 5 MB (5000000 bytes)'],
		['sticker', 'webp', 'image/webp', 100_001, 'is a file of 100001 bytes; sticker media are at most 100 KB (100000 bytes)'],
		['video', 'mp4', 'video/mp4', 16_000_001, 'is a file of 16000001 bytes; video media are at most 16 MB (16000000 bytes)'],
	] as const)('refuses %s media of %s uploaded as %s (%d bytes), naming the id', async (kind, format, contentType, size, problem) => {
		const id = await uploaded(mediaFile(format, size), contentType);
		const result = await sendMessage(sandbox, message(kind, { id }));
		expect(result.status).toBe(400);
		expect(result.json.error.message).toContain(`Invalid parameter: ${kind}.id ${problem}`);
	});
});
