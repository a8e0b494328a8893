/**
 * When the items of a message run start, and when their requests may leave. Pure: no n8n imports; the clock and the
 * waits are given, so tests drive it directly.
 *
 * - `dispatch` starts items in the given order, at most `window` in progress, and gives one outcome per item.
 * - `RecipientTurns`: messages to one recipient leave one after another, in the order their items started.
 * - `RequestSlots`: at most Parallel Requests requests in flight; an item waiting for its recipient's turn holds none.
 * - `Pacer`: the pace of request starts (Messages per Second at most), which the network's throughput answers lower
 *   and time raises again, and the waits of recipients the network found messaged too often.
 * - `RunBreaker`: the refusals that stop further requests (their scope, gateway/networkErrors.ts).
 */
import type { Wait } from '../../../gateway/errors';
import type { Refusal } from '../../../gateway/networkErrors';

// ---- Items ----

export interface DispatchOptions {
	/** Items in progress at once (at least 1). */
	window: number;
	/** The first failure stops new starts (no Continue On Fail); the ones in progress finish. */
	stopOnFailure: boolean;
	/** After every `size` items (all finished), `intervalMs` before the next batch. */
	batch?: { size: number; intervalMs: number };
	/** Once aborted, no item starts (items in progress end as their own waits and requests are aborted). */
	signal?: { readonly aborted: boolean };
	/**
	 * Awaited before an item starts after another ended: answers that came meanwhile are handled first (their next
	 * requests leave), then the new item is read (its expressions are most of its work).
	 */
	beforeNext?: () => Promise<void>;
}

export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown };

export interface DispatchResult<T> {
	/** By item index; undefined for items never started (after a failure that stopped the run, or a cancel). */
	outcomes: Array<Outcome<T> | undefined>;
	/** The failure that stopped the run (the first one), when `stopOnFailure` did. */
	stoppedBy?: { index: number; error: unknown };
	succeeded: number;
	/** The signal aborted the run. */
	cancelled: boolean;
}

/**
 * Runs `run` for each item of `order` (item indexes), starting them in that order with at most `window` in progress.
 * `wait` is the pause between batches (it ends early when the run is cancelled).
 */
export async function dispatch<T>(
	order: readonly number[],
	options: DispatchOptions,
	run: (itemIndex: number) => Promise<T>,
	wait: (ms: number) => Promise<void>,
): Promise<DispatchResult<T>> {
	const outcomes: Array<Outcome<T> | undefined> = [];
	const window = Math.max(1, Math.floor(options.window));
	const batchSize = options.batch ? Math.max(1, options.batch.size) : order.length;
	const { signal } = options;
	let stopped = false;
	let stoppedBy: { index: number; error: unknown } | undefined;
	let succeeded = 0;

	for (let batchStart = 0; batchStart < order.length && !stopped && !signal?.aborted; batchStart += batchSize) {
		if (batchStart > 0 && options.batch) await wait(options.batch.intervalMs);
		const batchEnd = Math.min(order.length, batchStart + batchSize);
		let next = batchStart;
		const worker = async () => {
			for (let first = true; next < batchEnd && !stopped && !signal?.aborted; first = false) {
				if (!first && options.beforeNext) {
					await options.beforeNext();
					if (next >= batchEnd || stopped || signal?.aborted) break;
				}
				const itemIndex = order[next++];
				try {
					outcomes[itemIndex] = { ok: true, value: await run(itemIndex) };
					succeeded++;
				} catch (error) {
					outcomes[itemIndex] = { ok: false, error };
					if (options.stopOnFailure && !stopped) {
						stopped = true;
						stoppedBy = { index: itemIndex, error };
					}
				}
			}
		};
		await Promise.all(Array.from({ length: Math.min(window, batchEnd - batchStart) }, worker));
	}

	const cancelled = signal?.aborted === true;
	return { outcomes, succeeded, cancelled, stoppedBy: cancelled ? undefined : stoppedBy };
}

// ---- Recipients ----

/** An item's place among the run's messages to its recipient. */
export interface RecipientTurn {
	/** Settles when every earlier item to the same recipient is done: true when one of them failed. */
	ready: Promise<boolean>;
	/** This item's turn is over: sent, or failed (or not sent). Only the first call counts. */
	done(failed: boolean): void;
}

/**
 * Messages to one recipient leave one after another, in the order their items took their turn, so that "Here is your
 * code" never arrives after "1234"; messages to different recipients go in parallel.
 *
 * State: `tails` maps a recipient to a promise that settles when the last item that took a turn for it is done, with
 * whether any of them failed. An entry is removed when that promise settles and no later item took a turn for the
 * recipient, so the map holds only recipients with items in progress.
 */
export class RecipientTurns {
	private readonly tails = new Map<string, Promise<boolean>>();

	take(recipient: string): RecipientTurn {
		const ready = this.tails.get(recipient) ?? Promise.resolve(false);
		let release!: (failed: boolean) => void;
		const released = new Promise<boolean>((resolve) => (release = resolve));
		// This item's turn ends when it is done and every earlier one is, whatever order `done` is called in.
		const tail = Promise.all([ready, released]).then(([earlierFailed, failed]) => earlierFailed || failed);
		this.tails.set(recipient, tail);
		void tail.then(() => {
			if (this.tails.get(recipient) === tail) this.tails.delete(recipient);
		});
		return { ready, done: release };
	}

	/** Recipients with an item in progress (for tests). */
	get size(): number {
		return this.tails.size;
	}
}

// ---- Requests in flight ----

/**
 * At most `size` requests in flight; a request waits for a slot in the order it asked. State: the free slots and the
 * queue of requests waiting for one.
 */
export class RequestSlots {
	private free: number;
	private readonly waiting: Array<() => void> = [];

	constructor(size: number) {
		this.free = Math.max(1, Math.floor(size));
	}

	/** Resolves with the slot's release (call it once, when the request is answered). */
	async take(): Promise<() => void> {
		if (this.free > 0) this.free--;
		else await new Promise<void>((resolve) => this.waiting.push(resolve));
		let released = false;
		return () => {
			if (released) return;
			released = true;
			const next = this.waiting.shift();
			if (next) next();
			else this.free++;
		};
	}
}

// ---- Pace ----

export interface PacingLimits {
	/** Starts per second at most (Messages per Second); 0: no cap. */
	perSecond: number;
	/** Least milliseconds between two starts to the same recipient (Interval per Recipient); 0: none. */
	perRecipientMs: number;
}

/**
 * How the pace follows the network's throughput answers (docs/sending.md), as congestion control does: a refusal
 * lowers the pace at once (to what the phone accepted in the last second, less a tenth, once per round of requests),
 * and every second without one raises it by a twentieth, up to Messages per Second.
 */
export const THROUGHPUT_PACING = {
	lowerTo: 0.9,
	raiseBy: 0.05,
	raiseEveryMs: 1000,
	/** The pace never goes below one start a second. */
	lowestPerSecond: 1,
	/** The network counts a phone's messages per second: after a refusal with no answer accepted in the last second, a second's wait. */
	windowMs: 1000,
} as const;

/**
 * The spacing a pair rate answer (131056) teaches for its recipient: at first 1 s, doubled at each further answer (a
 * message spaced so was still too soon), up to the network's rate of about one message every 6 s.
 */
export const PAIR_RATE_WAIT = { firstMs: 1000, mostMs: 6000 } as const;

/**
 * How late a start may be against the schedule and still be caught up (the next starts follow at once): more than a
 * busy machine's timer lateness, a few starts at 80/s, far less than the 1 s window of the cap.
 */
export const LATE_START_CATCH_UP_MS = 50;

/** What a run's throughput answers did to its pace (the run's hint says it, docs/sending.md). */
export interface PaceReport {
	/** Throughput answers (130429 or 429) the run waited out. */
	throughputWaits: number;
	/** Pair rate answers (131056) the run waited out. */
	pairRateWaits: number;
	/** The pace when the run ended (starts per second); Infinity without a cap and without a throughput answer. */
	pace: number;
	/** The lowest pace the run went down to. */
	lowestPace: number;
}

export class Pacer {
	/** Starts per second now, at most the cap (Infinity: no cap); lowered by throughput answers, raised by time. */
	private pace: number;
	/**
	 * The earliest start the even spacing allows (epoch ms). It follows a schedule, not the waits: a start that comes
	 * late moves the next slot only by the spacing, so the following starts catch up, up to LATE_START_CATCH_UP_MS;
	 * after a longer lull the schedule restarts from the last start (no catch-up burst).
	 */
	private nextSlot = 0;
	/** Starts of the last second, oldest first: the hard cap (no more than Messages per Second in any second). */
	private readonly recentStarts: number[] = [];
	/** Accepted answers of the last second, oldest first: what the phone accepts now. */
	private readonly recentAccepted: number[] = [];
	/** No start before this time: a throughput answer asked to wait. */
	private pausedUntil = 0;
	/** When the pace last went down: a refusal of a request started before it says nothing new. */
	private loweredAt = -Infinity;
	/** When the pace was last changed or raised: it rises every raiseEveryMs after. */
	private raisedAt = 0;
	/**
	 * Per recipient, once it needs spacing (Interval per Recipient, or a pair rate answer): its last start, the spacing
	 * the network's pair rate taught, and no start before `pausedUntil` (the refused message's wait).
	 */
	private readonly recipients = new Map<string, RecipientPace>();
	private readonly report: PaceReport;

	constructor(private readonly limits: PacingLimits) {
		this.pace = limits.perSecond > 0 ? limits.perSecond : Infinity;
		this.report = { throughputWaits: 0, pairRateWaits: 0, pace: this.pace, lowestPace: this.pace };
	}

	/** Milliseconds until a start (to this recipient) may happen; 0: now. */
	waitFor(now: number, recipient?: string): number {
		this.raise(now);
		forgetBefore(this.recentStarts, now - 1000);
		let at = Math.max(now, this.pausedUntil, this.nextSlot);
		if (this.limits.perSecond > 0 && this.recentStarts.length >= this.limits.perSecond) {
			at = Math.max(at, this.recentStarts[this.recentStarts.length - this.limits.perSecond] + 1000);
		}
		const state = recipient === undefined ? undefined : this.recipients.get(recipient);
		const spacing = Math.max(this.limits.perRecipientMs, state?.pairSpacingMs ?? 0);
		if (state?.lastStart !== undefined && spacing > 0) at = Math.max(at, state.lastStart + spacing);
		if (state?.pausedUntil !== undefined) at = Math.max(at, state.pausedUntil);
		return Math.max(0, Math.ceil(at - now));
	}

	/** Records a start at `now` (call it when waitFor said 0). */
	start(now: number, recipient?: string): void {
		// Even spacing at the pace; none without a cap.
		if (Number.isFinite(this.pace)) {
			const first = this.nextSlot === 0;
			this.nextSlot = (first ? now : Math.max(this.nextSlot, now - LATE_START_CATCH_UP_MS)) + 1000 / this.pace;
		}
		this.recentStarts.push(now);
		forgetBefore(this.recentStarts, now - 1000);
		if (recipient === undefined) return;
		if (this.limits.perRecipientMs > 0 || this.recipients.has(recipient)) this.recipient(recipient).lastStart = now;
	}

	/** An answer accepted at `now`. */
	accepted(now: number): void {
		this.recentAccepted.push(now);
		forgetBefore(this.recentAccepted, now - THROUGHPUT_PACING.windowMs);
	}

	/**
	 * The network answered a request started at `startedAt` with a wait (errors.ts, waitOf): the pace follows it. True
	 * when the message may go again by `deadline` (its Timeout since its first try); a Retry-After past the deadline
	 * is not waited for, nor does it hold the run's other items.
	 */
	refused(answer: Wait, now: number, startedAt: number, recipient: string | undefined, deadline: number): boolean {
		if (answer.kind === 'pairRate') {
			if (recipient !== undefined) this.pairRateRefused(now, recipient);
		} else if (answer.retryAfterMs !== undefined && now + answer.retryAfterMs > deadline) {
			return false;
		} else {
			this.throughputRefused(now, startedAt, answer.retryAfterMs);
		}
		return now + this.waitFor(now, recipient) <= deadline;
	}

	/**
	 * The phone's throughput refused a request started at `startedAt` (130429, or a 429 with its Retry-After): every
	 * start waits (the Retry-After, or until the oldest answer accepted in the last second is a second old), and the
	 * pace goes down to what the phone accepted in the last second, less a tenth, unless it went down after this
	 * request started.
	 */
	throughputRefused(now: number, startedAt: number, retryAfterMs?: number): void {
		this.report.throughputWaits++;
		forgetBefore(this.recentAccepted, now - THROUGHPUT_PACING.windowMs);
		const oldest = this.recentAccepted[0];
		const until =
			retryAfterMs !== undefined ? now + retryAfterMs : oldest !== undefined ? oldest + THROUGHPUT_PACING.windowMs : now + THROUGHPUT_PACING.windowMs;
		this.pausedUntil = Math.max(this.pausedUntil, until);
		this.nextSlot = Math.max(this.nextSlot, this.pausedUntil);
		if (startedAt < this.loweredAt) return;
		const accepted = this.recentAccepted.length;
		// Nothing accepted in the last second (another sender has the phone's throughput): half of what was started.
		const base = accepted > 0 ? Math.min(this.pace, accepted) : Math.min(this.pace, this.recentStarts.length) / 2;
		this.setPace(Math.max(THROUGHPUT_PACING.lowestPerSecond, base * THROUGHPUT_PACING.lowerTo), now);
		this.loweredAt = now;
	}

	/**
	 * The network refused a message to `recipient` for its pair rate (131056): that message waits, and the recipient's
	 * later messages are spaced as much (PAIR_RATE_WAIT: longer after each further answer), others not.
	 */
	pairRateRefused(now: number, recipient: string): void {
		this.report.pairRateWaits++;
		const state = this.recipient(recipient);
		const spacing = state.pairSpacingMs === undefined ? Math.max(PAIR_RATE_WAIT.firstMs, this.limits.perRecipientMs) : state.pairSpacingMs * 2;
		state.pairSpacingMs = Math.min(PAIR_RATE_WAIT.mostMs, spacing);
		state.pausedUntil = now + state.pairSpacingMs;
	}

	/** What the throughput answers did to the pace. */
	get pacing(): PaceReport {
		return { ...this.report, pace: this.pace };
	}

	/** Every raiseEveryMs since the last change, the pace rises by raiseBy, up to the cap. */
	private raise(now: number): void {
		if (!Number.isFinite(this.pace)) return;
		const ceiling = this.limits.perSecond > 0 ? this.limits.perSecond : Infinity;
		while (this.pace < ceiling && now - this.raisedAt >= THROUGHPUT_PACING.raiseEveryMs) {
			this.pace = Math.min(ceiling, this.pace + Math.max(1, this.pace * THROUGHPUT_PACING.raiseBy));
			this.raisedAt += THROUGHPUT_PACING.raiseEveryMs;
		}
	}

	private setPace(pace: number, now: number): void {
		this.pace = pace;
		this.raisedAt = now;
		this.report.lowestPace = Math.min(this.report.lowestPace, pace);
	}

	private recipient(recipient: string): RecipientPace {
		let state = this.recipients.get(recipient);
		if (!state) {
			state = {};
			this.recipients.set(recipient, state);
		}
		return state;
	}
}

interface RecipientPace {
	lastStart?: number;
	pairSpacingMs?: number;
	pausedUntil?: number;
}

/** Drops the times at or before `time` from the front of an ascending list. */
function forgetBefore(times: number[], time: number): void {
	let drop = 0;
	while (drop < times.length && times[drop] <= time) drop++;
	if (drop > 0) times.splice(0, drop);
}

// ---- Refusals that stop further requests ----

/** A template message's identity (name and language), or undefined for another message. */
export function templateOf(body: unknown): string | undefined {
	const template = (body as { template?: { name?: unknown; language?: { code?: unknown } } } | undefined)?.template;
	if (!template || typeof template.name !== 'string') return undefined;
	const language = typeof template.language?.code === 'string' ? template.language.code : '';
	return `${template.name} (${language})`;
}

/** The refusals of the run that stop further messages: the account's (every message), a template's (its messages). */
export class RunBreaker {
	private account: Refusal | undefined;
	private readonly templates = new Map<string, Refusal>();

	/** Remembers a refusal; the first one of each kind (the account, each template) is kept. */
	trip(refusal: Refusal): void {
		if (refusal.scope === 'account') this.account ??= refusal;
		else if (refusal.template && !this.templates.has(refusal.template)) this.templates.set(refusal.template, refusal);
	}

	/** The refusal that stops a message (with this template), or undefined: it may be sent. */
	blocking(template: string | undefined): Refusal | undefined {
		return this.account ?? (template === undefined ? undefined : this.templates.get(template));
	}

	/** The refusal an item's answer tripped, if it tripped one. */
	trippedBy(itemIndex: number): Refusal | undefined {
		if (this.account?.itemIndex === itemIndex) return this.account;
		return [...this.templates.values()].find((refusal) => refusal.itemIndex === itemIndex);
	}
}
