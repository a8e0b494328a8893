/** Media checks of spec section 8, before anything is uploaded. Pure: no n8n imports. */
import { MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from './spec';

/** The media kind a file's content type suggests: webp images are stickers, anything unknown a document. */
export function mediaKindOf(mimeType: string): MediaKind {
	const type = mimeType.split(';')[0].trim().toLowerCase();
	if (MEDIA_LIMITS.sticker.mimeTypes?.includes(type)) return 'sticker';
	const family = type.split('/')[0];
	if (family === 'image' || family === 'audio' || family === 'video') return family;
	return 'document';
}

export function isMediaKind(value: unknown): value is MediaKind {
	return typeof value === 'string' && (MEDIA_KINDS as readonly string[]).includes(value);
}

export function formatBytes(bytes: number): string {
	if (bytes >= 1024 * 1024) return `${(bytes / (1024 * 1024)).toFixed(1)} MB`;
	if (bytes >= 1024) return `${(bytes / 1024).toFixed(1)} KB`;
	return `${bytes} bytes`;
}

/** Why the gateway would refuse this file as this kind of media, or undefined when it is fine to upload. */
export function mediaRefusal(kind: MediaKind, mimeType: string, size: number | undefined): string | undefined {
	const limit = MEDIA_LIMITS[kind];
	if (size !== undefined && size > limit.maxBytes) {
		return `The file is ${formatBytes(size)}; the gateway accepts ${kind} files of at most ${limit.label}`;
	}
	const type = mimeType.toLowerCase().replace(/\s+/g, '');
	if (kind === 'audio' && type.startsWith('audio/ogg') && !/codecs="?opus/.test(type)) {
		return 'Audio in plain audio/ogg is not supported: the network accepts ogg audio only with the opus codec (audio/ogg; codecs=opus). Convert it, or send it as a document';
	}
	return undefined;
}

/** Byte length of base64 data without decoding it. */
export function base64ByteLength(base64: string): number {
	const padding = base64.endsWith('==') ? 2 : base64.endsWith('=') ? 1 : 0;
	return Math.floor((base64.length * 3) / 4) - padding;
}
