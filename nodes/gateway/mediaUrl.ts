/**
 * Media given as a URL (docs/gateway.md: the node downloads it and uploads it, so the message still carries a media
 * id). Pure: no n8n imports. The download itself is in actions/media/uploadMedia.ts; what is decided about the
 * answer, the words of its failures, and the byte limit while it streams, are here and tested directly.
 *
 * A URL may carry a user and password (`https://user:secret@host/f.jpg`) or a token in its query: no text the node
 * builds holds more of it than its host (`hostOf`), and a value that is not a URL is shown without what looks like
 * credentials (`withoutCredentials`).
 */

import { formatByteCount } from './mediaFormat';
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

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/**
 * Where a download answer sends the node next: the Location of a redirect, resolved against the address asked;
 * undefined for any other answer (a redirect without a usable Location is an answer that is not a file).
 */
export function redirectTarget(statusCode: number, location: unknown, asked: string): string | undefined {
	if (!REDIRECT_STATUSES.has(statusCode) || typeof location !== 'string' || location.trim() === '') return undefined;
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
