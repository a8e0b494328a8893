/**
 * The harness's deduplication helpers behave as n8n's (packages/cli/src/deduplication/deduplication-helper.ts), so
 * that node tests of the campaign record meet the same semantics and the same limits as in a real n8n.
 */
import type { ICheckProcessedContextData, INode, Workflow } from 'n8n-workflow';

import { clearDeduplicationRows, deduplicationRows, deduplicationWrites, HarnessDeduplicator } from './deduplication';

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

	it('a value twice in one call is new once, except in the call that creates the row (all new, as in n8n)', async () => {
		expect(await helper.checkProcessedAndRecord(['x', 'x'], 'workflow', context('w1'), entries)).toEqual({ new: ['x', 'x'], processed: [] });
		expect(await helper.checkProcessedAndRecord(['a', 'a'], 'workflow', context('w1'), entries)).toEqual({ new: ['a'], processed: ['a'] });
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
});
