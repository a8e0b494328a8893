/**
 * Media > Upload memory checks, run by `npm run test:heavy` (not `npm test`): a 100 MB document is streamed without
 * holding it in memory, and a 90 MB file in the filesystem store is refused from its first bytes.
 */
import { createHash, randomBytes } from 'node:crypto';
import { createWriteStream, mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { once } from 'node:events';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { INodeParameters } from 'n8n-workflow';

import { mediaFile } from '../fixtures/media';
import { measurePeakMemory, type InputItem } from '../harness';
import { rejectionOf, runGateway, useSandbox } from './support';

// Decimal, as the gateway's limits are: 5 MB = 5,000,000 bytes.
const MB = 1_000_000;

const gateway = useSandbox();
let directory: string;
beforeAll(() => {
	directory = mkdtempSync(join(tmpdir(), 'media-heavy-test-'));
});
afterAll(() => rmSync(directory, { recursive: true, force: true }));

const upload = (items: InputItem[], parameters: INodeParameters = {}) =>
	runGateway(gateway.sandbox, { resource: 'media', operation: 'upload', ...parameters }, { items });

const failure = rejectionOf;

describe('Media > Upload memory', () => {
	it('reads only the first bytes of a binary in the filesystem store before refusing it', async () => {
		// A 90 MB PDF (sparse after its first megabyte) labelled as a PNG: refused from its signature, with memory far
		// below its size. The bound leaves room for what a first run in a Jest worker allocates (about 12 MB seen).
		const path = join(directory, 'not-an-image.bin');
		writeFileSync(path, mediaFile('pdf', MB));
		truncateSync(path, 90 * MB);
		try {
			const measured = await measurePeakMemory(() =>
				failure(upload([{ json: {}, binary: { data: { data: { filePath: path }, fileName: 'x.png', mimeType: 'image/png' } } }], { mediaKind: 'document' })),
			);
			expect(measured.result.message).toMatch(/declared image\/png but its content is PDF/);
			expect(measured.peakGrowth).toBeLessThan(30 * MB);
		} finally {
			rmSync(path, { force: true });
		}
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	/** Peak growth of live memory (after garbage collections) while one file of `size` bytes is uploaded. */
	async function uploadMeasured(size: number): Promise<{ growth: number }> {
		const path = join(directory, `document-${size}.pdf`);
		const hash = createHash('sha256');
		const out = createWriteStream(path);
		const first = mediaFile('pdf', MB);
		const chunk = randomBytes(MB);
		for (let written = 0; written < size; written += MB) {
			const part = written === 0 ? first : chunk;
			hash.update(part);
			if (!out.write(part)) await once(out, 'drain');
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
	});
});
