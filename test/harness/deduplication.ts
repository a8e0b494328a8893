/**
 * n8n's deduplication helpers for the harness (`this.helpers.checkProcessedAndRecord` and the rest), which n8n's CLI
 * provides and n8n-core only forwards to. This one behaves as n8n's own, packages/cli/src/deduplication/
 * deduplication-helper.ts, on an in-memory table instead of the `processed_data` table:
 * - one row per (workflow id, context): context `n:<node id>` for scope `node`, '' for scope `workflow`;
 * - `entries` mode keeps an md5 (base64) per value in a list, a value already in it is `processed`, `maxEntries`
 *   drops the oldest; `latestIncrementalKey` / `latestDate` keep the largest value only;
 * - a row keeps the mode it was created with; another mode is refused;
 * - every call reads the row, then writes it whole: the read and the write are separate steps with a turn of the
 *   event loop between them, as n8n's two database statements are, so two calls at once lose one's write as in n8n
 *   (and two first calls at once: the second INSERT fails on the primary key).
 * Tests read the rows (`deduplicationRows`) for the record's size and the writes (`deduplicationWrites`).
 */
import { createHash } from 'node:crypto';

import type {
	DeduplicationItemTypes,
	DeduplicationMode,
	DeduplicationScope,
	ICheckProcessedContextData,
	ICheckProcessedOptions,
	IDataDeduplicator,
	IDeduplicationOutput,
	IDeduplicationOutputItems,
	IDataObject,
} from 'n8n-workflow';

interface Row {
	mode: DeduplicationMode;
	data: string[] | DeduplicationItemTypes;
}

const rows = new Map<string, Row>();

/**
 * Database failures: the write after `failWriteAfter` more writes fails (tests of a record that cannot be written);
 * with `failScope`, every write to a row of that scope fails ('' for scope workflow, 'n:' for scope node).
 */
export const deduplicationFaults: { failWriteAfter?: number; failScope?: '' | 'n:' } = {};

/** Bytes written to the table so far (the JSON of each row written) and the number of writes; `entries`: those of rows in mode entries (a campaign record, not its hold). */
export const deduplicationWrites = { count: 0, bytes: 0, entries: { count: 0, bytes: 0 } };

export function deduplicationRows(): ReadonlyMap<string, Row> {
	return rows;
}

export function clearDeduplicationRows(): void {
	rows.clear();
	deduplicationFaults.failWriteAfter = undefined;
	deduplicationFaults.failScope = undefined;
	deduplicationWrites.count = 0;
	deduplicationWrites.bytes = 0;
	deduplicationWrites.entries = { count: 0, bytes: 0 };
}

function rowKey(scope: DeduplicationScope, context: ICheckProcessedContextData): string {
	if (scope === 'node') {
		if (!context.node) throw new Error("No node information has been provided and so cannot use scope 'node'");
		return `${String(context.workflow.id)}|n:${context.node.id}`;
	}
	return `${String(context.workflow.id)}|`;
}

const hashOf = (value: DeduplicationItemTypes) => createHash('md5').update(value.toString()).digest('base64');

/** A copy of the row as the database would give it, after a turn of the event loop. */
async function read(key: string): Promise<Row | undefined> {
	await new Promise((resolve) => setImmediate(resolve));
	const row = rows.get(key);
	return row && (JSON.parse(JSON.stringify(row)) as Row);
}

/** An INSERT (`insert`) fails when the row came in the meantime, as the table's primary key makes it; an UPDATE does not. */
async function write(key: string, row: Row, insert = false): Promise<void> {
	await new Promise((resolve) => setImmediate(resolve));
	if (deduplicationFaults.failWriteAfter !== undefined && deduplicationFaults.failWriteAfter-- <= 0) {
		deduplicationFaults.failWriteAfter = undefined;
		throw new Error('Connection terminated unexpectedly (injected by the harness)');
	}
	const context = key.slice(key.indexOf('|') + 1);
	const scope = deduplicationFaults.failScope;
	if (scope !== undefined && (scope === '' ? context === '' : context.startsWith(scope))) {
		throw new Error('Connection terminated unexpectedly (injected by the harness)');
	}
	if (insert && rows.has(key)) throw new Error('duplicate key value violates unique constraint "PK_processed_data"');
	const json = JSON.stringify(row);
	deduplicationWrites.count++;
	deduplicationWrites.bytes += Buffer.byteLength(json);
	if (row.mode === 'entries') {
		deduplicationWrites.entries.count++;
		deduplicationWrites.entries.bytes += Buffer.byteLength(json);
	}
	rows.set(key, JSON.parse(json) as Row);
}

function isLatest(mode: DeduplicationMode): boolean {
	return mode === 'latestIncrementalKey' || mode === 'latestDate';
}

function greater(mode: DeduplicationMode, a: DeduplicationItemTypes, b: DeduplicationItemTypes): boolean {
	if (mode === 'latestIncrementalKey') {
		if (Number.isNaN(Number(a)) || Number.isNaN(Number(b))) throw new Error('Invalid value. Only numbers are supported in mode "latestIncrementalKey"');
		return Number(a) > Number(b);
	}
	const [first, second] = [new Date(a as string), new Date(b as string)];
	if (Number.isNaN(first.getTime()) || Number.isNaN(second.getTime())) throw new Error('Invalid value. Only valid dates are supported in mode "latestDate"');
	return first > second;
}

function checkMode(row: Row | undefined, options: ICheckProcessedOptions): void {
	if (row && row.mode !== options.mode) {
		throw new Error('Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter.');
	}
}

export class HarnessDeduplicator implements IDataDeduplicator {
	async checkProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const row = await read(rowKey(scope, context));
		checkMode(row, options);
		if (!row) return { new: items, processed: [] };
		const output: IDeduplicationOutput = { new: [], processed: [] };
		if (isLatest(options.mode)) {
			for (const item of items) (greater(options.mode, item, row.data as DeduplicationItemTypes) ? output.new : output.processed).push(item);
			return output;
		}
		const known = new Set(row.data as string[]);
		for (const item of items) (known.has(hashOf(item)) ? output.processed : output.new).push(item);
		return output;
	}

	async checkProcessedAndRecord(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutput> {
		const key = rowKey(scope, context);
		const row = await read(key);
		checkMode(row, options);
		if (isLatest(options.mode)) {
			const sorted = items.slice().sort((a, b) => (greater(options.mode, a, b) ? 1 : -1));
			if (!row) {
				await write(key, { mode: options.mode, data: sorted[sorted.length - 1] }, true);
				return { new: items, processed: [] };
			}
			const output: IDeduplicationOutput = { new: [], processed: [] };
			let largest = row.data as DeduplicationItemTypes;
			for (const item of sorted) {
				if (greater(options.mode, item, row.data as DeduplicationItemTypes)) {
					output.new.push(item);
					if (greater(options.mode, item, largest)) largest = item;
				} else output.processed.push(item);
			}
			await write(key, { mode: options.mode, data: largest });
			return output;
		}
		const hashes = items.map(hashOf);
		if (!row) {
			if (options.maxEntries) hashes.splice(0, hashes.length - options.maxEntries);
			await write(key, { mode: options.mode, data: hashes }, true);
			return { new: items, processed: [] };
		}
		const data = row.data as string[];
		const output: IDeduplicationOutput = { new: [], processed: [] };
		hashes.forEach((hash, index) => {
			if (data.includes(hash)) output.processed.push(items[index]);
			else {
				output.new.push(items[index]);
				data.push(hash);
			}
		});
		if (options.maxEntries) data.splice(0, data.length - options.maxEntries);
		await write(key, row);
		return output;
	}

	async checkProcessedItemsAndRecord(
		propertyName: string,
		items: IDataObject[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<IDeduplicationOutputItems> {
		const values = items.map((item) => item[propertyName] as DeduplicationItemTypes);
		const result = await this.checkProcessedAndRecord(values, scope, context, options);
		const fresh = new Set(result.new);
		return {
			new: items.filter((item) => fresh.has(item[propertyName] as DeduplicationItemTypes)),
			processed: items.filter((item) => !fresh.has(item[propertyName] as DeduplicationItemTypes)),
		};
	}

	async removeProcessed(
		items: DeduplicationItemTypes[],
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<void> {
		if (isLatest(options.mode)) throw new Error('Removing processed data is not possible in mode "latest"');
		const key = rowKey(scope, context);
		const row = await read(key);
		if (!row) return;
		const data = row.data as string[];
		for (const hash of items.map(hashOf)) {
			const index = data.indexOf(hash);
			if (index !== -1) data.splice(index, 1);
		}
		await write(key, row);
	}

	async clearAllProcessedItems(scope: DeduplicationScope, context: ICheckProcessedContextData): Promise<void> {
		rows.delete(rowKey(scope, context));
	}

	async getProcessedDataCount(
		scope: DeduplicationScope,
		context: ICheckProcessedContextData,
		options: ICheckProcessedOptions,
	): Promise<number> {
		const row = await read(rowKey(scope, context));
		return options.mode === 'entries' ? ((row?.data as string[] | undefined)?.length ?? 0) : 0;
	}
}
