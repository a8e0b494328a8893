/**
 * Media > Upload through the real node against the sandbox gateway: the multipart request, the output, the refusals
 * of spec section 8 made before a byte is sent. The memory checks (a 100 MB document streamed, a 90 MB file refused from
 * its first bytes) are in media.heavy.test.ts (`npm run test:heavy`).
 */
import { createHash } from 'node:crypto';

import type { INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mediaFile } from '../fixtures/media';
import { type InputItem } from '../harness';
import { rejectionOf, runGateway, useSandbox } from './support';

// Decimal, as the gateway's limits are: 5 MB = 5,000,000 bytes.
const MB = 1_000_000;

const gateway = useSandbox();

const upload = (items: InputItem[], parameters: INodeParameters = {}) =>
	runGateway(gateway.sandbox, { resource: 'media', operation: 'upload', ...parameters }, { items });

const failure = rejectionOf;

const sha256 = (data: Buffer) => createHash('sha256').update(data).digest('hex');

describe('Media > Upload', () => {
	it('sends POST /api/Medias (version 6.0) as multipart messaging_product + File and outputs the media id', async () => {
		const png = mediaFile('png', 2048);
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
			[{ json: {}, binary: { attachment: { data: mediaFile('png', 100), fileName: 'scan.png', mimeType: 'image/png' } } }],
			{ binaryPropertyName: 'attachment', mediaKind: 'document' },
		);
		expect(result.output[0][0].json).toMatchObject({ fileName: 'scan.png', kind: 'document', fileSize: 100 });
		expect(gateway.sandbox.requests).toHaveLength(1);
	});

	it.each([
		['an image of 5,000,001 bytes', { data: mediaFile('png', 5 * MB + 1), fileName: 'big.png', mimeType: 'image/png' }, {}, /The file is 5,000,001 bytes; image files are at most 5 MB \(5,000,000 bytes\)/],
		['a sticker of 100,001 bytes', { data: mediaFile('webp', 100_001), fileName: 's.webp', mimeType: 'image/webp' }, {}, /sticker files are at most 100 KB \(100,000 bytes\)/],
		['a PNG sent as sticker', { data: mediaFile('png', 2000), fileName: 'p.png', mimeType: 'image/png' }, { mediaKind: 'sticker' }, /Sticker files must be WebP; this file is PNG/],
		['a PDF sent as image', { data: mediaFile('pdf', 2000), fileName: 'a.pdf', mimeType: 'application/pdf' }, { mediaKind: 'image' }, /Image files must be JPEG or PNG; this file is PDF/],
		['a GIF sent as image', { data: mediaFile('gif', 2000), fileName: 'a.gif', mimeType: 'image/gif' }, { mediaKind: 'image' }, /this file is GIF/],
		['a QuickTime video', { data: mediaFile('quicktime', 2000), fileName: 'v.mov', mimeType: 'video/quicktime' }, { mediaKind: 'video' }, /Video files must be MP4 or 3GPP; this file is QuickTime/],
		['ogg audio without opus', { data: mediaFile('ogg-vorbis', 2000), fileName: 'a.ogg', mimeType: 'audio/ogg' }, { mediaKind: 'audio' }, /Audio files must be AAC, MP4, MPEG audio \(MP3\), AMR or OGG Opus; this file is OGG Vorbis/],
		['a JPEG labelled PNG', { data: mediaFile('jpeg', 2000), fileName: 'a.png', mimeType: 'image/png' }, {}, /declared image\/png but its content is JPEG/],
		['a damaged JPEG left to detection', { data: Buffer.alloc(2000), fileName: 'a.jpg', mimeType: 'image/jpeg' }, {}, /Image files must be JPEG or PNG; this file is not a format it recognises \(declared image\/jpeg\)/],
	])('refuses %s before sending anything, naming item and field', async (_case, binary, parameters, message) => {
		const error = await failure(upload([{ json: {}, binary: { data: binary } }], parameters));

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(message);
		expect(error.message).toMatch(/^Input Binary Field "data" \(item 0\): /);
		expect(error.context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('detects the kind from the content and uploads with the kind’s own content type', async () => {
		const result = await upload([
			{ json: {}, binary: { data: { data: mediaFile('webp', 5000), fileName: 's.webp', mimeType: 'image/webp' } } },
			{ json: {}, binary: { data: { data: mediaFile('ogg-opus', 5000), fileName: 'voice.ogg', mimeType: 'audio/ogg' } } },
			{ json: {}, binary: { data: { data: mediaFile('gif', 5000), fileName: 'anim.gif', mimeType: 'image/gif' } } },
			{ json: {}, binary: { data: { data: mediaFile('jpeg', 5000), fileName: 'photo', mimeType: 'application/octet-stream' } } },
		]);
		expect(result.output[0].map((item) => [item.json.kind, item.json.mimeType])).toEqual([
			['sticker', 'image/webp'],
			['audio', 'audio/ogg; codecs=opus'],
			['document', 'image/gif'],
			['image', 'image/jpeg'],
		]);
		expect(gateway.sandbox.requests.map((request) => (request.body as { files: Array<{ contentType: string }> }).files[0].contentType)).toEqual([
			'image/webp',
			'audio/ogg; codecs=opus',
			'image/gif',
			'image/jpeg',
		]);
	});

	it('with Continue On Fail, a wrong file becomes an error item and the others are uploaded', async () => {
		const result = await runGateway(
			gateway.sandbox,
			{ resource: 'media', operation: 'upload', mediaKind: 'image' },
			{
				continueOnFail: true,
				items: [
					{ json: {}, binary: { data: { data: mediaFile('png', 500), fileName: 'a.png', mimeType: 'image/png' } } },
					{ json: {}, binary: { data: { data: mediaFile('pdf', 500), fileName: 'b.pdf', mimeType: 'application/pdf' } } },
					{ json: {}, binary: { data: { data: mediaFile('jpeg', 500), fileName: 'c.jpg', mimeType: 'image/jpeg' } } },
				],
			},
		);
		const items = result.output[0];
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json).toMatchObject({ kind: 'image', fileName: 'a.png' });
		expect(items[1].json.error).toMatch(/^Input Binary Field "data" \(item 1\): Image files must be JPEG or PNG; this file is PDF/);
		expect(items[2].json).toMatchObject({ kind: 'image', fileName: 'c.jpg' });
		expect(gateway.sandbox.requests.map((request) => (request.body as { files: Array<{ fileName: string }> }).files[0].fileName)).toEqual([
			'a.png',
			'c.jpg',
		]);
	});

	it('names the missing binary property and sends nothing', async () => {
		const error = await failure(upload([{ json: {} }], { binaryPropertyName: 'file' }));
		expect(error.message).toMatch(/file/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});
