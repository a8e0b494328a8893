/**
 * The media upload form (spec 2.7): the text field `messaging_product` and the file part `File`, as a
 * `multipart/form-data` body written here. The package has no runtime dependencies and n8n Cloud refuses Node's
 * stream module in a node, so the body is a Blob-like object (`size`, `type`, `stream()`, the interface of the
 * platform's Blob), which n8n's request helper (axios) sends as it reads it, with the exact Content-Length: the file's
 * bytes are passed through as they arrive, never gathered in memory. Pure: no n8n imports.
 */
import { randomBytes } from 'crypto';

import { CHANNEL } from './spec';

/** A file's bytes: in memory, or read as they arrive (the binary stream n8n hands out is an async iterable). */
export type FileBytes = Uint8Array | AsyncIterable<Uint8Array>;

export interface MediaUploadFile {
	data: FileBytes;
	fileName: string;
	mimeType: string;
	/** The file's byte size: the body announces its length up front, so it must be exact. */
	size: number;
}

/** A quoted parameter of a part's header; the characters that would end it are escaped as browsers do (WHATWG). */
function quoted(value: string): string {
	return value.replace(/\r/g, '%0D').replace(/\n/g, '%0A').replace(/"/g, '%22');
}

/** A header value on one line: a line break in a content type would start a header of the part. */
function oneLine(value: string): string {
	return value.replace(/[\r\n]+/g, ' ');
}

/**
 * A `multipart/form-data` body whose file part is read when the body is sent. It is sent once: the bytes of a stream
 * cannot be read twice (n8n's binary stream is opened again for another upload).
 */
export class MultipartBody {
	/** Content type with the boundary, as the request must announce it. */
	readonly type: string;
	/** Byte length of the whole body. */
	readonly size: number;
	/** Called for each chunk the request takes from the body: the transport's idle deadline restarts on it. */
	onChunk?: () => void;
	readonly #head: Uint8Array;
	readonly #tail: Uint8Array;
	readonly #file: FileBytes;
	readonly #fileSize: number;
	#opened = false;

	constructor(fields: Record<string, string>, fileField: string, file: MediaUploadFile, boundary = newBoundary()) {
		let head = '';
		for (const [name, value] of Object.entries(fields)) {
			head += `--${boundary}\r\nContent-Disposition: form-data; name="${quoted(name)}"\r\n\r\n${value}\r\n`;
		}
		head +=
			`--${boundary}\r\nContent-Disposition: form-data; name="${quoted(fileField)}"; filename="${quoted(file.fileName)}"\r\n` +
			`Content-Type: ${oneLine(file.mimeType)}\r\n\r\n`;
		this.#head = Buffer.from(head, 'utf8');
		this.#tail = Buffer.from(`\r\n--${boundary}--\r\n`, 'utf8');
		this.#file = file.data;
		this.#fileSize = file.size;
		this.type = `multipart/form-data; boundary=${boundary}`;
		this.size = this.#head.length + file.size + this.#tail.length;
	}

	get [Symbol.toStringTag](): string {
		return 'Blob';
	}

	/** The body's bytes as they are sent. A file of another length than announced ends the body with an error. */
	stream(): AsyncGenerator<Uint8Array> {
		if (this.#opened) throw new Error('This upload body was already sent; build a new one to send the file again');
		this.#opened = true;
		return this.#bytes();
	}

	async *#bytes(): AsyncGenerator<Uint8Array> {
		for await (const chunk of this.#parts()) {
			this.onChunk?.();
			yield chunk;
		}
	}

	async *#parts(): AsyncGenerator<Uint8Array> {
		yield this.#head;
		let sent = 0;
		if (this.#file instanceof Uint8Array) {
			sent = this.#file.length;
			yield this.#file;
		} else {
			for await (const chunk of this.#file) {
				sent += chunk.length;
				if (sent > this.#fileSize) break;
				yield chunk;
			}
		}
		if (sent !== this.#fileSize) {
			throw new Error(`The file has ${sent > this.#fileSize ? 'more' : 'fewer'} bytes than its announced ${this.#fileSize}`);
		}
		yield this.#tail;
	}
}

/** 16 random bytes in hex: a boundary that no file contains by chance, within the 70 characters RFC 2046 allows. */
function newBoundary(): string {
	return `----n8nMessagingGateway${randomBytes(16).toString('hex')}`;
}

export function createMediaUploadBody(file: MediaUploadFile): MultipartBody {
	return new MultipartBody({ messaging_product: CHANNEL }, 'File', file);
}

export function isMultipartBody(body: unknown): body is MultipartBody {
	return body instanceof MultipartBody;
}
