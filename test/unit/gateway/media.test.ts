/** The media checks of spec section 8 and the format detection behind them (gateway/media.ts). */
import {
	acceptedFormatsOf,
	base64ByteLength,
	base64Head,
	checkMediaFile,
	formatByteCount,
	mediaKindOfFile,
	detectMediaFormat,
	MEDIA_FORMATS,
	SIGNATURE_BYTES,
	type MediaFormat,
} from '../../../nodes/gateway/media';
import { MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from '../../../nodes/gateway/spec';
import { mediaFile, SIGNATURES } from '../../fixtures/media';

const head = (file: Buffer) => file.subarray(0, SIGNATURE_BYTES);
const check = (format: MediaFormat, mimeType: string, kind?: MediaKind, size = 2000) =>
	checkMediaFile({ mimeType, size, head: head(mediaFile(format, size)) }, kind);

describe('detectMediaFormat', () => {
	it.each(Object.keys(SIGNATURES) as MediaFormat[])('tells %s from its first bytes', (format) => {
		expect(detectMediaFormat(head(mediaFile(format)))).toBe(format);
	});

	it('tells an MP4 audio (M4A brand) as MP4 and reads the Ogg codec from the first page', () => {
		const m4a = Buffer.concat([Buffer.from([0, 0, 0, 0x1c]), Buffer.from('ftypM4A \0\0\0\0M4A mp42isom')]);
		expect(detectMediaFormat(m4a)).toBe('mp4');
		expect(detectMediaFormat(head(mediaFile('ogg-opus')))).toBe('ogg-opus');
		expect(detectMediaFormat(head(mediaFile('ogg-vorbis')))).toBe('ogg-vorbis');
	});

	it('recognises nothing in text, zeros or an empty file', () => {
		expect(detectMediaFormat(Buffer.from('name,phone\nAna,5511988887777\n'))).toBeUndefined();
		expect(detectMediaFormat(Buffer.alloc(64))).toBeUndefined();
		expect(detectMediaFormat(Buffer.alloc(0))).toBeUndefined();
	});

	it('reads only the start: a signature past the first bytes does not count', () => {
		const late = Buffer.concat([Buffer.from('hello world '), SIGNATURES.png]);
		expect(detectMediaFormat(late)).toBeUndefined();
	});

	it('every format the spec accepts is one it can detect', () => {
		for (const kind of MEDIA_KINDS) {
			for (const { format } of MEDIA_LIMITS[kind].formats ?? []) expect(MEDIA_FORMATS[format]).toBeDefined();
		}
	});
});

describe('checkMediaFile: formats per kind', () => {
	it.each([
		['image', 'jpeg', 'image/jpeg', 'image/jpeg'],
		['image', 'jpeg', 'image/jpg', 'image/jpeg'],
		['image', 'png', 'image/png', 'image/png'],
		['sticker', 'webp', 'image/webp', 'image/webp'],
		['video', 'mp4', 'video/mp4', 'video/mp4'],
		['video', '3gpp', 'video/3gpp', 'video/3gpp'],
		['audio', 'aac', 'audio/aac', 'audio/aac'],
		['audio', 'mp4', 'audio/mp4', 'audio/mp4'],
		['audio', 'mpeg', 'audio/mpeg', 'audio/mpeg'],
		['audio', 'amr', 'audio/amr', 'audio/amr'],
		['audio', 'ogg-opus', 'audio/ogg', 'audio/ogg; codecs=opus'],
		['audio', 'ogg-opus', 'audio/ogg; codecs=opus', 'audio/ogg; codecs=opus'],
		['document', 'pdf', 'application/pdf', 'application/pdf'],
		['document', 'gif', 'image/gif', 'image/gif'],
		['image', 'png', 'application/octet-stream', 'image/png'],
	] as const)('%s accepts %s declared %s and uploads it as %s', (kind, format, declared, uploaded) => {
		expect(check(format, declared, kind)).toEqual({ ok: true, kind, format, mimeType: uploaded });
	});

	it.each([
		['image', 'pdf', 'application/pdf', 'Image files must be JPEG or PNG; this file is PDF'],
		['image', 'gif', 'image/gif', 'Image files must be JPEG or PNG; this file is GIF'],
		['sticker', 'png', 'image/png', 'Sticker files must be WebP; this file is PNG'],
		['video', 'quicktime', 'video/quicktime', 'Video files must be MP4 or 3GPP; this file is QuickTime (MOV)'],
		['video', 'matroska', 'video/webm', 'Video files must be MP4 or 3GPP; this file is WebM/Matroska'],
		['audio', 'ogg-vorbis', 'audio/ogg', 'Audio files must be AAC, MP4, MPEG audio (MP3), AMR or OGG Opus; this file is OGG Vorbis'],
		['audio', 'wav', 'audio/wav', 'this file is WAV'],
		['audio', 'amr-wb', 'audio/amr-wb', 'this file is AMR-WB'],
	] as const)('%s refuses %s, naming the kind, the format and the accepted ones', (kind, format, declared, message) => {
		const verdict = check(format, declared, kind);
		expect(verdict.ok).toBe(false);
		if (!verdict.ok) expect(verdict.reason).toContain(message);
	});

	it('refuses a file whose bytes it does not recognise for a kind with formats, naming the declared type', () => {
		for (const kind of ['audio', undefined] as const) {
			const verdict = checkMediaFile({ mimeType: 'audio/ogg', size: 10, head: Buffer.alloc(10) }, kind);
			expect(verdict).toMatchObject({ ok: false, kind: 'audio' });
			if (!verdict.ok) expect(verdict.reason).toContain('this file is not a format it recognises (declared audio/ogg)');
		}
	});

	it('refuses a declared type that names another format than the bytes, whatever the kind', () => {
		for (const kind of ['image', 'document'] as const) {
			const verdict = check('png', 'image/jpeg', kind);
			expect(verdict.ok).toBe(false);
			if (!verdict.ok) expect(verdict.reason).toContain('declared image/jpeg but its content is PNG');
		}
		// A PDF labelled as an image is not uploaded as a document with an image type either.
		expect(check('pdf', 'image/jpeg').ok).toBe(false);
	});

	it('documents take any content, with the declared type, or octet-stream when there is none', () => {
		const csv = Buffer.from('a,b\n1,2\n');
		expect(checkMediaFile({ mimeType: 'text/csv', size: csv.length, head: csv }, 'document')).toMatchObject({ ok: true, mimeType: 'text/csv' });
		expect(checkMediaFile({ mimeType: '', size: csv.length, head: csv })).toMatchObject({
			ok: true,
			kind: 'document',
			mimeType: 'application/octet-stream',
		});
	});
});

describe('checkMediaFile: decimal size limits', () => {
	it.each([
		['image', 'png', 'image/png', 5_000_000, '5 MB (5,000,000 bytes)'],
		['audio', 'mpeg', 'audio/mpeg', 16_000_000, '16 MB (16,000,000 bytes)'],
		['video', 'mp4', 'video/mp4', 16_000_000, '16 MB (16,000,000 bytes)'],
		['document', 'pdf', 'application/pdf', 100_000_000, '100 MB (100,000,000 bytes)'],
		['sticker', 'webp', 'image/webp', 100_000, '100 KB (100,000 bytes)'],
	] as const)('%s: accepts %s bytes declared, refuses one byte more naming the limit', (kind, format, declared, limit, label) => {
		expect(MEDIA_LIMITS[kind].maxBytes).toBe(limit);
		const file = (size: number) => ({ mimeType: declared, size, head: head(mediaFile(format, 64)) });
		expect(checkMediaFile(file(limit), kind).ok).toBe(true);
		const verdict = checkMediaFile(file(limit + 1), kind);
		expect(verdict.ok).toBe(false);
		if (!verdict.ok) {
			expect(verdict.reason).toBe(`The file is ${formatByteCount(limit + 1)} bytes; ${kind} files are at most ${label}`);
		}
	});
});

describe('the kind of a file left to detection', () => {
	it.each([
		['jpeg', 'image/jpeg', 'image'],
		['png', '', 'image'],
		['webp', 'image/webp', 'sticker'],
		['mp4', 'video/mp4', 'video'],
		['mp4', 'audio/mp4', 'audio'],
		['3gpp', 'video/3gpp', 'video'],
		['ogg-opus', 'audio/ogg', 'audio'],
		['mpeg', 'audio/mpeg', 'audio'],
		['gif', 'image/gif', 'document'],
		['pdf', 'application/pdf', 'document'],
		[undefined, 'text/csv', 'document'],
		[undefined, 'image/jpeg', 'image'],
	] as const)('%s declared "%s" is sent as %s', (format, declared, kind) => {
		expect(mediaKindOfFile(format, declared)).toBe(kind);
	});
});

describe('helpers', () => {
	it('lists the accepted formats of a kind', () => {
		expect(acceptedFormatsOf('image')).toBe('JPEG or PNG');
		expect(acceptedFormatsOf('sticker')).toBe('WebP');
		expect(acceptedFormatsOf('document')).toBe('any format');
	});

	it('counts base64 bytes and decodes only the first ones', () => {
		for (const size of [0, 1, 2, 3, 4, 1000]) {
			const data = Buffer.alloc(size, 7);
			expect(base64ByteLength(data.toString('base64'))).toBe(size);
			expect(base64Head(data.toString('base64'), 64)).toEqual(data.subarray(0, 64));
		}
	});

	it('writes byte counts with thousands separators', () => {
		expect(formatByteCount(5_000_001)).toBe('5,000,001');
		expect(formatByteCount(999)).toBe('999');
	});
});
