/**
 * The campaign lock's arithmetic (nodes/MessagingGateway/actions/campaign/lock.ts), against n8n's `latestIncrementalKey`
 * rule as the harness reproduces it: a value is new when it is larger than the stored one, the row keeps the largest.
 */
import { graceValue, LOCK_TIMING, takeValues, takeVerdict, writeLimitMs } from '../../../nodes/MessagingGateway/actions/campaign/lock';

const now = 1_800_000_000_000;
const values = takeValues(now, LOCK_TIMING);

/** n8n's answer to a call with `sent`: the row absent (undefined) or holding `stored`; and what the row holds after. */
function call(stored: number | undefined, sent: number[] = values): { fresh: number[]; after: number } {
	if (stored === undefined) return { fresh: sent, after: Math.max(...sent) };
	const fresh = sent.filter((value) => value > stored);
	return { fresh, after: Math.max(stored, ...fresh) };
}
const take = (stored: number | undefined) => call(stored);

/** A take at `at` on a row holding `stored`: its verdict, and what the row holds after. */
function takeAt(stored: number | undefined, at: number): { verdict: ReturnType<typeof takeVerdict>; after: number } {
	const sent = takeValues(at, LOCK_TIMING);
	const { fresh, after } = call(stored, sent);
	return { verdict: takeVerdict(fresh, sent), after };
}

describe('take', () => {
	it('an absent row: ours', () => {
		expect(takeVerdict(take(undefined).fresh, values)).toBe('ours');
	});

	it('a row beaten under STALE ago: alive, and the call leaves its stamp as it was', () => {
		const stored = now - LOCK_TIMING.beatMs;
		const { fresh, after } = take(stored);
		expect(takeVerdict(fresh, values)).toBe('alive');
		expect(after).toBe(stored);
	});

	it('a row of a holder that died: stale', () => {
		expect(takeVerdict(take(now - LOCK_TIMING.staleMs - 1).fresh, values)).toBe('stale');
	});

	it("a waiter polling every POLL never makes a dead holder's stamp younger: the lock lapses STALE after its last beat", () => {
		const lastBeat = now;
		let stored = lastBeat;
		let at = lastBeat;
		for (let answer = takeAt(stored, at); answer.verdict === 'alive'; answer = takeAt(stored, at)) {
			stored = answer.after;
			at += LOCK_TIMING.pollMs;
			if (at > lastBeat + LOCK_TIMING.waitMs) throw new Error('never stale');
		}
		expect(stored).toBe(lastBeat);
		expect(at - lastBeat).toBeLessThanOrEqual(LOCK_TIMING.staleMs + LOCK_TIMING.pollMs);
	});

	it('a taker claims GRACE: another waiter finds the lock alive for GRACE, and a later one finds it stale again', () => {
		const dead = now - LOCK_TIMING.staleMs - 1;
		const stale = call(dead).after;
		const claim = call(stale, [graceValue(now, LOCK_TIMING)]);
		expect(claim.fresh).toEqual([graceValue(now, LOCK_TIMING)]);
		const soon = now + LOCK_TIMING.graceMs - 1;
		expect(takeAt(claim.after, soon).verdict).toBe('alive');
		expect(takeAt(claim.after, now + LOCK_TIMING.graceMs + 1).verdict).toBe('stale');
		// A second claim of the same GRACE is not new: that waiter leaves the takeover to the first.
		expect(call(claim.after, [graceValue(now, LOCK_TIMING)]).fresh).toEqual([]);
	});

	it("a row just taken holds a stamp STALE old until its holder's first beat: a take a moment later finds it stale, one after the beat alive (why a takeover looks again SETTLE later)", () => {
		const created = takeAt(undefined, now);
		expect(created.verdict).toBe('ours');
		expect(takeAt(created.after, now + 1).verdict).toBe('stale');
		const firstBeat = call(created.after, [now]).after;
		expect(takeAt(firstBeat, now + LOCK_TIMING.settleMs).verdict).toBe('alive');
	});

	it('a waiter never writes a stamp above a live holder\'s last beat: a holder beating [last + 1, now] finds only another holder', () => {
		const holderLast = now - LOCK_TIMING.beatMs;
		expect(Math.max(...values, graceValue(now, LOCK_TIMING))).toBeLessThan(holderLast + 1);
	});

	it('the timing leaves a beat of margin between the lease, the writes and stale', () => {
		expect(LOCK_TIMING.staleMs - LOCK_TIMING.leaseMs).toBeGreaterThan(LOCK_TIMING.beatMs);
		expect(writeLimitMs(LOCK_TIMING)).toBeGreaterThan(LOCK_TIMING.leaseMs);
		expect(writeLimitMs(LOCK_TIMING)).toBeLessThan(LOCK_TIMING.staleMs);
		expect(LOCK_TIMING.graceMs).toBeGreaterThan(LOCK_TIMING.beatMs);
	});
});
