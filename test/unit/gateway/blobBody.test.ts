/** A whole file as a Blob-like body: what n8n's request helper reads, with the length it announces. */
import { FileBody, isBlobBody, MultipartBody } from '../../../nodes/gateway/blobBody';

async function* chunksOf(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
	for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

async function read(body: FileBody): Promise<Buffer> {
	const chunks: Uint8Array[] = [];
	for await (const chunk of body.stream()) chunks.push(chunk);
	return Buffer.concat(chunks);
}

describe('FileBody', () => {
	const file = Buffer.from('FirstName;Email\nAna;ana@example.com\n'.repeat(1000));

	it('gives the file as it is, streamed or in memory, announcing its size and type', async () => {
		for (const data of [file, chunksOf(file, 4096)]) {
			const body = new FileBody(data, file.length, 'text/csv');
			expect(body.size).toBe(file.length);
			expect(body.type).toBe('text/csv');
			expect(Object.prototype.toString.call(body)).toBe('[object Blob]');
			expect((await read(body)).equals(file)).toBe(true);
		}
	});

	it('calls onChunk for every chunk taken, and is sent once', async () => {
		const body = new FileBody(chunksOf(file, 4096), file.length, 'text/csv');
		let calls = 0;
		body.onChunk = () => calls++;
		await read(body);
		expect(calls).toBe(Math.ceil(file.length / 4096));
		expect(() => body.stream()).toThrow('already sent');
	});

	it('fails when the file has another length than announced, never giving a byte past it', async () => {
		await expect(read(new FileBody(chunksOf(file, 4096), file.length + 1, 'text/csv'))).rejects.toThrow('fewer bytes');
		for (const data of [file, chunksOf(file, 4096)]) {
			const announced = file.length - 100;
			let given = 0;
			const reading = (async () => {
				for await (const chunk of new FileBody(data, announced, 'text/csv').stream()) given += chunk.length;
			})();
			await expect(reading).rejects.toThrow('more bytes');
			expect(given).toBeLessThanOrEqual(announced);
		}
	});

	it('is a Blob-like body for the transport, as the media form is', () => {
		expect(isBlobBody(new FileBody(file, file.length, 'text/csv'))).toBe(true);
		const form = new MultipartBody({}, 'File', { data: file, fileName: 'a.csv', mimeType: 'text/csv', size: file.length });
		expect(isBlobBody(form)).toBe(true);
		expect(isBlobBody({ pipe() {} })).toBe(false);
	});
});
