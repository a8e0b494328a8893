/**
 * Request bodies of a known length that are read as they are sent. n8n Cloud refuses Node's stream module in a node,
 * and n8n's request helper (axios) sends a Blob-like object (`size`, `type`, `stream()`, the interface of the
 * platform's Blob) as it reads it, with Content-Length = `size`, never holding it whole. So a body says its exact size
 * up front and gives exactly that many bytes. Pure: no n8n imports.
 */

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
