/**
 * Media checks of spec section 8, before anything is uploaded: the file's format (from its first bytes and its
 * declared content type) must be one its kind accepts, and its size within the kind's decimal limit. Pure: no n8n
 * imports; the sandbox gateway uses the same checks for what it accepts.
 */
import {
	detectMediaFormat,
	formatLabel,
	formatsNamedBy,
	isUnspecificMimeType,
	MEDIA_FORMATS,
	mimeEssence,
	type MediaFormat,
} from './mediaFormat';
import { MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from './spec';

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
