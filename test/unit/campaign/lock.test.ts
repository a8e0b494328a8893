/**
 * The campaign lock's arithmetic (nodes/MessagingGateway/actions/campaign/lock.ts), against n8n's `latestIncrementalKey`
 * rule as the harness reproduces it: a value is new when it is larger than the stored one, the row keeps the largest.
 */
import { LOCK_TIMING, takeValues, takeVerdict, writeLimitMs } from '../../../nodes/MessagingGateway/actions/campaign/lock';

const now = 1_800_000_000_000;
const values = takeValues(now, LOCK_TIMING);

/** n8n's answer to a take: the row absent (undefined) or holding `stored`; and what the row holds after. */
function take(stored: number | undefined): { fresh: number[]; after: number } {
	if (stored === undefined) return { fresh: values, after: Math.max(...values) };
	const fresh = values.filter((value) => value > stored);
	return { fresh, after: Math.max(stored, ...fresh) };
}

describe('take', () => {
	it('an absent row: ours, stamped GRACE younger than stale (it stays alive until the first beat)', () => {
		const { fresh, after } = take(undefined);
		expect(takeVerdict(fresh, values)).toBe('ours');
		expect(now - after).toBe(LOCK_TIMING.staleMs - LOCK_TIMING.graceMs);
	});

	it('a row beaten under STALE ago: alive, and the call leaves its stamp as it was', () => {
		const stored = now - LOCK_TIMING.beatMs;
		const { fresh, after } = take(stored);
		expect(takeVerdict(fresh, values)).toBe('alive');
		expect(after).toBe(stored);
	});

	it('a row of a holder that died: stale; a waiter keeps a dead stamp young by at most GRACE', () => {
		expect(takeVerdict(take(now - LOCK_TIMING.staleMs - 1).fresh, values)).toBe('stale');
		const diedJustNow = now - LOCK_TIMING.staleMs + 1;
		const { fresh, after } = take(diedJustNow);
		expect(takeVerdict(fresh, values)).toBe('alive');
		expect(after - diedJustNow).toBeLessThanOrEqual(LOCK_TIMING.graceMs);
	});

	it('a waiter never writes a stamp above a live holder\'s last beat: a holder beating [last + 1, now] finds only another holder', () => {
		const holderLast = now - LOCK_TIMING.beatMs;
		expect(Math.max(...values)).toBeLessThan(holderLast + 1);
	});

	it('the timing leaves a beat of margin between the lease, the writes and stale', () => {
		expect(LOCK_TIMING.staleMs - LOCK_TIMING.leaseMs).toBeGreaterThan(LOCK_TIMING.beatMs);
		expect(writeLimitMs(LOCK_TIMING)).toBeGreaterThan(LOCK_TIMING.leaseMs);
		expect(writeLimitMs(LOCK_TIMING)).toBeLessThan(LOCK_TIMING.staleMs);
		expect(LOCK_TIMING.graceMs).toBeGreaterThan(LOCK_TIMING.beatMs);
	});
});
