/**
 * Media given as a URL (docs/gateway.md: the node downloads it and uploads it, so the message still carries a media id).
 * Pure: no n8n imports. The download itself is in actions/media/mediaFromUrl.ts; what is decided about the answer,
 * and the byte limit while it streams, is here and tested directly.
 */

import { formatByteCount } from './media';
import { MEDIA_FORMATS, type MediaFormat } from './mediaFormat';
import type { MediaKind } from './spec';

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
	return { problem: `"${text}" is not an http(s) address` };
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
	const quoted = /filename\*?=(?:UTF-8'')?"?([^";]+)"?/i.exec(disposition)?.[1];
	if (quoted) {
		try {
			return decodeURIComponent(quoted.trim());
		} catch {
			return quoted.trim();
		}
	}
	const segment = new URL(url).pathname.split('/').pop() ?? '';
	if (segment !== '') {
		try {
			return decodeURIComponent(segment);
		} catch {
			return segment;
		}
	}
	const extension = format ? MEDIA_FORMATS[format].mimeTypes[0].split('/')[1] : 'bin';
	return `${kind}.${extension}`;
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
