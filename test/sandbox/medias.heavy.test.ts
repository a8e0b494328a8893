/**
 * `POST /api/Medias` checks that move 100 MB or measure memory, run by `npm run test:heavy` (not `npm test`): the
 * 100 MB limit, exact and one byte over, and the multipart reader keeping no file bytes.
 */
import { randomBytes } from 'node:crypto';

import { CHANNEL, ENDPOINTS } from '../../nodes/gateway/spec';
import { liveBytes } from '../harness/memory';
import { mediaFile } from '../fixtures/media';
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

/** A multipart body of one `messaging_product` field and one PDF `File` part of `size` bytes. */
function pdfUpload(size: number) {
	const head = `--${BOUNDARY}\r\nContent-Disposition: form-data; name="messaging_product"\r\n\r\n${CHANNEL}\r\n` +
		`--${BOUNDARY}\r\nContent-Disposition: form-data; name="File"; filename="a.pdf"\r\nContent-Type: application/pdf\r\n\r\n`;
	const body = Buffer.concat([Buffer.from(head), mediaFile('pdf', size), Buffer.from(`\r\n--${BOUNDARY}--\r\n`)]);
	return rawRequest(`${sandbox.url}${ENDPOINTS.medias.path}`, {
		method: 'POST',
		headers: { apikey: sandbox.apiKey, version: ENDPOINTS.medias.version, 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
		body,
	});
}

describe('media upload size limit (spec 8)', () => {
	it('refuses an upload over 100,000,000 bytes with 413; exactly that many is accepted', async () => {
		const exact = await pdfUpload(100_000_000);
		expect(exact.status).toBe(200);
		const over = await pdfUpload(100_000_001);
		expect(over.status).toBe(413);
		expect(JSON.parse(over.text).error.message).toBe('File is 100000001 bytes: media files are at most 100 MB (100000000 bytes)');
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
