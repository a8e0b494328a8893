/**
 * Request bodies of a known length that are read as they are sent. n8n Cloud refuses Node's stream module in a node,
 * and n8n's request helper (axios) sends a Blob-like object (`size`, `type`, `stream()`, the interface of the
 * platform's Blob) as it reads it, with Content-Length = `size`, never holding it whole. So a body says its exact size
 * up front and gives exactly that many bytes. Pure: no n8n imports.
 */
import { randomBytes } from 'crypto';

import { CHANNEL } from './spec';

/** A file's bytes: in memory, or read as they arrive (the binary stream n8n hands out is an async iterable). */
export type FileBytes = Uint8Array | AsyncIterable<Uint8Array>;

export abstract class BlobBody {
	/** The Content-Type the request announces. */
	abstract readonly type: string;
	/** Byte length of the whole body: the request announces it, so the body gives exactly that many bytes. */
	abstract readonly size: number;
	/** Called for each chunk the request takes from the body: the transport's idle deadline restarts on it. */
	onChunk?: () => void;
	/** True while the request waits for the body's source (a download) rather than the far end for the request. */
	waitingForSource = false;
	/** Why the body's source failed, when it did: the request was cut before its announced last byte. */
	sourceFailure: unknown;
	#opened = false;

	get [Symbol.toStringTag](): string {
		return 'Blob';
	}

	/**
	 * The body's bytes as they are sent; it is sent once (the bytes of a stream cannot be read twice). A body that
	 * cannot give its announced bytes ends with an error, so the request fails rather than sending another length.
	 */
	stream(): AsyncGenerator<Uint8Array> {
		if (this.#opened) throw new Error('This upload body was already sent; build a new one to send it again');
		this.#opened = true;
		return this.#counted();
	}

	protected abstract chunks(): AsyncGenerator<Uint8Array>;

	async *#counted(): AsyncGenerator<Uint8Array> {
		const source = this.chunks();
		try {
			for (;;) {
				let next: IteratorResult<Uint8Array>;
				this.waitingForSource = true;
				const pending = source.next();
				// Recorded for the transport; the await below throws the failure on to the request.
				pending.catch((error: unknown) => (this.sourceFailure = error));
				try {
					next = await pending;
				} finally {
					this.waitingForSource = false;
				}
				if (next.done) return;
				this.onChunk?.();
				yield next.value;
			}
		} finally {
			await source.return(undefined);
		}
	}
}

export function isBlobBody(body: unknown): body is BlobBody {
	return body instanceof BlobBody;
}

/** A whole file of a known size, passed through as its bytes arrive. */
export class FileBody extends BlobBody {
	readonly size: number;

	constructor(
		private readonly data: FileBytes,
		size: number,
		readonly type: string,
	) {
		super();
		this.size = size;
	}

	protected async *chunks(): AsyncGenerator<Uint8Array> {
		yield* bytesOfSize(this.data, this.size);
	}
}

/** The bytes of `data`, failing when they are more or fewer than `size` (nothing beyond `size` is given). */
export async function* bytesOfSize(data: FileBytes, size: number): AsyncGenerator<Uint8Array> {
	let sent = 0;
	if (data instanceof Uint8Array) {
		sent = data.length;
		if (sent === size) yield data;
	} else {
		for await (const chunk of data) {
			sent += chunk.length;
			if (sent > size) break;
			yield chunk;
		}
	}
	if (sent !== size) throw new Error(`The file has ${sent > size ? 'more' : 'fewer'} bytes than its announced ${size}`);
}

// ---- The media upload form (spec 2.7) ----

/**
 * The media upload form: the text field `messaging_product` and the file part `File`, as a `multipart/form-data`
 * body written here, a BlobBody: the file's bytes are passed through as they arrive, never gathered in memory.
 */
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
