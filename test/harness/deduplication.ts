/**
 * n8n's deduplication helpers for the harness (`this.helpers.checkProcessedAndRecord` and the rest), which n8n's CLI
 * provides and n8n-core only forwards to (n8n-core's DataDeduplicationService). This one does what n8n 2.41.1's own
 * does (n8n/dist/deduplication/deduplication-helper.js, cited below by line; checked line by line), on an in-memory
 * table instead of the `processed_data` table (primary key (context, workflowId)):
 * - one row per (workflow id, context): context `n:<node id>` for scope `node`, '' for scope `workflow`;
 * - `entries` mode keeps an md5 (base64) per value in a list, a value already in it is `processed`, `maxEntries`
 *   drops the oldest; `latestIncrementalKey` / `latestDate` keep the largest value only;
 * - a row keeps the mode it was created with; another mode is refused;
 * - every call reads the row (a SELECT), then writes it whole: an INSERT when the row was absent, else an UPDATE
 *   of the row with that key. The read and the write are separate steps with a turn of the event loop between
 *   them, as n8n's two database statements are, with no transaction and no lock, so:
 *   - two calls at once lose one's write, as in n8n (and two first calls at once: the second INSERT fails on the
 *     primary key);
 *   - an UPDATE of a row deleted after the read changes no row and raises no error (TypeORM's `update(criteria, …)`
 *     is an `UPDATE … WHERE`, and n8n ignores its result): the call answers as if it had written, and the row stays
 *     absent. Only an INSERT creates a row. Checked in n8n 2.41.1 itself, on SQLite and Postgres 15: the UPDATE
 *     reports 0 affected rows, the call returns its values as `new`, and the next call INSERTs a new row;
 * - a DELETE (`clearAllProcessedItems`) is a statement of its own, asynchronous (at least a turn of the event loop).
 * Faults (`deduplicationFaults`, `holdNextDelete`, `holdNextWrite`) make a write fail, or hold a DELETE or an
 * UPDATE back, so that tests can reproduce a database that fails or answers late (the races of a lease on this
 * store). Tests read the rows (`deduplicationRows`) for the record's size and the writes (`deduplicationWrites`).
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';

import { tryToParseDateTime } from 'n8n-workflow';
import type {
	DeduplicationItemTypes,
	DeduplicationMode,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
} from 'n8n-workflow';

interface Row {
	mode: DeduplicationMode;
	data: string[] | DeduplicationItemTypes;
}

const rows = new Map<string, Row>();

/** A row's scope as the faults name it: '' for scope workflow, 'n:' for scope node. */
export type DeduplicationFaultScope = '' | 'n:';

/** How long a statement is held back: milliseconds, or until a promise the test settles. */
export type DeduplicationDelay = number | Promise<unknown>;

/**
 * Database failures and late statements. Each `delayNext…` is taken by the first statement of its kind that matches
 * its scope (any row when the scope is unset), then cleared.
 */
export const deduplicationFaults: {
	/** The write after this many more writes fails (tests of a record that cannot be written). */
	failWriteAfter?: number;
	/** Every write to a row of this scope fails. */
	failScope?: DeduplicationFaultScope;
	/**
	 * The next DELETE (`clearAllProcessedItems`) is issued, then lands this much later: a taker's delete that reaches
	 * the database after another taker's insert deletes that insert.
	 */
	delayNextDelete?: DeduplicationDelay;
	/** Only a DELETE of a row of this scope takes `delayNextDelete`. */
	delayDeleteScope?: DeduplicationFaultScope;
	/**
	 * The next UPDATE is held between its read and its write (the row read and changed, the UPDATE not yet sent), then
	 * lands this much later: a stale holder's write that lands after a new holder's writes erases them, or changes no
	 * row when the row was deleted in the meantime. INSERTs (the first write of an absent row) are not held.
	 */
	delayNextWrite?: DeduplicationDelay;
	/** Only an UPDATE of a row of this scope takes `delayNextWrite`. */
	delayWriteScope?: DeduplicationFaultScope;
} = {};

/**
 * Bytes written to the table so far (the JSON of each row written) and the number of writes (INSERTs, and UPDATEs
 * that changed a row); `entries`: those of rows in mode entries (a campaign record, not its hold). `largest`: the
 * largest row written, in bytes. `deletes`: DELETE statements; `updatesWithoutRow`: UPDATEs that changed no row (the
 * row was deleted after their read); `failed`: statements that failed (injected faults, or a row too large for
 * JSON.stringify, as n8n's would fail).
 */
export const deduplicationWrites = {
	count: 0,
	bytes: 0,
	largest: 0,
	entries: { count: 0, bytes: 0, largest: 0 },
	deletes: 0,
	updatesWithoutRow: 0,
	failed: 0,
};

/** A statement held by `holdNextDelete` / `holdNextWrite`. */
export interface HeldStatement {
	/** Settles when the statement is held: a DELETE issued, an UPDATE's row read and changed (its UPDATE not yet sent). */
	reached: Promise<void>;
	/** Lets it land. */
	release(): void;
	/** Settles when it has landed, with the rows it changed (0: the row was absent); rejects when it failed. */
	landed: Promise<number>;
}

interface Observer {
	reached(): void;
	landed(rows: number): void;
	failed(error: unknown): void;
}

/** The callbacks of a `holdNext…`, taken with its delay. */
const observers: { delete?: Observer; write?: Observer } = {};

function holdNext(kind: 'delete' | 'write', scope: DeduplicationFaultScope | undefined): HeldStatement {
	let release!: () => void;
	const until = new Promise<void>((resolve) => (release = resolve));
	let reached!: () => void;
	const reachedPromise = new Promise<void>((resolve) => (reached = resolve));
	let landed!: (rows: number) => void;
	let failed!: (error: unknown) => void;
	const landedPromise = new Promise<number>((resolve, reject) => ((landed = resolve), (failed = reject)));
	landedPromise.catch(() => undefined); // a test that does not await it does not get an unhandled rejection
	observers[kind] = { reached, landed, failed };
	if (kind === 'delete') {
		deduplicationFaults.delayNextDelete = until;
		deduplicationFaults.delayDeleteScope = scope;
	} else {
		deduplicationFaults.delayNextWrite = until;
		deduplicationFaults.delayWriteScope = scope;
	}
	return { reached: reachedPromise, release, landed: landedPromise };
}

/**
 * Holds the next DELETE (`clearAllProcessedItems`) of a row of `scope` (any row without) until `release()`:
 * ```ts
 * const lateDelete = holdNextDelete('');      // the hold's row
 * // … taker B judges the row stale and calls clearAllProcessedItems: its DELETE is held
 * await lateDelete.reached;
 * // … taker A deletes, waits, inserts its row
 * lateDelete.release();                       // B's DELETE lands now and deletes A's row
 * expect(await lateDelete.landed).toBe(1);
 * ```
 */
export function holdNextDelete(scope?: DeduplicationFaultScope): HeldStatement {
	return holdNext('delete', scope);
}

/**
 * Holds the next UPDATE of a row of `scope` (any row without) between its read and its write until `release()`:
 * ```ts
 * const lateWrite = holdNextWrite('n:');      // the record's row
 * await lateWrite.reached;                    // a holder's record write read the row; its UPDATE waits
 * // … another execution takes the hold over and claims its keys
 * lateWrite.release();                        // the stale UPDATE lands: it rewrites the row as it read it
 * await lateWrite.landed;                     // 1, or 0 when the row was deleted meanwhile
 * ```
 */
export function holdNextWrite(scope?: DeduplicationFaultScope): HeldStatement {
	return holdNext('write', scope);
}

export function deduplicationRows(): ReadonlyMap<string, Row> {
	return rows;
}

/**
 * Empties the table and resets the faults and counters. A statement already held stays held until its test
 * releases it (it then lands in the table as it is then).
 */
export function clearDeduplicationRows(): void {
	rows.clear();
	for (const key of Object.keys(deduplicationFaults) as Array<keyof typeof deduplicationFaults>) delete deduplicationFaults[key];
	observers.delete = undefined;
	observers.write = undefined;
	Object.assign(deduplicationWrites, { count: 0, bytes: 0, largest: 0, deletes: 0, updatesWithoutRow: 0, failed: 0 });
	deduplicationWrites.entries = { count: 0, bytes: 0, largest: 0 };
}

/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:70-78 (createContext), with the workflow id: the primary key. */
function rowKey(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
	if (scope === 'node') {
		if (!context.node) throw new Error("No node information has been provided and so cannot use scope 'node'");
		return `${String(context.workflow.id)}|n:${context.node.id}`;
	}
	return `${String(context.workflow.id)}|`;
}

const contextOf = (key: string) => key.slice(key.indexOf('|') + 1);
const inScope = (key: string, scope: DeduplicationFaultScope | undefined) =>
	scope === undefined || (scope === '' ? contextOf(key) === '' : contextOf(key).startsWith(scope));

/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:79-81 (createValueHash). */
const hashOf = (value: DeduplicationItemTypes) => createHash('md5').update(value.toString()).digest('base64');

const turn = () => new Promise((resolve) => setImmediate(resolve));
const wait = (delay: DeduplicationDelay) => (typeof delay === 'number' ? new Promise((resolve) => setTimeout(resolve, delay)) : delay);

/** The SELECT (`findOne`, n8n 2.41.1 dist/deduplication/deduplication-helper.js:82-89): a copy of the row as the database gives it, after a turn of the event loop. */
async function read(key: string): Promise<Row | undefined> {
	await turn();
	const row = rows.get(key);
	try {
		return row && (JSON.parse(JSON.stringify(row)) as Row);
	} catch (error) {
		deduplicationWrites.failed++;
		throw error;
	}
}

function count(json: string, row: Row): void {
	const bytes = Buffer.byteLength(json);
	deduplicationWrites.count++;
	deduplicationWrites.bytes += bytes;
	deduplicationWrites.largest = Math.max(deduplicationWrites.largest, bytes);
	if (row.mode === 'entries') {
		deduplicationWrites.entries.count++;
		deduplicationWrites.entries.bytes += bytes;
		deduplicationWrites.entries.largest = Math.max(deduplicationWrites.entries.largest, bytes);
	}
}

/**
 * The INSERT (`insert`: the row was absent at the read; fails when it came in the meantime, as the table's primary
 * key makes it) or the UPDATE (`update({ workflowId, context }, row)`: changes the row with that key when there is
 * one, else nothing, without an error). Resolves with the rows changed.
 */
async function write(key: string, row: Row, insert: boolean): Promise<number> {
	const observer = !insert && deduplicationFaults.delayNextWrite !== undefined && inScope(key, deduplicationFaults.delayWriteScope) ? takeWriteDelay() : undefined;
	try {
		if (observer) {
			observer.reached?.();
			await wait(observer.delay);
		}
		await turn();
		if (deduplicationFaults.failWriteAfter !== undefined && deduplicationFaults.failWriteAfter-- <= 0) {
			deduplicationFaults.failWriteAfter = undefined;
			throw new Error('Connection terminated unexpectedly (injected by the harness)');
		}
		if (deduplicationFaults.failScope !== undefined && inScope(key, deduplicationFaults.failScope)) {
			throw new Error('Connection terminated unexpectedly (injected by the harness)');
		}
		if (insert && rows.has(key)) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
		let changed = 0;
		if (insert || rows.has(key)) {
			const json = JSON.stringify(row);
			count(json, row);
			rows.set(key, JSON.parse(json) as Row);
			changed = 1;
		} else deduplicationWrites.updatesWithoutRow++;
		observer?.landed?.(changed);
		return changed;
	} catch (error) {
		deduplicationWrites.failed++;
		observer?.failed?.(error);
		throw error;
	}
}

function takeWriteDelay(): { delay: DeduplicationDelay } & Partial<Observer> {
	const taken = { delay: deduplicationFaults.delayNextWrite!, ...observers.write };
	deduplicationFaults.delayNextWrite = undefined;
	deduplicationFaults.delayWriteScope = undefined;
	observers.write = undefined;
	return taken;
}

function takeDeleteDelay(): { delay: DeduplicationDelay } & Partial<Observer> {
	const taken = { delay: deduplicationFaults.delayNextDelete!, ...observers.delete };
	deduplicationFaults.delayNextDelete = undefined;
	deduplicationFaults.delayDeleteScope = undefined;
	observers.delete = undefined;
	return taken;
}

const isLatest = (mode: DeduplicationMode) => mode === 'latestIncrementalKey' || mode === 'latestDate';

/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:47-69 (compareValues): 1, 0 or -1. */
function compare(mode: DeduplicationMode, a: DeduplicationItemTypes, b: DeduplicationItemTypes): number {
	if (mode === 'latestIncrementalKey') {
		const [first, second] = [Number(a), Number(b)];
		if (!isNaN(first) && !isNaN(second)) return first === second ? 0 : first > second ? 1 : -1;
		throw new Error('Invalid value. Only numbers are supported in mode "latestIncrementalKey"');
	}
	if (mode === 'latestDate') {
		try {
			const [first, second] = [tryToParseDateTime(a), tryToParseDateTime(b)];
			// As n8n: two DateTime objects are never ===, so an equal date compares as -1 (not newer).
			return (first as unknown) === (second as unknown) ? 0 : first > second ? 1 : -1;
		} catch {
			throw new Error('Invalid value. Only valid dates are supported in mode "latestDate"');
		}
	}
	throw new Error("Invalid mode. Only 'latestIncrementalKey' and 'latestDate' are supported.");
}

/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:90-94 (validateMode). */
function checkMode(row: Row | undefined, options: ICheckProcessedOptions): void {
	if (row && row.mode !== options.mode) {
		throw new Error(
			'Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter. Try ’Clean Database’ operation to reset.',
		);
	}
}

/**
 * n8n 2.41.1's DeduplicationHelper: the four methods of IDataDeduplicator (n8n-core's DataDeduplicationService builds
 * `checkProcessedItemsAndRecord` on `checkProcessedAndRecord` itself).
 */
export class HarnessDeduplicator implements IDataDeduplicator {
	/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:184-193. */
	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const key = rowKey(scope, context);
		assert.ok(context.workflow.id);
		const row = await read(key);
		checkMode(row, options);
		if (isLatest(options.mode)) return await this.latest(key, items, options, row);
		return await this.entries(key, items, options, row);
	}

	/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:101-140 (handleLatestModes). */
	private async latest(key: string, items: DeduplicationItemTypes[], options: ICheckProcessedOptions, row: Row | undefined): Promise<IDeduplicationOutput> {
		const incoming = items.slice().sort((a, b) => compare(options.mode, a, b));
		if (!row) {
			// :103-111: INSERT of the largest value.
			await write(key, { mode: options.mode, data: incoming.pop()! }, true);
			return { new: items, processed: [] };
		}
		const output: IDeduplicationOutput = { new: [], processed: [] };
		if (Array.isArray(row.data)) return output; // :121-123
		const stored = row.data;
		let largest = stored;
		for (const item of incoming) {
			if (compare(options.mode, item, stored) === 1) {
				output.new.push(item);
				if (compare(options.mode, item, largest) === 1) largest = item;
			} else output.processed.push(item);
		}
		// :137-138: UPDATE of the whole row (0 rows when it was deleted after the read).
		await write(key, { ...row, data: largest }, false);
		return output;
	}

	/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:141-183 (handleHashedItems). */
	private async entries(key: string, items: DeduplicationItemTypes[], options: ICheckProcessedOptions, row: Row | undefined): Promise<IDeduplicationOutput> {
		const hashes = items.map(hashOf);
		if (!row) {
			// :143-154: INSERT, the oldest dropped beyond maxEntries.
			if (options.maxEntries) hashes.splice(0, hashes.length - options.maxEntries);
			await write(key, { mode: options.mode, data: hashes }, true);
			return { new: items, processed: [] };
		}
		const output: IDeduplicationOutput = { new: [], processed: [] };
		if (!Array.isArray(row.data)) return output; // :164-166
		const data = row.data;
		// :168: the set is built before the loop, so a value twice in one call is new twice, and stored twice.
		const known = new Set(data);
		hashes.forEach((hash, index) => {
			if (known.has(hash)) output.processed.push(items[index]);
			else {
				output.new.push(items[index]);
				data.push(hash);
			}
		});
		if (options.maxEntries) data.splice(0, data.length - options.maxEntries); // :178-180
		await write(key, row, false); // :181: UPDATE of the whole row (0 rows when it was deleted after the read)
		return output;
	}

	/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:194-220. */
	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		if (isLatest(options.mode)) throw new Error('Removing processed data is not possible in mode "latest"');
		assert.ok(context.workflow.id);
		const key = rowKey(scope, context);
		const row = await read(key);
		if (!row) return;
		// :209-211: a row of a latest mode is left as it is (no mode check here, no write).
		if (!Array.isArray(row.data)) return;
		const data = row.data;
		for (const hash of items.map(hashOf)) {
			// :213-218: the first copy only.
			const index = data.indexOf(hash);
			if (index !== -1) data.splice(index, 1);
		}
		await write(key, row, false); // :219: UPDATE, also when nothing was removed
	}

	/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:221-226: a DELETE of the row, whatever its mode. */
	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<void> {
		const key = rowKey(scope, context);
		const held = deduplicationFaults.delayNextDelete !== undefined && inScope(key, deduplicationFaults.delayDeleteScope) ? takeDeleteDelay() : undefined;
		held?.reached?.();
		await turn();
		if (held) await wait(held.delay);
		const deleted = rows.delete(key) ? 1 : 0;
		deduplicationWrites.deletes++;
		held?.landed?.(deleted);
	}

	/** n8n 2.41.1 dist/deduplication/deduplication-helper.js:227-243: the entries of a row of mode entries, else 0. */
	async getProcessedDataCount(scope: DeduplicationScope, context: ICheckProcessedContextData, options: ICheckProcessedOptions): Promise<number> {
		const row = await read(rowKey(scope, context));
		return options.mode === 'entries' && row && Array.isArray(row.data) ? row.data.length : 0;
	}
}
