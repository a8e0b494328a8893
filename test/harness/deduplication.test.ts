/**
 * The harness's deduplication helpers behave as n8n 2.41.1's (n8n/dist/deduplication/deduplication-helper.js), so
 * that node tests of the campaign record meet the same semantics and the same limits as in a real n8n; and their
 * faults (a failed write, a DELETE or an UPDATE that lands late) reproduce what a real database can do.
 */
import type { ICheckProcessedContextData, INode, Workflow } from 'n8n-workflow';

import {
	clearDeduplicationRows,
	deduplicationFaults,
	deduplicationRows,
	deduplicationWrites,
	HarnessDeduplicator,
	holdNextDelete,
	holdNextWrite,
} from './deduplication';

const helper = new HarnessDeduplicator();
const context = (workflowId: string, nodeId = 'node-1'): ICheckProcessedContextData => ({
	workflow: { id: workflowId, active: false } as unknown as Workflow,
	node: { id: nodeId } as INode,
});
const entries = { mode: 'entries' as const };

beforeEach(() => clearDeduplicationRows());

describe('entries mode', () => {
	it('records new values and reports known ones, per workflow and scope', async () => {
		expect(await helper.checkProcessedAndRecord(['a', 'b'], 'workflow', context('w1'), entries)).toEqual({ new: ['a', 'b'], processed: [] });
		expect(await helper.checkProcessedAndRecord(['b', 'c'], 'workflow', context('w1'), entries)).toEqual({ new: ['c'], processed: ['b'] });
		expect(await helper.checkProcessedAndRecord(['b'], 'node', context('w1'), entries)).toEqual({ new: ['b'], processed: [] });
		expect(await helper.checkProcessedAndRecord(['b'], 'workflow', context('w2'), entries)).toEqual({ new: ['b'], processed: [] });
		expect(await helper.getProcessedDataCount('workflow', context('w1'), entries)).toBe(3);
	});

	it('a value twice in one call is new twice and stored twice (n8n builds its set before the loop)', async () => {
		expect(await helper.checkProcessedAndRecord(['x', 'x'], 'workflow', context('w1'), entries)).toEqual({ new: ['x', 'x'], processed: [] });
		expect(await helper.checkProcessedAndRecord(['a', 'a'], 'workflow', context('w1'), entries)).toEqual({ new: ['a', 'a'], processed: [] });
		expect(await helper.getProcessedDataCount('workflow', context('w1'), entries)).toBe(4);
		// removeProcessed removes the first copy only.
		await helper.removeProcessed(['a'], 'workflow', context('w1'), entries);
		expect(await helper.checkProcessedAndRecord(['a'], 'workflow', context('w1'), entries)).toEqual({ new: [], processed: ['a'] });
	});

	it('removes values, and clears a scope', async () => {
		await helper.checkProcessedAndRecord(['a', 'b'], 'workflow', context('w1'), entries);
		await helper.removeProcessed(['a'], 'workflow', context('w1'), entries);
		expect(await helper.checkProcessedAndRecord(['a', 'b'], 'workflow', context('w1'), entries)).toEqual({ new: ['a'], processed: ['b'] });
		await helper.clearAllProcessedItems('workflow', context('w1'));
		expect(await helper.getProcessedDataCount('workflow', context('w1'), entries)).toBe(0);
	});

	it('keeps md5 hashes, and maxEntries drops the oldest', async () => {
		await helper.checkProcessedAndRecord(['a', 'b', 'c'], 'workflow', context('w1'), { mode: 'entries', maxEntries: 2 });
		const [row] = [...deduplicationRows().values()];
		expect(row.data).toHaveLength(2);
		expect((row.data as string[])[0]).toMatch(/^[A-Za-z0-9+/]{22}==$/);
		expect(await helper.checkProcessedAndRecord(['a'], 'workflow', context('w1'), { mode: 'entries', maxEntries: 2 })).toEqual({ new: ['a'], processed: [] });
	});

	it('rewrites the whole row on every call (the write volume grows with the record)', async () => {
		await helper.checkProcessedAndRecord(['a', 'b', 'c', 'd'], 'workflow', context('w1'), entries);
		const after = deduplicationWrites.bytes;
		await helper.checkProcessedAndRecord(['e'], 'workflow', context('w1'), entries);
		expect(deduplicationWrites.bytes - after).toBeGreaterThan(5 * 24);
	});

	it('has no lock: two calls at once lose one\'s write, as in n8n', async () => {
		const firstCalls = await Promise.allSettled([
			helper.checkProcessedAndRecord(['a'], 'workflow', context('w1'), entries),
			helper.checkProcessedAndRecord(['b'], 'workflow', context('w1'), entries),
		]);
		expect(firstCalls.map((call) => call.status)).toEqual(['fulfilled', 'rejected']);
		await Promise.all([
			helper.checkProcessedAndRecord(['c'], 'workflow', context('w1'), entries),
			helper.checkProcessedAndRecord(['d'], 'workflow', context('w1'), entries),
		]);
		const known = await helper.checkProcessedAndRecord(['c', 'd'], 'workflow', context('w1'), entries);
		expect(known.processed).toHaveLength(1);
	});
});

describe('latest modes', () => {
	it('keep the largest value, and refuse another mode on the same row', async () => {
		const latest = { mode: 'latestIncrementalKey' as const };
		await helper.checkProcessedAndRecord([3, 1], 'workflow', context('w1'), latest);
		expect(await helper.checkProcessedAndRecord([2, 5], 'workflow', context('w1'), latest)).toEqual({ new: [5], processed: [2] });
		await expect(helper.checkProcessedAndRecord(['x'], 'workflow', context('w1'), entries)).rejects.toThrow(/incompatible/);
		await expect(helper.removeProcessed([5], 'workflow', context('w1'), latest)).rejects.toThrow(/not possible/);
	});

	it('a row of a latest mode: removeProcessed in mode entries leaves it without a write, and its count is 0', async () => {
		await helper.checkProcessedAndRecord(['2024-01-02'], 'workflow', context('w1'), { mode: 'latestDate' });
		expect(await helper.checkProcessedAndRecord(['2024-01-01', '2024-01-02', '2024-03-01'], 'workflow', context('w1'), { mode: 'latestDate' })).toEqual({
			new: ['2024-03-01'],
			processed: ['2024-01-01', '2024-01-02'],
		});
		const writes = deduplicationWrites.count;
		await helper.removeProcessed(['2024-03-01'], 'workflow', context('w1'), entries);
		expect(deduplicationWrites.count).toBe(writes);
		expect(deduplicationRows().get('w1|')).toEqual({ mode: 'latestDate', data: '2024-03-01' });
		expect(await helper.getProcessedDataCount('workflow', context('w1'), entries)).toBe(0);
	});
});

describe('what n8n does when a row is deleted between a read and its write', () => {
	it('an UPDATE of a deleted row changes no row and raises no error: the call answers as if written; only an INSERT creates a row', async () => {
		await helper.checkProcessedAndRecord(['a'], 'node', context('w1'), entries);
		const late = holdNextWrite('n:');
		const call = helper.checkProcessedAndRecord(['b'], 'node', context('w1'), entries);
		await late.reached;
		await helper.clearAllProcessedItems('node', context('w1'));
		late.release();
		expect(await call).toEqual({ new: ['b'], processed: [] });
		expect(await late.landed).toBe(0);
		expect(deduplicationRows().size).toBe(0);
		expect(deduplicationWrites.updatesWithoutRow).toBe(1);
		// The next call finds no row: it INSERTs one, and neither value is known.
		expect(await helper.checkProcessedAndRecord(['a', 'b'], 'node', context('w1'), entries)).toEqual({ new: ['a', 'b'], processed: [] });
		expect(deduplicationWrites.count).toBe(2);
	});

	it('the same in a latest mode (a beat after the delete), and for removeProcessed', async () => {
		const latest = { mode: 'latestIncrementalKey' as const };
		await helper.checkProcessedAndRecord([5], 'workflow', context('w1'), latest);
		const beat = holdNextWrite('');
		const call = helper.checkProcessedAndRecord([7], 'workflow', context('w1'), latest);
		await beat.reached;
		await helper.clearAllProcessedItems('workflow', context('w1'));
		beat.release();
		expect(await call).toEqual({ new: [7], processed: [] });
		expect(deduplicationRows().has('w1|')).toBe(false);

		await helper.checkProcessedAndRecord(['a', 'b'], 'node', context('w1'), entries);
		const removal = holdNextWrite();
		const removed = helper.removeProcessed(['a'], 'node', context('w1'), entries);
		await removal.reached;
		await helper.clearAllProcessedItems('node', context('w1'));
		removal.release();
		await removed;
		expect(await removal.landed).toBe(0);
		expect(deduplicationRows().size).toBe(0);
	});

	it('an UPDATE held after its read lands over a row written meanwhile: it erases the newer values (a stale writer)', async () => {
		await helper.checkProcessedAndRecord(['old'], 'node', context('w1'), entries);
		const stale = holdNextWrite('n:');
		const staleCall = helper.checkProcessedAndRecord(['stale-claim'], 'node', context('w1'), entries);
		await stale.reached;
		// Meanwhile the row is deleted and created again by another writer, which claims its own values.
		await helper.clearAllProcessedItems('node', context('w1'));
		await helper.checkProcessedAndRecord(['new-claim'], 'node', context('w1'), entries);
		stale.release();
		await staleCall;
		expect(await stale.landed).toBe(1);
		expect(await helper.checkProcessedAndRecord(['old', 'stale-claim', 'new-claim'], 'node', context('w1'), entries)).toEqual({
			new: ['new-claim'],
			processed: ['old', 'stale-claim'],
		});
	});
});

describe('faults: late statements', () => {
	const latest = { mode: 'latestIncrementalKey' as const };

	it('clearAllProcessedItems is asynchronous: the row is there until its DELETE lands', async () => {
		await helper.checkProcessedAndRecord(['a'], 'workflow', context('w1'), entries);
		const deleting = helper.clearAllProcessedItems('workflow', context('w1'));
		expect(deduplicationRows().has('w1|')).toBe(true);
		await deleting;
		expect(deduplicationRows().has('w1|')).toBe(false);
		expect(deduplicationWrites.deletes).toBe(1);
	});

	it('a delayed DELETE lands after another taker\'s delete and INSERT, and deletes that row: both INSERT in turn (two holders)', async () => {
		await helper.checkProcessedAndRecord([1], 'workflow', context('w1'), latest); // a dead holder's row
		const lateDelete = holdNextDelete('');
		const deleteB = helper.clearAllProcessedItems('workflow', context('w1')); // taker B: its DELETE is slow
		await lateDelete.reached;
		await helper.clearAllProcessedItems('workflow', context('w1')); // taker A: delete, then insert
		expect(await helper.checkProcessedAndRecord([100], 'workflow', context('w1'), latest)).toEqual({ new: [100], processed: [] });
		lateDelete.release();
		await deleteB;
		expect(await lateDelete.landed).toBe(1); // A's row is gone
		expect(await helper.checkProcessedAndRecord([101], 'workflow', context('w1'), latest)).toEqual({ new: [101], processed: [] }); // B inserts
		expect(deduplicationWrites.count).toBe(3); // three INSERTs, no error: both believe they hold the row
	});

	it('delayNextDelete in milliseconds, and only for a DELETE of its scope', async () => {
		await helper.checkProcessedAndRecord(['a'], 'workflow', context('w1'), entries);
		await helper.checkProcessedAndRecord(['a'], 'node', context('w1'), entries);
		deduplicationFaults.delayNextDelete = 150;
		deduplicationFaults.delayDeleteScope = '';
		const started = Date.now();
		await helper.clearAllProcessedItems('node', context('w1')); // another scope: not delayed, and the delay stays
		expect(Date.now() - started).toBeLessThan(100);
		expect(deduplicationFaults.delayNextDelete).toBe(150);
		const deleting = helper.clearAllProcessedItems('workflow', context('w1'));
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(deduplicationRows().has('w1|')).toBe(true);
		await deleting;
		expect(Date.now() - started).toBeGreaterThanOrEqual(145);
		expect(deduplicationRows().has('w1|')).toBe(false);
		expect(deduplicationFaults.delayNextDelete).toBeUndefined(); // taken once
	});

	it('delayNextWrite as a promise the test settles; INSERTs are not held, and the delay waits for the next UPDATE', async () => {
		let letItLand!: () => void;
		deduplicationFaults.delayNextWrite = new Promise<void>((resolve) => (letItLand = resolve));
		await helper.checkProcessedAndRecord(['a'], 'node', context('w1'), entries); // an INSERT
		expect(deduplicationFaults.delayNextWrite).toBeDefined();
		let landed = false;
		const call = helper.checkProcessedAndRecord(['b'], 'node', context('w1'), entries).then(() => (landed = true));
		await new Promise((resolve) => setTimeout(resolve, 50));
		expect(landed).toBe(false);
		expect(deduplicationRows().get('w1|n:node-1')?.data).toHaveLength(1);
		letItLand();
		await call;
		expect(deduplicationRows().get('w1|n:node-1')?.data).toHaveLength(2);
	});

	it('delayNextWrite in milliseconds, only for an UPDATE of its scope; a failure still applies after the delay', async () => {
		await helper.checkProcessedAndRecord([1], 'workflow', context('w1'), latest);
		await helper.checkProcessedAndRecord(['a'], 'node', context('w1'), entries);
		deduplicationFaults.delayNextWrite = 120;
		deduplicationFaults.delayWriteScope = 'n:';
		const started = Date.now();
		await helper.checkProcessedAndRecord([2], 'workflow', context('w1'), latest); // the hold's row: not held
		expect(Date.now() - started).toBeLessThan(100);
		await helper.checkProcessedAndRecord(['b'], 'node', context('w1'), entries);
		expect(Date.now() - started).toBeGreaterThanOrEqual(115);

		const held = holdNextWrite('n:');
		deduplicationFaults.failWriteAfter = 0;
		const call = helper.checkProcessedAndRecord(['c'], 'node', context('w1'), entries);
		await held.reached;
		held.release();
		await expect(call).rejects.toThrow(/injected by the harness/);
		await expect(held.landed).rejects.toThrow(/injected by the harness/);
		expect(deduplicationWrites.failed).toBe(1);
		expect(deduplicationRows().get('w1|n:node-1')?.data).toHaveLength(2);
	});
});

describe('counters', () => {
	it('count rows written, their bytes and the largest; entries rows apart', async () => {
		await helper.checkProcessedAndRecord([1], 'workflow', context('w1'), { mode: 'latestIncrementalKey' });
		await helper.checkProcessedAndRecord(['a', 'b', 'c'], 'node', context('w1'), entries);
		await helper.removeProcessed(['a', 'b', 'c'], 'node', context('w1'), entries);
		const json = (value: object) => Buffer.byteLength(JSON.stringify(value));
		const three = json({ mode: 'entries', data: ['xxxxxxxxxxxxxxxxxxxxxxxx', 'xxxxxxxxxxxxxxxxxxxxxxxx', 'xxxxxxxxxxxxxxxxxxxxxxxx'] });
		expect(deduplicationWrites).toMatchObject({
			count: 3,
			bytes: json({ mode: 'latestIncrementalKey', data: 1 }) + three + json({ mode: 'entries', data: [] }),
			largest: three,
			entries: { count: 2, bytes: three + json({ mode: 'entries', data: [] }), largest: three },
			deletes: 0,
			updatesWithoutRow: 0,
			failed: 0,
		});
	});
});
