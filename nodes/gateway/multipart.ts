/**
 * The media upload form (spec 2.7): the text field `messaging_product` and the file part `File`, as a
 * `multipart/form-data` body written here. The package has no runtime dependencies and n8n Cloud refuses Node's
 * stream module in a node, so the body is a BlobBody (blobBody.ts), which n8n's request helper sends as it reads it,
 * with the exact Content-Length: the file's bytes are passed through as they arrive, never gathered in memory.
 * Pure: no n8n imports.
 */
import { randomBytes } from 'crypto';

import { BlobBody, bytesOfSize, type FileBytes } from './blobBody';
import { CHANNEL } from './spec';

export type { FileBytes } from './blobBody';

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
export class MultipartBody extends BlobBody {
	/** Content type with the boundary, as the request must announce it. */
	readonly type: string;
	/** Byte length of the whole body. */
	readonly size: number;
	readonly #head: Uint8Array;
	readonly #tail: Uint8Array;
	readonly #file: FileBytes;
	readonly #fileSize: number;

	constructor(fields: Record<string, string>, fileField: string, file: MediaUploadFile, boundary = newBoundary()) {
		super();
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

	/** The body's bytes as they are sent. A file of another length than announced ends the body with an error. */
	protected async *chunks(): AsyncGenerator<Uint8Array> {
		yield this.#head;
		yield* bytesOfSize(this.#file, this.#fileSize);
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
