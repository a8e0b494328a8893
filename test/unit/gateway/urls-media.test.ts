import { base64ByteLength, mediaKindOf, mediaRefusal } from '../../../nodes/gateway/media';
import { MEDIA_LIMITS } from '../../../nodes/gateway/spec';
import { isHttpsUrl, isLoopbackUrl, normaliseBaseUrl } from '../../../nodes/gateway/urls';

describe('base URL', () => {
	it('tolerates trailing slashes and spaces', () => {
		expect(normaliseBaseUrl(' https://gw.example.com/// ')).toBe('https://gw.example.com');
	});

	it('refuses what is not an http(s) address', () => {
		expect(normaliseBaseUrl('gw.example.com')).toBeUndefined();
		expect(normaliseBaseUrl('ftp://gw.example.com')).toBeUndefined();
		expect(normaliseBaseUrl(undefined)).toBeUndefined();
	});

	it('tells loopback and https addresses', () => {
		expect(isLoopbackUrl('http://127.0.0.1:8787')).toBe(true);
		expect(isLoopbackUrl('http://localhost:5678/webhook/x')).toBe(true);
		expect(isLoopbackUrl('http://[::1]:80')).toBe(true);
		expect(isLoopbackUrl('https://n8n.example.com')).toBe(false);
		expect(isHttpsUrl('https://n8n.example.com')).toBe(true);
		expect(isHttpsUrl('http://n8n.example.com')).toBe(false);
	});
});

describe('media checks of spec section 8', () => {
	it('derives the kind from the content type', () => {
		expect(mediaKindOf('image/jpeg')).toBe('image');
		expect(mediaKindOf('image/webp')).toBe('sticker');
		expect(mediaKindOf('audio/ogg; codecs=opus')).toBe('audio');
		expect(mediaKindOf('video/mp4')).toBe('video');
		expect(mediaKindOf('application/pdf')).toBe('document');
	});

	it.each([
		['image', 'image/png', MEDIA_LIMITS.image.maxBytes, '5 MB'],
		['audio', 'audio/mpeg', MEDIA_LIMITS.audio.maxBytes, '16 MB'],
		['video', 'video/mp4', MEDIA_LIMITS.video.maxBytes, '16 MB'],
		['document', 'application/pdf', MEDIA_LIMITS.document.maxBytes, '100 MB'],
		['sticker', 'image/webp', MEDIA_LIMITS.sticker.maxBytes, '100 KB'],
	] as const)('%s: accepts the limit, refuses one byte more naming the limit', (kind, mime, limit, label) => {
		expect(mediaRefusal(kind, mime, limit)).toBeUndefined();
		expect(mediaRefusal(kind, mime, limit + 1)).toContain(`at most ${label}`);
	});

	it('refuses plain audio/ogg and accepts ogg with the opus codec', () => {
		expect(mediaRefusal('audio', 'audio/ogg', 1000)).toMatch(/opus codec/);
		expect(mediaRefusal('audio', 'audio/ogg; codecs=opus', 1000)).toBeUndefined();
		expect(mediaRefusal('audio', 'audio/ogg; codecs="opus"', 1000)).toBeUndefined();
	});

	it('counts base64 bytes without decoding', () => {
		for (const size of [0, 1, 2, 3, 4, 1000]) {
			expect(base64ByteLength(Buffer.alloc(size, 7).toString('base64'))).toBe(size);
		}
	});
});
