/**
 * Sending many items at the network's pace. Pure: no n8n imports; the clock and the sleep are given, so tests drive
 * it directly.
 *
 * - `dispatch` runs the items with up to `parallel` in progress, in input order of start, and gives one outcome per
 *   item in input order. With `stopOnFailure`, the first failure stops new starts; the ones in progress finish.
 *   Batching runs each batch to its end, then pauses before the next. Once `signal` aborts, no item starts (the
 *   given sleep is expected to end early too).
 * - `Pacer` decides when a request may start: at most `perSecond` starts in any second, evenly spaced; no start
 *   while a 429 pause lasts (one pause for all requests); optionally a minimum interval between two starts to the
 *   same recipient.
 */

export interface PacingLimits {
	/** Starts per second at most; 0: no cap. */
	perSecond: number;
	/** Minimum milliseconds between two starts to the same recipient; 0: off. */
	perRecipientMs: number;
}

/**
 * How late a start may be against the schedule and still be caught up (the next starts follow at once): more than a
 * busy machine's timer lateness, a few starts at 80/s, far less than the 1 s window of the cap.
 */
export const LATE_START_CATCH_UP_MS = 50;

export class Pacer {
	/** Even spacing of starts (1000 / perSecond ms); 0 without a cap. */
	private readonly spacing: number;
	/**
	 * The earliest start the even spacing allows (epoch ms). It follows a schedule, not the sleeps: a start that comes
	 * late (a timer on a busy machine fires tens of ms late) moves the next slot only by the spacing, so the following
	 * starts catch up, up to LATE_START_CATCH_UP_MS; after a longer lull the schedule restarts from the last start
	 * (no catch-up burst). The hard cap below holds either way.
	 */
	private nextSlot = 0;
	/** The last `perSecond` start times, oldest first: the hard cap (a start needs the oldest to be 1 s old). */
	private readonly recentStarts: number[] = [];
	/** No start before this time: the gateway answered 429 and asked to wait. */
	private pausedUntil = 0;
	/** Last start per recipient, kept only when a minimum interval per recipient is set. */
	private readonly lastStartByRecipient = new Map<string, number>();

	constructor(private readonly limits: PacingLimits) {
		this.spacing = limits.perSecond > 0 ? 1000 / limits.perSecond : 0;
	}

	/** Milliseconds until a start (to this recipient) may happen; 0: now. Changes nothing. */
	waitFor(now: number, recipient?: string): number {
		let at = Math.max(now, this.pausedUntil);
		if (this.spacing > 0) {
			at = Math.max(at, this.nextSlot);
			if (this.recentStarts.length >= this.limits.perSecond) at = Math.max(at, this.recentStarts[0] + 1000);
		}
		if (recipient !== undefined && this.limits.perRecipientMs > 0) {
			const last = this.lastStartByRecipient.get(recipient);
			if (last !== undefined) at = Math.max(at, last + this.limits.perRecipientMs);
		}
		return Math.max(0, Math.ceil(at - now));
	}

	/** Records a start at `now` (call it when waitFor said 0). */
	start(now: number, recipient?: string): void {
		if (this.spacing > 0) {
			const first = this.recentStarts.length === 0;
			this.nextSlot = (first ? now : Math.max(this.nextSlot, now - LATE_START_CATCH_UP_MS)) + this.spacing;
			this.recentStarts.push(now);
			if (this.recentStarts.length > this.limits.perSecond) this.recentStarts.shift();
		}
		if (recipient !== undefined && this.limits.perRecipientMs > 0) this.lastStartByRecipient.set(recipient, now);
	}

	/** A 429: no start for anyone before `now + ms` (a longer pause already set stays). */
	pause(now: number, ms: number): void {
		this.pausedUntil = Math.max(this.pausedUntil, now + ms);
	}
}

/** Waits until the pacer lets a start happen, then records it. */
export async function takeTurn(
	pacer: Pacer,
	clock: { now(): number; sleep(ms: number): Promise<void> },
	recipient?: string,
): Promise<void> {
	for (;;) {
		const wait = pacer.waitFor(clock.now(), recipient);
		if (wait <= 0) break;
		await clock.sleep(wait);
	}
	pacer.start(clock.now(), recipient);
}

export interface DispatchOptions {
	/** Items in progress at once (at least 1). */
	parallel: number;
	/** The first failure stops new starts (no Continue On Fail). */
	stopOnFailure: boolean;
	/** After every `size` items (all finished), a pause of `intervalMs` before the next batch. */
	batch?: { size: number; intervalMs: number };
	/** Once aborted, no item starts (items in progress end as their own waits and requests are aborted). */
	signal?: { readonly aborted: boolean };
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface DispatchResult<T> {
	/** One per item in input order; undefined for items never started (after a failure that stopped the run). */
	outcomes: Array<Outcome<T> | undefined>;
	/** The failed item with the lowest index, when `stopOnFailure` stopped the run. */
	stoppedBy?: { index: number; error: unknown };
	/** Items that succeeded. */
	succeeded: number;
	/** The signal aborted the run. */
	cancelled: boolean;
}

export async function dispatch<T>(
	count: number,
	options: DispatchOptions,
	run: (index: number) => Promise<T>,
	sleep: (ms: number) => Promise<void>,
): Promise<DispatchResult<T>> {
	const outcomes: Array<Outcome<T> | undefined> = new Array(count).fill(undefined);
	const parallel = Math.max(1, Math.floor(options.parallel));
	const batchSize = options.batch ? Math.max(1, options.batch.size) : count;
	let stopped = false;
	let succeeded = 0;
	const { signal } = options;

	for (let batchStart = 0; batchStart < count && !stopped && !signal?.aborted; batchStart += batchSize) {
		if (batchStart > 0 && options.batch) await sleep(options.batch.intervalMs);
		const batchEnd = Math.min(count, batchStart + batchSize);
		let next = batchStart;
		const worker = async () => {
			while (next < batchEnd && !stopped && !signal?.aborted) {
				const index = next++;
				try {
					outcomes[index] = { ok: true, value: await run(index) };
					succeeded++;
				} catch (error) {
					outcomes[index] = { ok: false, error };
					if (options.stopOnFailure) stopped = true;
				}
			}
		};
		await Promise.all(Array.from({ length: Math.min(parallel, batchEnd - batchStart) }, worker));
	}

	const result: DispatchResult<T> = { outcomes, succeeded, cancelled: signal?.aborted === true };
	if (stopped && !result.cancelled) {
		const index = outcomes.findIndex((outcome) => outcome !== undefined && !outcome.ok);
		const failed = outcomes[index] as { ok: false; error: unknown };
		result.stoppedBy = { index, error: failed.error };
	}
	return result;
}
