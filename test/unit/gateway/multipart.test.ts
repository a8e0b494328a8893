/**
 * The media upload body written without form-data: read back by the platform's own multipart parser (undici's
 * Response.formData, an implementation independent of ours), its announced length exact, the file streamed through.
 */
import { createMediaUploadBody, MultipartBody } from '../../../nodes/gateway/blobBody';

async function bytesOf(body: MultipartBody): Promise<Buffer> {
	const chunks: Uint8Array[] = [];
	for await (const chunk of body.stream()) chunks.push(chunk);
	return Buffer.concat(chunks);
}

async function parsed(body: MultipartBody): Promise<FormData> {
	return await new Response(await bytesOf(body), { headers: { 'content-type': body.type } }).formData();
}

async function* chunksOf(data: Buffer, size: number): AsyncGenerator<Uint8Array> {
	for (let at = 0; at < data.length; at += size) yield data.subarray(at, at + size);
}

describe('media upload body', () => {
	const file = Buffer.from(Array.from({ length: 70_000 }, (_, i) => (i * 7919) % 256));

	it('holds messaging_product and the file with its name and type, as a multipart parser reads them', async () => {
		const body = createMediaUploadBody({ data: file, fileName: 'photo.jpg', mimeType: 'image/jpeg', size: file.length });
		const form = await parsed(body);
		expect(form.get('messaging_product')).toBe('whatsapp');
		const part = form.get('File') as File;
		expect(part.name).toBe('photo.jpg');
		expect(part.type).toBe('image/jpeg');
		expect(Buffer.from(await part.arrayBuffer()).equals(file)).toBe(true);
	});

	it('announces exactly the length it sends, for a file streamed in chunks', async () => {
		const body = createMediaUploadBody({ data: chunksOf(file, 4096), fileName: 'a.pdf', mimeType: 'application/pdf', size: file.length });
		const bytes = await bytesOf(body);
		expect(bytes.length).toBe(body.size);
		expect(body.type).toMatch(/^multipart\/form-data; boundary=\S{30,70}$/);
		expect(Object.prototype.toString.call(body)).toBe('[object Blob]');
	});

	it('passes the stream chunks through as they come, not gathered', async () => {
		const seen: number[] = [];
		async function* source(): AsyncGenerator<Uint8Array> {
			for await (const chunk of chunksOf(file, 10_000)) {
				seen.push(chunk.length);
				yield chunk;
			}
		}
		const body = createMediaUploadBody({ data: source(), fileName: 'a.bin', mimeType: 'application/octet-stream', size: file.length });
		const iterator = body.stream();
		await iterator.next(); // the part's header
		const first = await iterator.next();
		expect((first.value as Uint8Array).length).toBe(10_000);
		expect(seen).toEqual([10_000]);
		await iterator.return(undefined);
	});

	it('keeps a file name with quotes and line breaks inside its parameter', async () => {
		const body = createMediaUploadBody({ data: file.subarray(0, 10), fileName: 'a"b\r\nc.txt', mimeType: 'text/plain', size: 10 });
		const part = (await parsed(body)).get('File') as File;
		expect(part.name).toBe('a"b\r\nc.txt');
		expect(part.size).toBe(10);
	});

	it('ends with an error when the file is shorter or longer than announced', async () => {
		const shorter = createMediaUploadBody({ data: chunksOf(file, 1000), fileName: 'a', mimeType: 'x/y', size: file.length + 1 });
		await expect(bytesOf(shorter)).rejects.toThrow('fewer bytes than its announced');
		const longer = createMediaUploadBody({ data: chunksOf(file, 1000), fileName: 'a', mimeType: 'x/y', size: file.length - 1 });
		await expect(bytesOf(longer)).rejects.toThrow('more bytes than its announced');
	});

	it('is sent once: a second read is refused rather than sending an empty file', async () => {
		const body = createMediaUploadBody({ data: chunksOf(file, 1000), fileName: 'a', mimeType: 'x/y', size: file.length });
		const part = (await parsed(body)).get('File') as File;
		expect(Buffer.from(await part.arrayBuffer()).equals(file)).toBe(true);
		expect(() => body.stream()).toThrow('already sent');
	});
});
