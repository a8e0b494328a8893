/**
 * What a Media URL's errors may show of it (gateway/media.ts): its host, never a user, password, path or query;
 * network codes in words (n8n replaces a message holding the code); and what a Blob-like body tells the transport
 * about its source (gateway/blobBody.ts): waiting for it is not the far end's stall, and its failure is recorded.
 */
import { FileBody } from '../../../nodes/gateway/blobBody';
import { describeDownloadNetworkError, hostOf, readMediaUrl, redirectTarget, withoutCredentials } from '../../../nodes/gateway/media';

describe('a URL in error texts', () => {
	it('hostOf: the host and port only', () => {
		expect(hostOf('https://user:secret@files.example.com:8443/a/b.jpg?token=abc#x')).toBe('files.example.com:8443');
		expect(hostOf('http://files.example.com/b.jpg')).toBe('files.example.com');
		expect(hostOf('not a url')).toBe('the file host');
	});

	it('withoutCredentials: a value that is not a URL, shown without what sits between // and @, nor its query', () => {
		expect(withoutCredentials('ftp://user:secret@host/file.jpg')).toBe('ftp://***@host/file.jpg');
		expect(withoutCredentials('files/a.jpg?sig=abc')).toBe('files/a.jpg?***');
		expect(withoutCredentials('photo.jpg')).toBe('photo.jpg');
	});

	it('readMediaUrl refuses a non-http address without showing its password', () => {
		const read = readMediaUrl('ftp://user:secret@host/file.jpg');
		expect(read).toEqual({ problem: '"ftp://***@host/file.jpg" is not an http(s) address' });
	});

	it('network codes in words, none of which n8n would replace', () => {
		const codes = ['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'ECONNRESET', 'EHOSTUNREACH', 'ERR_FR_TOO_MANY_REDIRECTS', 'CERT_HAS_EXPIRED', undefined];
		for (const code of codes) {
			const words = describeDownloadNetworkError(code);
			expect(words).not.toMatch(/E[A-Z]{3,}/);
		}
		expect(describeDownloadNetworkError('ECONNREFUSED')).toMatch(/^the connection was refused/);
		expect(describeDownloadNetworkError('ENOTFOUND')).toBe('the host name was not found');
	});
});

describe("a body's source, as the transport sees it", () => {
	it('is waited for between chunks, and its failure is recorded before the request sees it', async () => {
		let release: () => void = () => undefined;
		const gate = new Promise<void>((resolve) => (release = resolve));
		async function* source(): AsyncGenerator<Uint8Array> {
			yield Buffer.from('ab');
			await gate;
			throw new Error('the download broke off');
		}
		const body = new FileBody(source(), 4, 'text/plain');
		const chunks = body.stream();
		expect((await chunks.next()).value).toEqual(Buffer.from('ab'));
		expect(body.waitingForSource).toBe(false);
		const next = chunks.next();
		await Promise.resolve();
		expect(body.waitingForSource).toBe(true);
		release();
		await expect(next).rejects.toThrow('the download broke off');
		expect(body.waitingForSource).toBe(false);
		expect((body.sourceFailure as Error).message).toBe('the download broke off');
	});
});

describe('redirectTarget', () => {
	it('follows a redirect status with a Location, resolved against the address asked', () => {
		expect(redirectTarget(302, '/files/b.jpg', 'http://host:8080/a/x.jpg?t=1')).toBe('http://host:8080/files/b.jpg');
		expect(redirectTarget(301, 'https://cdn.example/c.jpg', 'http://host/a.jpg')).toBe('https://cdn.example/c.jpg');
		expect(redirectTarget(307, 'next.jpg', 'http://host/dir/a.jpg')).toBe('http://host/dir/next.jpg');
	});

	it('takes any other answer, or a redirect without a usable Location, as the answer itself', () => {
		expect(redirectTarget(200, '/elsewhere', 'http://host/a.jpg')).toBeUndefined();
		expect(redirectTarget(304, '/elsewhere', 'http://host/a.jpg')).toBeUndefined();
		expect(redirectTarget(302, undefined, 'http://host/a.jpg')).toBeUndefined();
		expect(redirectTarget(302, '  ', 'http://host/a.jpg')).toBeUndefined();
		expect(redirectTarget(302, 'http://[bad', 'http://host/a.jpg')).toBeUndefined();
	});
});
