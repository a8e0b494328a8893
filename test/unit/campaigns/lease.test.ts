/**
 * The campaign hold's logic (nodes/MessagingGateway/actions/campaigns/lease.ts), against n8n's `latestIncrementalKey`
 * rule as the harness reproduces it: a value is new when it is larger than the stored one, the row keeps the largest.
 */
import { acquireValues, acquireVerdict, heldElsewhereText, isDuplicateRow, isIncompatibleRow, LEASE_TIMING } from '../../../nodes/MessagingGateway/actions/campaigns/lease';

const now = 1_800_000_000_000;
const values = acquireValues(now, LEASE_TIMING);

/** n8n's answer to the acquire call: the row absent (undefined) or holding `stored`; and what the row holds after. */
function acquire(stored: number | undefined): { fresh: number[]; after: number } {
	if (stored === undefined) return { fresh: values, after: Math.max(...values) };
	const fresh = values.filter((value) => value > stored);
	return { fresh, after: Math.max(stored, ...fresh) };
}

describe('acquire', () => {
	it('an absent row: ours, stamped GRACE younger than stale (it stays alive until the first beat)', () => {
		const { fresh, after } = acquire(undefined);
		expect(acquireVerdict(fresh, values)).toBe('ours');
		expect(now - after).toBe(LEASE_TIMING.staleMs - LEASE_TIMING.graceMs);
		expect(now - after).toBeLessThan(LEASE_TIMING.staleMs);
	});

	it('a row beaten under STALE ago: alive, and the call leaves its stamp as it was', () => {
		const stored = now - LEASE_TIMING.beatMs;
		const { fresh, after } = acquire(stored);
		expect(acquireVerdict(fresh, values)).toBe('alive');
		expect(after).toBe(stored);
	});

	it('a row of a holder that died: stale; a refused call keeps a dead stamp young by at most GRACE', () => {
		const stored = now - LEASE_TIMING.staleMs - 1;
		expect(acquireVerdict(acquire(stored).fresh, values)).toBe('stale');
		const diedJustNow = now - LEASE_TIMING.staleMs + 1;
		const { fresh, after } = acquire(diedJustNow);
		expect(acquireVerdict(fresh, values)).toBe('alive');
		expect(after - diedJustNow).toBeLessThanOrEqual(LEASE_TIMING.graceMs);
	});

	it('the timing leaves a beat of margin between the lease and stale, and between writes and stale', () => {
		expect(LEASE_TIMING.staleMs - LEASE_TIMING.leaseMs).toBeGreaterThan(LEASE_TIMING.beatMs);
		expect(LEASE_TIMING.graceMs).toBeGreaterThan(LEASE_TIMING.beatMs);
	});
});

describe('what the helpers answer', () => {
	it('reads the primary key of Postgres and SQLite, and n8n\'s refusal of a row in another mode', () => {
		expect(isDuplicateRow(new Error('duplicate key value violates unique constraint "PK_processed_data"'))).toBe(true);
		expect(isDuplicateRow(new Error('SQLITE_CONSTRAINT: UNIQUE constraint failed: processed_data.workflowId'))).toBe(true);
		expect(isDuplicateRow(new Error('Connection terminated'))).toBe(false);
		expect(isIncompatibleRow(new Error('Deduplication data was originally saved with an incompatible setting of the ‘Keep Items Where’ parameter.'))).toBe(true);
	});

	it('the refusal says when a dead worker\'s hold lapses', () => {
		expect(heldElsewhereText(LEASE_TIMING).description).toMatch(/^Run again when it has ended; if its worker died, its hold lapses 30 s after its last sign of life/);
	});
});
