/**
 * Splitting a person file into parts of at most N bytes (spec section 8: 1 GB per file, NOTES.md: cut at a record
 * boundary, CSV header repeated, each JSON part a complete array).
 *
 * `splitPersonFile` is an async generator of parts. Each part is a Readable that pulls records from the source only
 * as the consumer reads it, so a part is produced while it is sent and never held in memory; its byte length is not
 * known in advance (send it with chunked transfer). Read each part to its end (or destroy it) before asking for the
 * next one: the parts share one source, and the next part starts with the record that did not fit.
 */
import { Readable } from 'node:stream';

import { PERSON_FILE_MAX_BYTES } from '../../gateway/spec';
import type { PersonColumns, PersonRow } from './fields';
import { CHUNK_CHARS, type PersonFileFormat } from './writers';

/** UTF-8 takes at most 3 bytes per UTF-16 code unit (a surrogate pair, 2 units, takes 4). */
const MAX_UTF8_BYTES_PER_CHAR = 3;

/** A valid record and the input item (or file record) it came from. */
export interface SourceRecord {
	itemIndex: number;
	row: PersonRow;
}

export interface PersonFilePartSummary {
	/** Position of the part, from 0. */
	index: number;
	records: number;
	bytes: number;
	/**
	 * The items whose records are in this part, as inclusive ranges in order, flat: `first, last, first, last, ...`.
	 * Flat because skipping every other item makes half a million ranges, which as [first, last] arrays cost ~70
	 * bytes each against 16.
	 */
	itemRanges: number[];
}

export interface PersonFilePart {
	index: number;
	/** The part's bytes, produced while they are read. */
	stream: Readable;
	/** Settles when the last byte is produced; fails when the stream is destroyed first or the source fails. */
	finished: Promise<PersonFilePartSummary>;
	/** What the part has taken so far (complete once `finished` resolves): for reporting a part that failed. */
	summary: PersonFilePartSummary;
	/**
	 * The error that ended the part from inside (the source failed, a record too large), as opposed to its reader
	 * going away: the HTTP client only sees its body break, this says why.
	 */
	failure(): Error | undefined;
	/** Ends the part after `records` records at most (a retry replaying an earlier part); call before reading it. */
	limitRecords(records: number): void;
}

export interface SplitOptions {
	format: PersonFileFormat;
	/** The columns of the CSV header; by default those of the first record (JSON records carry their own). */
	columns?: PersonColumns;
	/** Largest part in bytes; PERSON_FILE_MAX_BYTES unless set (tests use small parts). */
	maxPartBytes?: number;
}

/** A single record that does not fit into a part on its own. */
export class RecordTooLargeError extends Error {
	constructor(
		readonly itemIndex: number,
		readonly bytes: number,
		readonly maxPartBytes: number,
	) {
		super(`The record of item ${itemIndex} needs ${bytes} bytes in a file, more than the part size of ${maxPartBytes}`);
		this.name = 'RecordTooLargeError';
	}
}

type Source = Iterator<SourceRecord> | AsyncIterator<SourceRecord>;

function iteratorOf(records: Iterable<SourceRecord> | AsyncIterable<SourceRecord>): Source {
	return Symbol.asyncIterator in records
		? (records as AsyncIterable<SourceRecord>)[Symbol.asyncIterator]()
		: (records as Iterable<SourceRecord>)[Symbol.iterator]();
}

/** The shared source of records with one record of look-ahead (the one that did not fit into the previous part). */
class RecordSource {
	private pending: SourceRecord | undefined;
	/** The source's failure when it came before a part started: the part that reads it fails with it. */
	private failure: unknown;
	/** Dropped at the end: the iterator's closure may hold all input items, and a sent part outlives the upload. */
	private iterator: Source | undefined;

	constructor(iterator: Source) {
		this.iterator = iterator;
	}

	/** The next record, or undefined at the end. Returns a promise only when the source is asynchronous. */
	next(): SourceRecord | undefined | Promise<SourceRecord | undefined> {
		if (this.failure !== undefined) {
			const failure = this.failure;
			this.failure = undefined;
			throw failure;
		}
		if (this.pending) {
			const record = this.pending;
			this.pending = undefined;
			return record;
		}
		if (this.iterator === undefined) return undefined;
		const result = this.iterator.next();
		if (result instanceof Promise) return result.then((settled) => this.take(settled));
		return this.take(result);
	}

	putBack(record: SourceRecord): void {
		this.pending = record;
	}

	/**
	 * The next record, left to be taken again, or undefined at the end. A source that fails here (a record that
	 * cannot be written) has its failure kept for the next `next()`, so that it ends a part like any record's failure.
	 */
	async peek(): Promise<SourceRecord | undefined | 'failed'> {
		try {
			const record = await this.next();
			if (record !== undefined) this.putBack(record);
			return record;
		} catch (error) {
			this.iterator = undefined;
			this.failure = error ?? new Error('The records could not be read');
			return 'failed';
		}
	}

	private take(result: IteratorResult<SourceRecord>): SourceRecord | undefined {
		if (result.done) {
			this.iterator = undefined;
			return undefined;
		}
		return result.value;
	}
}

class PartStream extends Readable {
	readonly summary: PersonFilePartSummary;
	private readonly endText: string;
	private readonly endBytes: number;
	private started = false;
	private pumping = false;
	private done = false;
	/** Dropped once the part is done: a sent part may be kept by the HTTP client after the upload (its request). */
	private source: RecordSource | undefined;
	private resolveFinished!: (summary: PersonFilePartSummary) => void;
	private rejectFinished!: (error: Error) => void;
	readonly finished = new Promise<PersonFilePartSummary>((resolve, reject) => {
		this.resolveFinished = resolve;
		this.rejectFinished = reject;
	});

	constructor(
		index: number,
		source: RecordSource,
		private readonly format: PersonFileFormat,
		private readonly columns: PersonColumns,
		private readonly maxPartBytes: number,
	) {
		super();
		this.source = source;
		this.summary = { index, records: 0, bytes: 0, itemRanges: [] };
		this.endText = format.end();
		this.endBytes = Buffer.byteLength(this.endText);
		// A consumer that never awaits `finished` must not cause an unhandled rejection.
		this.finished.catch(() => undefined);
	}

	/** Set when the part failed from inside (see PersonFilePart.failure). */
	sourceError: Error | undefined;

	/** The part ends after this many records even when the next one would fit (PersonFilePart.limitRecords). */
	maxRecords = Infinity;

	override _read(): void {
		if (this.pumping || this.done) return;
		this.pumping = true;
		this.pump().catch((error: unknown) => {
			this.sourceError = error instanceof Error ? error : new Error(String(error));
			this.destroy(this.sourceError);
		});
	}

	override _destroy(error: Error | null, callback: (error?: Error | null) => void): void {
		if (!this.done) this.rejectFinished(error ?? new Error('The part was closed before it was completely read'));
		this.source = undefined;
		callback(error);
	}

	/**
	 * Fills one chunk of records and pushes it; ends the part when the next record does not fit or none is left.
	 * Bytes are counted per chunk when it is pushed; a record is measured on its own (which costs a copy of it) only
	 * near the end of the part, where "fits even at 3 bytes a character" no longer settles whether it fits.
	 */
	private async pump(): Promise<void> {
		const source = this.source;
		if (source === undefined) return;
		let chunk = '';
		/** Exact UTF-8 bytes of `chunk` once counting is needed (near the end of the part), else -1. */
		let chunkBytes = -1;
		if (!this.started) {
			this.started = true;
			chunk = this.format.start(this.columns);
		}
		const summary = this.summary;
		while (chunk.length < CHUNK_CHARS) {
			if (summary.records >= this.maxRecords) {
				this.finish(chunk);
				return;
			}
			let record = source.next();
			if (record instanceof Promise) record = await record;
			if (record === undefined) {
				this.finish(chunk);
				return;
			}
			const text = this.format.record(record.row, summary.records);
			let fits = summary.bytes + MAX_UTF8_BYTES_PER_CHAR * (chunk.length + text.length) + this.endBytes <= this.maxPartBytes;
			if (!fits || chunkBytes >= 0) {
				if (chunkBytes < 0) chunkBytes = Buffer.byteLength(chunk);
				const bytes = Buffer.byteLength(text);
				fits = summary.bytes + chunkBytes + bytes + this.endBytes <= this.maxPartBytes;
				if (fits) chunkBytes += bytes;
				else if (summary.records === 0) {
					const alone = Buffer.byteLength(this.format.start(this.columns)) + bytes + this.endBytes;
					throw new RecordTooLargeError(record.itemIndex, alone, this.maxPartBytes);
				}
			}
			if (!fits) {
				// The record starts the next part.
				source.putBack(record);
				this.finish(chunk);
				return;
			}
			summary.records++;
			const ranges = summary.itemRanges;
			if (ranges.length > 0 && ranges[ranges.length - 1] + 1 === record.itemIndex) ranges[ranges.length - 1]++;
			else ranges.push(record.itemIndex, record.itemIndex);
			chunk += text;
		}
		// Cleared before pushing: a push may call _read again at once, which must start the next pump.
		this.pumping = false;
		this.pushText(chunk);
	}

	/** Pushes text as bytes, counting them. */
	private pushText(text: string): void {
		const bytes = Buffer.from(text, 'utf8');
		this.summary.bytes += bytes.length;
		this.push(bytes);
	}

	private finish(chunk: string): void {
		this.done = true;
		this.source = undefined;
		this.pushText(chunk + this.endText);
		this.push(null);
		this.resolveFinished(this.summary);
	}
}

/**
 * The parts of a person file made of `records`, in order; no part when there is no record. Records that do not fit
 * into the current part start the next one; a record too large for any part fails that part's stream with a
 * `RecordTooLargeError` naming its item.
 */
export async function* splitPersonFile(
	records: Iterable<SourceRecord> | AsyncIterable<SourceRecord>,
	options: SplitOptions,
): AsyncGenerator<PersonFilePart> {
	const maxPartBytes = options.maxPartBytes ?? PERSON_FILE_MAX_BYTES;
	const source = new RecordSource(iteratorOf(records));
	for (let index = 0; ; index++) {
		const first = await source.peek();
		if (first === undefined) return;
		const columns = options.columns ?? (first === 'failed' ? { fields: [], attributes: [] } : first.row.columns);
		const stream = new PartStream(index, source, options.format, columns, maxPartBytes);
		yield {
			index,
			stream,
			finished: stream.finished,
			summary: stream.summary,
			failure: () => stream.sourceError,
			limitRecords: (records) => (stream.maxRecords = records),
		};
		// A failed part is the consumer's to report; the next part starts with the records after it (none when the
		// source itself failed: a failed iterator is done).
		await stream.finished.catch(() => undefined);
		if (stream.sourceError && !(stream.sourceError instanceof RecordTooLargeError)) return;
	}
}
