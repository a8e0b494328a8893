/**
 * Media files: what a file is, from its first bytes and the content types that name each format (common formats the
 * network refuses too, so that a refusal can say what the file is); the checks of spec section 8 before anything is
 * uploaded (a format its kind accepts, spec.ts MEDIA_LIMITS, within the kind's decimal size limit); and media given as
 * a URL. Pure: no n8n imports; the sandbox gateway uses the same checks for what it accepts.
 */
import { MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from './spec';

/** Bytes a caller reads from the start of a file: every signature below lies within them. */
export const SIGNATURE_BYTES = 64;

export const MEDIA_FORMATS = {
	jpeg: { label: 'JPEG', mimeTypes: ['image/jpeg', 'image/jpg', 'image/pjpeg'] },
	png: { label: 'PNG', mimeTypes: ['image/png'] },
	gif: { label: 'GIF', mimeTypes: ['image/gif'] },
	webp: { label: 'WebP', mimeTypes: ['image/webp'] },
	bmp: { label: 'BMP', mimeTypes: ['image/bmp', 'image/x-ms-bmp'] },
	tiff: { label: 'TIFF', mimeTypes: ['image/tiff'] },
	heif: { label: 'HEIF/HEIC', mimeTypes: ['image/heif', 'image/heic'] },
	avif: { label: 'AVIF', mimeTypes: ['image/avif'] },
	pdf: { label: 'PDF', mimeTypes: ['application/pdf'] },
	zip: { label: 'ZIP', mimeTypes: ['application/zip', 'application/x-zip-compressed'] },
	mp4: {
		label: 'MP4',
		mimeTypes: ['video/mp4', 'audio/mp4', 'audio/m4a', 'audio/x-m4a', 'video/x-m4v', 'application/mp4'],
	},
	'3gpp': { label: '3GPP', mimeTypes: ['video/3gpp', 'audio/3gpp', 'video/3gpp2', 'audio/3gpp2'] },
	quicktime: { label: 'QuickTime (MOV)', mimeTypes: ['video/quicktime'] },
	matroska: { label: 'WebM/Matroska', mimeTypes: ['video/webm', 'audio/webm', 'video/x-matroska'] },
	avi: { label: 'AVI', mimeTypes: ['video/x-msvideo', 'video/avi'] },
	aac: { label: 'AAC', mimeTypes: ['audio/aac', 'audio/x-aac', 'audio/aacp'] },
	mpeg: { label: 'MPEG audio (MP3)', mimeTypes: ['audio/mpeg', 'audio/mp3', 'audio/mpeg3', 'audio/x-mpeg'] },
	amr: { label: 'AMR', mimeTypes: ['audio/amr'] },
	'amr-wb': { label: 'AMR-WB', mimeTypes: ['audio/amr-wb'] },
	'ogg-opus': { label: 'OGG Opus', mimeTypes: ['audio/ogg', 'audio/opus'] },
	'ogg-vorbis': { label: 'OGG Vorbis', mimeTypes: ['audio/ogg', 'audio/vorbis'] },
	ogg: { label: 'OGG', mimeTypes: ['audio/ogg', 'video/ogg', 'application/ogg'] },
	wav: { label: 'WAV', mimeTypes: ['audio/wav', 'audio/x-wav', 'audio/wave'] },
	flac: { label: 'FLAC', mimeTypes: ['audio/flac', 'audio/x-flac'] },
} as const;

export type MediaFormat = keyof typeof MEDIA_FORMATS;

const ascii = (bytes: Uint8Array, from: number, length: number): string =>
	String.fromCharCode(...bytes.subarray(from, from + length));

const startsWith = (bytes: Uint8Array, signature: readonly number[], at = 0): boolean =>
	signature.every((byte, i) => bytes[at + i] === byte);

/** Brands of the ISO base media file format (`ftyp` box) by the format they mean. */
function isoBrandFormat(brand: string): MediaFormat {
	if (brand.startsWith('3g')) return '3gpp';
	if (brand === 'qt  ') return 'quicktime';
	if (['heic', 'heix', 'heim', 'heis', 'hevc', 'hevx', 'mif1', 'msf1'].includes(brand)) return 'heif';
	if (brand === 'avif' || brand === 'avis') return 'avif';
	return 'mp4';
}

/** The format of a file from its first bytes (at least SIGNATURE_BYTES when the file has them), or undefined. */
export function detectMediaFormat(head: Uint8Array): MediaFormat | undefined {
	if (startsWith(head, [0xff, 0xd8, 0xff])) return 'jpeg';
	if (startsWith(head, [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a])) return 'png';
	const text4 = ascii(head, 0, 4);
	if (text4 === 'GIF8') return 'gif';
	if (text4 === 'RIFF') {
		const riffType = ascii(head, 8, 4);
		if (riffType === 'WEBP') return 'webp';
		if (riffType === 'WAVE') return 'wav';
		if (riffType === 'AVI ') return 'avi';
		return undefined;
	}
	if (ascii(head, 4, 4) === 'ftyp') return isoBrandFormat(ascii(head, 8, 4));
	if (text4 === '%PDF') return 'pdf';
	if (startsWith(head, [0x50, 0x4b, 0x03, 0x04])) return 'zip';
	if (text4 === 'OggS') {
		// The first page carries the codec's identification header right after the page header.
		const firstPage = ascii(head, 0, head.length);
		if (firstPage.includes('OpusHead')) return 'ogg-opus';
		if (firstPage.includes('\x01vorbis')) return 'ogg-vorbis';
		return 'ogg';
	}
	if (ascii(head, 0, 9) === '#!AMR-WB\n') return 'amr-wb';
	if (ascii(head, 0, 6) === '#!AMR\n') return 'amr';
	if (text4 === 'fLaC') return 'flac';
	if (text4 === 'ADIF') return 'aac';
	if (startsWith(head, [0x1a, 0x45, 0xdf, 0xa3])) return 'matroska';
	if (ascii(head, 0, 3) === 'ID3') return 'mpeg';
	if (head[0] === 0xff && head.length > 1) {
		// Frame sync (11 bits set); the layer bits are 00 in AAC's ADTS header and non-zero in MPEG audio.
		if ((head[1] & 0xf6) === 0xf0) return 'aac';
		if ((head[1] & 0xe0) === 0xe0 && (head[1] & 0x06) !== 0) return 'mpeg';
	}
	if (text4 === 'II*\0' || text4 === 'MM\0*') return 'tiff';
	if (ascii(head, 0, 2) === 'BM' && head.length >= 14 && head[6] === 0 && head[7] === 0 && head[8] === 0 && head[9] === 0) {
		return 'bmp';
	}
	return undefined;
}

/** `Image/JPEG; charset=x` → `image/jpeg`. */
export function mimeEssence(mimeType: string): string {
	return mimeType.split(';')[0].trim().toLowerCase();
}

/** Content types that say nothing about the format: the file's bytes decide. */
const UNSPECIFIC_TYPES = ['', 'application/octet-stream', 'binary/octet-stream', 'application/unknown'];

export function isUnspecificMimeType(mimeType: string): boolean {
	return UNSPECIFIC_TYPES.includes(mimeEssence(mimeType));
}

/** The known formats a content type names (several for `audio/ogg`), empty for a type this module does not know. */
export function formatsNamedBy(mimeType: string): MediaFormat[] {
	const essence = mimeEssence(mimeType);
	return (Object.keys(MEDIA_FORMATS) as MediaFormat[]).filter((format) =>
		(MEDIA_FORMATS[format].mimeTypes as readonly string[]).includes(essence),
	);
}

export function formatLabel(format: MediaFormat | undefined): string {
	return format === undefined ? 'not a format it recognises' : MEDIA_FORMATS[format].label;
}

// ---- The checks of spec section 8 ----

export function isMediaKind(value: unknown): value is MediaKind {
	return typeof value === 'string' && (MEDIA_KINDS as readonly string[]).includes(value);
}

/** `5000001` → `5,000,001`, independent of the machine's locale. */
export function formatByteCount(bytes: number): string {
	return String(bytes).replace(/\B(?=(\d{3})+(?!\d))/g, ',');
}

/** `JPEG or PNG`, `AAC, MP4, MPEG audio (MP3), AMR or OGG Opus`, `any format` for documents. */
export function acceptedFormatsOf(kind: MediaKind): string {
	const formats = MEDIA_LIMITS[kind].formats;
	if (formats === null) return 'any format';
	const labels = formats.map(({ format }) => MEDIA_FORMATS[format].label);
	return labels.length === 1 ? labels[0] : `${labels.slice(0, -1).join(', ')} or ${labels[labels.length - 1]}`;
}

/**
 * The kind a file is sent as when the user leaves it to the file: the kind that accepts its format (an MP4 is a
 * video unless its content type says audio), anything else a document. Bytes of no known format go by the declared
 * type, so that a damaged JPEG is refused as an image rather than passed on as a document labelled image/jpeg.
 */
export function mediaKindOfFile(detected: MediaFormat | undefined, mimeType: string): MediaKind {
	const format = detected ?? formatsNamedBy(mimeType)[0];
	if (format === 'mp4') return mimeEssence(mimeType).startsWith('audio/') ? 'audio' : 'video';
	const kind = (['image', 'sticker', 'video', 'audio'] as const).find((candidate) =>
		MEDIA_LIMITS[candidate].formats?.some((accepted) => accepted.format === format),
	);
	return kind ?? 'document';
}

export interface MediaFile {
	/** The content type the binary declares ('' when it has none). */
	mimeType: string;
	size: number;
	/** The file's first bytes: SIGNATURE_BYTES of them, or the whole file when it is shorter. */
	head: Uint8Array;
}

export type MediaVerdict =
	| { ok: true; kind: MediaKind; format: MediaFormat | undefined; mimeType: string }
	| { ok: false; kind: MediaKind; format: MediaFormat | undefined; reason: string };

/**
 * Whether the gateway would accept this file as this kind of media (the kind from the file when not given), and the
 * content type to upload it with: the kind's own type for its format (`image/jpg` goes up as `image/jpeg`, opus
 * audio as `audio/ogg; codecs=opus`), the declared one for a document.
 */
export function checkMediaFile(file: MediaFile, requestedKind?: MediaKind): MediaVerdict {
	const format = detectMediaFormat(file.head);
	const kind = requestedKind ?? mediaKindOfFile(format, file.mimeType);
	const refuse = (reason: string): MediaVerdict => ({ ok: false, kind, format, reason });
	const { maxBytes, label, formats } = MEDIA_LIMITS[kind];

	if (file.size > maxBytes) {
		return refuse(
			`The file is ${formatByteCount(file.size)} bytes; ${kind} files are at most ${label} (${formatByteCount(maxBytes)} bytes)`,
		);
	}

	// A declared type that names another known format than the bytes show would make the network misread the file.
	const declared = mimeEssence(file.mimeType);
	const named = formatsNamedBy(file.mimeType);
	if (format !== undefined && named.length > 0 && !named.includes(format)) {
		return refuse(
			`The file is declared ${declared} but its content is ${formatLabel(format)}; correct its MIME type or convert it`,
		);
	}

	if (formats === null) {
		return { ok: true, kind, format, mimeType: isUnspecificMimeType(file.mimeType) ? 'application/octet-stream' : file.mimeType };
	}
	const accepted = formats.find((candidate) => candidate.format === format);
	if (!accepted) {
		const what =
			format === undefined
				? `is ${formatLabel(format)}${declared ? ` (declared ${declared})` : ''}`
				: `is ${formatLabel(format)}`;
		const kindName = kind.charAt(0).toUpperCase() + kind.slice(1);
		return refuse(`${kindName} files must be ${acceptedFormatsOf(kind)}; this file ${what}. Convert it, or send it as a document`);
	}
	return { ok: true, kind, format, mimeType: accepted.mimeType };
}

/** Byte length of base64 data without decoding it. */
export function base64ByteLength(base64: string): number {
	const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
	return Math.floor((base64.length * 3) / 4) - padding;
}

/** The first `bytes` bytes of base64 data, decoding only those. */
export function base64Head(base64: string, bytes: number): Buffer {
	return Buffer.from(base64.slice(0, Math.ceil(bytes / 3) * 4), 'base64').subarray(0, bytes);
}

// ---- Media given as a URL ----
// The node downloads it and uploads it, so the message still carries a media id (docs/gateway.md); the download is in
// actions/media/uploadMedia.ts, what is decided about its answer is here. A URL may carry a user and password or a
// token: no text the node builds holds more of it than its host (`hostOf`, `withoutCredentials`).

/** An http(s) URL, or why the value is not one. */
export function readMediaUrl(value: unknown): { url: string } | { problem: string } {
	const text = typeof value === 'string' ? value.trim() : '';
	if (text === '') return { problem: 'is empty; enter the http(s) address of the file' };
	try {
		const url = new URL(text);
		if (url.protocol === 'http:' || url.protocol === 'https:') return { url: url.href };
	} catch {
		// Not a URL at all: said below.
	}
	return { problem: `"${withoutCredentials(text)}" is not an http(s) address` };
}

/** The host (and port) of a URL, all that errors show of it: never its user, password, path or query. */
export function hostOf(url: string): string {
	try {
		return new URL(url).host;
	} catch {
		return 'the file host';
	}
}

/** A text shown as typed, with anything between `//` and `@` (a user and password) and any query left out. */
export function withoutCredentials(text: string): string {
	return text.replace(/\/\/[^/?#]*@/g, '//***@').replace(/\?.*$/s, '?***');
}

/** What a network code of a failed download means, in words (n8n replaces a message holding the code itself). */
export function describeDownloadNetworkError(code: string | undefined): string {
	switch (code) {
		case 'ECONNREFUSED':
			return 'the connection was refused (is the file host running, and the port right?)';
		case 'ENOTFOUND':
		case 'EAI_AGAIN':
			return 'the host name was not found';
		case 'ECONNRESET':
			return 'the connection was closed before the whole file came';
		case 'EHOSTUNREACH':
		case 'ENETUNREACH':
			return 'the host cannot be reached from n8n';
		case 'ERR_FR_TOO_MANY_REDIRECTS':
		case 'ERR_FR_MAX_BODY_LENGTH_EXCEEDED':
			return TOO_MANY_REDIRECTS;
		case 'CERT_HAS_EXPIRED':
		case 'DEPTH_ZERO_SELF_SIGNED_CERT':
		case 'SELF_SIGNED_CERT_IN_CHAIN':
		case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
		case 'ERR_TLS_CERT_ALTNAME_INVALID':
			return 'its https certificate is not valid';
		default:
			return 'a network error';
	}
}

/** How many redirects a download follows. */
export const MAX_DOWNLOAD_REDIRECTS = 3;
export const TOO_MANY_REDIRECTS = `it redirected more than ${MAX_DOWNLOAD_REDIRECTS} times`;

/**
 * Where a download answer sends the node next: the Location of a redirect, resolved against the address asked;
 * undefined for any other answer (a redirect without a usable Location is an answer that is not a file).
 */
export function redirectTarget(statusCode: number, location: unknown, asked: string): string | undefined {
	if (![301, 302, 303, 307, 308].includes(statusCode) || typeof location !== 'string' || location.trim() === '') return undefined;
	try {
		return new URL(location.trim(), asked).toString();
	} catch {
		return undefined;
	}
}

/** A Content-Length header as a byte count; undefined when absent or not a number (a chunked answer). */
export function declaredLengthOf(header: unknown): number | undefined {
	const text = Array.isArray(header) ? header[0] : header;
	if (typeof text !== 'string' && typeof text !== 'number') return undefined;
	const value = Number(text);
	return Number.isSafeInteger(value) && value >= 0 ? value : undefined;
}

/** The content type of an answer without its parameters' case issues; '' when none. */
export function declaredTypeOf(header: unknown): string {
	const text = Array.isArray(header) ? header[0] : header;
	return typeof text === 'string' ? text.trim() : '';
}

/**
 * The file name the upload carries: the answer's Content-Disposition file name, else the URL's last path segment,
 * else `<kind>.<extension of its format>`.
 */
export function fileNameOfDownload(
	url: string,
	contentDisposition: unknown,
	kind: MediaKind,
	format: MediaFormat | undefined,
): string {
	const disposition = declaredTypeOf(contentDisposition);
	const quoted = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1]?.trim();
	const segment = new URL(url).pathname.split('/').pop();
	const named = quoted || segment;
	if (named) return decodedOr(named);
	const extension = format ? MEDIA_FORMATS[format].mimeTypes[0].split('/')[1] : 'bin';
	return `${kind}.${extension}`;
}

/** A percent-encoded name decoded, or as it is when it is not valid percent-encoding. */
function decodedOr(text: string): string {
	try {
		return decodeURIComponent(text);
	} catch {
		return text;
	}
}

/** Thrown by a limited stream when the file passes its kind's limit. */
export class MediaTooLargeError extends Error {
	constructor(
		readonly kind: MediaKind,
		readonly maxBytes: number,
		label: string,
	) {
		super(`The file is larger than ${formatByteCount(maxBytes)} bytes; ${kind} files are at most ${label}`);
	}
}

/**
 * The first `bytes` bytes of a download, and the whole file (those bytes first) as bytes that fail past `maxBytes`.
 * Leaving the whole file's loop early (an upload refused or aborted) ends the download too.
 */
export async function peekHead(
	source: AsyncIterable<Uint8Array>,
	bytes: number,
): Promise<{ head: Buffer; whole: (limit: { kind: MediaKind; maxBytes: number; label: string }) => AsyncGenerator<Buffer> }> {
	const iterator = source[Symbol.asyncIterator]();
	const first: Buffer[] = [];
	let read = 0;
	let ended = false;
	while (read < bytes) {
		const next = await iterator.next();
		if (next.done) {
			ended = true;
			break;
		}
		const chunk = Buffer.from(next.value);
		first.push(chunk);
		read += chunk.length;
	}
	const head = Buffer.concat(first).subarray(0, bytes);
	async function* whole(limit: { kind: MediaKind; maxBytes: number; label: string }): AsyncGenerator<Buffer> {
		let total = 0;
		const counted = (chunk: Buffer) => {
			total += chunk.length;
			if (total > limit.maxBytes) throw new MediaTooLargeError(limit.kind, limit.maxBytes, limit.label);
			return chunk;
		};
		let done = ended;
		try {
			for (const chunk of first) yield counted(chunk);
			while (!done) {
				const next = await iterator.next();
				done = next.done === true;
				if (!next.done) yield counted(Buffer.from(next.value));
			}
		} finally {
			if (!done) await iterator.return?.();
		}
	}
	return { head, whole };
}

/** The whole file in memory (a download without Content-Length, from a limited `whole` of peekHead). */
export async function readAll(bytes: AsyncIterable<Uint8Array>): Promise<Buffer> {
	const chunks: Buffer[] = [];
	for await (const chunk of bytes) chunks.push(Buffer.from(chunk));
	return Buffer.concat(chunks);
}
