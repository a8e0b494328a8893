/**
 * Media > Upload through the real node against the sandbox gateway: the multipart request, the output, the refusals
 * of spec section 8 made before a byte is sent, and a 100 MB document streamed without holding it in memory.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { measurePeakMemory, type InputItem } from '../harness';
import { rejectionOf, runGateway, useSandbox } from './support';

const MB = 1024 * 1024;

const gateway = useSandbox();
let directory: string;
beforeAll(() => {
	directory = mkdtempSync(join(tmpdir(), 'media-test-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const upload = (items: InputItem[], parameters: INodeParameters = {}) =>
	runGateway(gateway.sandbox, { resource: 'media', operation: 'upload', ...parameters }, { items });

const failure = rejectionOf;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('Media > Upload', () => {
	it('sends POST /api/Medias (version 6.0) as multipart messaging_product + File and outputs the media id', async () => {
		const png = randomBytes(2048);
		const result = await upload([{ json: {}, binary: { data: { data: png, fileName: 'logo.png', mimeType: 'image/png' } } }]);

		expect(gateway.sandbox.requests).toHaveLength(1);
		const [request] = gateway.sandbox.requests;
		expect([request.method, request.path, request.headers.version, request.headers.apikey]).toEqual([
			'POST',
			'/api/Medias',
			'6.0',
			gateway.sandbox.apiKey,
		]);
		expect(request.headers['content-type']).toMatch(/^multipart\/form-data; boundary=/);
		expect(request.body).toEqual({
			fields: { messaging_product: 'whatsapp' },
			files: [expect.objectContaining({ field: 'File', fileName: 'logo.png', contentType: 'image/png', size: 2048, sha256: sha256(png) })],
		});
		expect(result.output[0].map((item) => item.json)).toEqual([
			{ id: (request.responseBody as { id: string }).id, fileName: 'logo.png', mimeType: 'image/png', fileSize: 2048, kind: 'image' },
		]);
	});

	it('reads the binary property named in the field and takes a media kind override', async () => {
		const result = await upload(
			[{ json: {}, binary: { attachment: { data: randomBytes(100), fileName: 'scan.png', mimeType: 'image/png' } } }],
			{ binaryPropertyName: 'attachment', mediaKind: 'document' },
		);
		expect(result.output[0][0].json).toMatchObject({ fileName: 'scan.png', kind: 'document', fileSize: 100 });
		expect(gateway.sandbox.requests).toHaveLength(1);
	});

	it.each([
		['an image over 5 MB', { data: Buffer.alloc(5 * MB + 1), fileName: 'big.png', mimeType: 'image/png' }, {}, /^The file is 5\.0 MB; the gateway accepts image files of at most 5 MB/],
		['a sticker over 100 KB', { data: Buffer.alloc(101 * 1024), fileName: 's.webp', mimeType: 'image/webp' }, {}, /accepts sticker files of at most 100 KB/],
		['plain ogg audio', { data: Buffer.alloc(10), fileName: 'a.ogg', mimeType: 'audio/ogg' }, {}, /only with the opus codec/],
		['an image sent as sticker over 100 KB', { data: Buffer.alloc(200 * 1024), fileName: 'p.png', mimeType: 'image/png' }, { mediaKind: 'sticker' }, /sticker files of at most 100 KB/],
	])('refuses %s before sending anything', async (_case, binary, parameters, message) => {
		const error = await failure(upload([{ json: {}, binary: { data: binary } }], parameters));

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(message);
		expect(error.message).toContain('(binary property "data")');
		expect(error.context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('names the missing binary property and sends nothing', async () => {
		const error = await failure(upload([{ json: {} }], { binaryPropertyName: 'file' }));
		expect(error.message).toMatch(/file/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	/** Peak growth of live memory (after garbage collections) while one file of `size` bytes is uploaded. */
	async function uploadMeasured(size: number): Promise<{ growth: number }> {
		const path = join(directory, `document-${size}.pdf`);
		const hash = createHash('sha256');
		const out = createWriteStream(path);
		const chunk = randomBytes(MB);
		for (let written = 0; written < size; written += MB) {
			hash.update(chunk);
			if (!out.write(chunk)) await once(out, 'drain');
		}
		out.end();
		await once(out, 'finish');
		gateway.sandbox.reset();

		let measured;
		try {
			measured = await measurePeakMemory(() =>
				upload([
					{ json: {}, binary: { data: { data: { filePath: path }, fileName: 'report.pdf', mimeType: 'application/pdf' } } },
				]),
			);
		} finally {
			rmSync(path, { force: true });
		}

		const [request] = gateway.sandbox.requests;
		expect(request.status).toBe(200);
		expect(request.body).toEqual({
			fields: { messaging_product: 'whatsapp' },
			files: [expect.objectContaining({ field: 'File', fileName: 'report.pdf', size, sha256: hash.digest('hex') })],
		});
		expect(measured.result.output[0][0].json).toMatchObject({ kind: 'document', fileSize: size, mimeType: 'application/pdf' });
		return { growth: measured.peakGrowth };
	}

	it('streams a 100 MB document: memory growth far below its size and not growing with it', async () => {
		// The first upload also loads every code path; the growth of the second is what a 10 MB file costs.
		await uploadMeasured(10 * MB);
		const small = await uploadMeasured(10 * MB);
		const large = await uploadMeasured(100 * MB);

		// Buffered in full anywhere (node, transport or the in-process sandbox), 100 MB would stay alive at its peak.
		// Seen here: about 15-20 MB for 10 MB and 29-33 MB for 100 MB, the sandbox's side of the socket included.
		expect(large.growth).toBeLessThan(48 * MB);
		expect(large.growth - small.growth).toBeLessThan(30 * MB);
	}, 180_000);
});
