/**
 * Splitting a person file into parts of at most N bytes (spec section 8: 1 GB per file, docs/gateway.md: cut at a record
 * boundary, CSV header repeated, each JSON part a complete array).
 *
 * Two passes over the records. The first (`PartPlanner`) measures every record and plans the parts: per part its
 * record count, exact byte size and items, nothing per record. The second writes each part as a `PersonPartBody`, a
 * Blob-like body of exactly the planned size (n8n's request helper streams it with that Content-Length), from the
 * records of that pass as the request reads it. A record that gives other bytes or comes in another place than it
 * did in the first pass fails its part (`PartChangedError`); no body ever sends another length than it announced.
 * Pure: no n8n imports.
 */
import { BlobBody } from '../../gateway/blobBody';
import { PERSON_FILE_MAX_BYTES } from '../../gateway/spec';
import type { PersonColumns, PersonRow } from './fields';
import { CHUNK_CHARS, type PersonFileFormat } from './writers';

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

/** A part of the plan; a record too large for any part is a part of its own that fails when it is sent. */
export interface PlannedPart extends PersonFilePartSummary {
	tooLarge?: RecordTooLargeError;
}

export interface PartPlan {
	/** The columns of the CSV header of every part: those of the first record (JSON records carry their own). */
	columns: PersonColumns;
	parts: PlannedPart[];
}

export interface PlanOptions {
	/** Largest part in bytes; PERSON_FILE_MAX_BYTES unless set (tests use small parts). */
	maxPartBytes?: number;
	/**
	 * How many records a part held on an earlier try of the run (n8n's Retry On Fail), if it was tried: that part
	 * holds exactly as many again, so that every part keeps its records on every try.
	 */
	earlierRecords?: (partIndex: number) => number | undefined;
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

/** The records differ from those the parts were planned from (a value that changed, a file that changed). */
export class PartChangedError extends Error {
	constructor(
		readonly partIndex: number,
		/** The item (or file record) where the difference showed. */
		readonly itemIndex: number,
		detail: string,
	) {
		super(`Part ${partIndex + 1} changed between the check and the upload: ${detail}`);
		this.name = 'PartChangedError';
	}
}

const byteLength = (text: string): number => Buffer.byteLength(text, 'utf8');

/** The first pass: `add` every record in order, then `finish` for the plan. Holds no record. */
export class PartPlanner {
	private readonly parts: PlannedPart[] = [];
	private readonly maxPartBytes: number;
	private readonly endBytes: number;
	private columns: PersonColumns | undefined;
	/** The part being filled; its `bytes` leave out the closing text until it is closed. */
	private current: PlannedPart | undefined;
	/** Records the current part must hold (a retry), if any. */
	private fixed: number | undefined;

	constructor(
		private readonly format: PersonFileFormat,
		private readonly options: PlanOptions = {},
	) {
		this.maxPartBytes = options.maxPartBytes ?? PERSON_FILE_MAX_BYTES;
		this.endBytes = byteLength(format.end());
	}

	add(record: SourceRecord): void {
		this.columns ??= record.row.columns;
		const part = this.current;
		if (part && part.records !== this.fixed) {
			const bytes = byteLength(this.format.record(record.row, part.records));
			if (part.bytes + bytes + this.endBytes <= this.maxPartBytes) {
				take(part, record.itemIndex, bytes);
				return;
			}
			if (this.fixed !== undefined) {
				throw new PartChangedError(part.index, record.itemIndex, `it held ${this.fixed} records on the earlier try and now only ${part.records} fit`);
			}
		}
		this.close();
		this.open(record);
	}

	finish(): PartPlan {
		this.close();
		return { columns: this.columns ?? { fields: [], attributes: [] }, parts: this.parts };
	}

	private open(record: SourceRecord): void {
		const index = this.parts.length;
		const start = byteLength(this.format.start(this.columns!));
		const bytes = byteLength(this.format.record(record.row, 0));
		if (start + bytes + this.endBytes > this.maxPartBytes) {
			const tooLarge = new RecordTooLargeError(record.itemIndex, start + bytes + this.endBytes, this.maxPartBytes);
			this.parts.push({ index, records: 0, bytes: 0, itemRanges: [], tooLarge });
			return;
		}
		const part: PlannedPart = { index, records: 0, bytes: start, itemRanges: [] };
		take(part, record.itemIndex, bytes);
		this.parts.push(part);
		this.current = part;
		this.fixed = this.options.earlierRecords?.(index);
	}

	private close(): void {
		const part = this.current;
		if (!part) return;
		if (this.fixed !== undefined && part.records !== this.fixed) {
			throw new PartChangedError(part.index, lastItem(part), `it held ${this.fixed} records on the earlier try and now ${part.records}`);
		}
		part.bytes += this.endBytes;
		this.current = undefined;
		this.fixed = undefined;
	}
}

function take(part: PlannedPart, itemIndex: number, bytes: number): void {
	part.records++;
	part.bytes += bytes;
	const ranges = part.itemRanges;
	if (ranges.length > 0 && ranges[ranges.length - 1] + 1 === itemIndex) ranges[ranges.length - 1]++;
	else ranges.push(itemIndex, itemIndex);
}

function lastItem(part: PersonFilePartSummary): number {
	return part.itemRanges[part.itemRanges.length - 1] ?? -1;
}

/** Plans the parts of `records` in one pass (tests, and sources that are already in memory). */
export async function planParts(
	records: Iterable<SourceRecord> | AsyncIterable<SourceRecord>,
	format: PersonFileFormat,
	options: PlanOptions = {},
): Promise<PartPlan> {
	const planner = new PartPlanner(format, options);
	for await (const record of records) planner.add(record);
	return planner.finish();
}

/** The records of one part, in the second pass: its planned records, in order. */
export type PartRecords = Iterator<SourceRecord> | AsyncIterator<SourceRecord>;

/**
 * A planned part as a request body: written from `records` while the request reads it, in chunks of about
 * CHUNK_CHARS characters, never whole. Records that are not the planned ones (another item, another count, other
 * bytes) end it with a PartChangedError before the last byte, kept in `failure`.
 */
export class PersonPartBody extends BlobBody {
	readonly type: string;
	readonly size: number;
	/** Why the body ended early (its records changed, or their source failed); undefined while it is fine. */
	failure: Error | undefined;
	/** Dropped once the body is written: the HTTP client may keep a sent body, and the source holds all the items. */
	#records: PartRecords | undefined;

	constructor(
		readonly part: PlannedPart,
		private readonly format: PersonFileFormat,
		private readonly columns: PersonColumns,
		records: PartRecords,
	) {
		super();
		this.type = format.contentType;
		this.size = part.bytes;
		this.#records = records;
	}

	protected async *chunks(): AsyncGenerator<Uint8Array> {
		try {
			yield* this.#write();
		} catch (error) {
			this.failure = error instanceof Error ? error : new Error(String(error));
			throw this.failure;
		} finally {
			this.#records = undefined;
		}
	}

	async *#write(): AsyncGenerator<Uint8Array> {
		const { part, format } = this;
		const records = this.#records!;
		const ranges = part.itemRanges;
		let range = 0;
		let expected = ranges[0];
		let count = 0;
		let sent = 0;
		/** The last item written, named when the bytes come out wrong. */
		let lastTaken = -1;
		let chunk = format.start(this.columns);
		const changed = (itemIndex: number, detail: string) => new PartChangedError(part.index, itemIndex, detail);
		/** The chunk as bytes, counted; no byte past the announced size is ever given. */
		const encode = (): Uint8Array => {
			const bytes = Buffer.from(chunk, 'utf8');
			chunk = '';
			sent += bytes.length;
			if (sent > this.size) {
				throw changed(lastTaken, `its records up to item ${lastTaken} give more than the planned ${this.size} bytes`);
			}
			return bytes;
		};
		while (count < part.records) {
			let next = records.next();
			if (next instanceof Promise) next = await next;
			if (next.done) throw changed(expected, `it ends after ${count} of its ${part.records} records`);
			const { itemIndex, row } = next.value;
			if (itemIndex !== expected) throw changed(itemIndex, `item ${itemIndex} came where item ${expected} was planned`);
			lastTaken = itemIndex;
			if (expected < ranges[range + 1]) expected++;
			else {
				range += 2;
				expected = ranges[range];
			}
			chunk += format.record(row, count);
			count++;
			// The last chunk is held back until the byte count is known to be right.
			if (chunk.length >= CHUNK_CHARS && count < part.records) yield encode();
		}
		chunk += format.end();
		const last = encode();
		if (sent !== this.size) {
			throw changed(lastTaken, `its records give ${sent} bytes, the plan ${this.size}: a record among items ${part.itemRanges[0]}-${lastTaken} changed`);
		}
		yield last;
	}
}
