/**
 * The campaign lock: one execution of a workflow at a time writes campaign records, across every n8n process
 * (queue-mode workers included); another execution that needs it waits for it. n8n's deduplication helpers have no
 * lock and no compare-and-set but one: the INSERT of an absent row (a second INSERT at the same moment fails on the
 * table's primary key). Every other call reads the row, then rewrites it. So the lock is a lease on the workflow's
 * `workflow`-scope row in mode `latestIncrementalKey` (the row keeps the largest number written), absent when free,
 * whose value is the holder's last sign of life (a Date.now() stamp):
 *
 * - take: one call with [0, now - STALE]. `0` is new only when the row was absent (this call inserted it: the lock
 *   is ours, and its first beat follows at once); `now - STALE` is new only when the last stamp is older than STALE
 *   (its holder died: it is taken over, below); else the holder is alive and the taker waits, asking again every
 *   POLL, up to WAIT. A waiter's call writes nothing newer than the stored stamp, so waiting never keeps a dead
 *   holder's lock alive (a call with a younger value would, poll after poll);
 * - take over: first take again SETTLE later (n8n creates the row with a take's largest value, `now - STALE`, so a
 *   row just taken looks stale until its holder's first beat lands); then claim GRACE (write `now - STALE + GRACE`;
 *   when it is not new, another waiter claimed it and is taking over: wait), so that other waiters leave the takeover
 *   to this one for GRACE; delete the row, wait SETTLE, take; then, beating, wait BEAT + SETTLE before anything else,
 *   so that a second taker whose late delete removed our row is found (below) before either writes a record;
 * - the holder beats (writes [last + 1, now]) at once, then every BEAT. If `last + 1` is not new, a larger stamp is
 *   stored: another execution holds the row (it took over): the lock is lost, for good. It sends only while its last
 *   beat is under LEASE old, and writes the record only while under STALE - BEAT old (a stamp may lose one beat to a
 *   waiter's read-then-rewrite); a lapse is final;
 * - release: delete the row at the run's end (after a Stop or an error too), unless the lock was lost.
 *
 * What remains assumed (docs/campaigns.md): a delete and a record write land within a few seconds of their call; the
 * clocks of n8n's processes agree within STALE - LEASE; no process stalls for BEAT between a check and its write.
 */
import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { wait } from '../../../gateway/transport';

export interface LockTiming {
	/** Between two beats. */
	beatMs: number;
	/** The holder stops sending when its last beat is this old. */
	leaseMs: number;
	/** Another execution takes the lock over when the last stamp is this old. */
	staleMs: number;
	/** A taker waits this long between deleting a dead holder's row and inserting its own. */
	settleMs: number;
	/** How much younger than STALE a refused call's stamp is. */
	graceMs: number;
	/** A waiter asks again after this long. */
	pollMs: number;
	/** A waiter gives up after this long: the run's campaign items are then not sent. */
	waitMs: number;
}

export const LOCK_TIMING: Readonly<LockTiming> = Object.freeze({
	beatMs: 5_000,
	leaseMs: 20_000,
	staleMs: 30_000,
	settleMs: 3_000,
	graceMs: 10_000,
	pollMs: 1_000,
	waitMs: 300_000,
});

/** The values of a take at `now`. */
export function takeValues(now: number, timing: LockTiming): number[] {
	return [0, now - timing.staleMs];
}

/** The value by which a taker claims a dead holder's lock for GRACE (other waiters find it alive meanwhile). */
export function graceValue(now: number, timing: LockTiming): number {
	return now - timing.staleMs + timing.graceMs;
}

/** What a take's answer (its `new` values) says: the lock is ours, its holder is dead, or alive. */
export function takeVerdict(fresh: unknown[], values: number[]): 'ours' | 'stale' | 'alive' {
	const isNew = new Set(fresh.map(Number));
	if (isNew.has(values[0])) return 'ours';
	return isNew.has(values[1]) ? 'stale' : 'alive';
}

/** The record may be written while the last beat is under this old: no one can have taken the lock over yet. */
export function writeLimitMs(timing: LockTiming): number {
	return timing.staleMs - timing.beatMs;
}

const SCOPE = 'workflow';
const LATEST: ICheckProcessedOptions = { mode: 'latestIncrementalKey' };

const seconds = (ms: number) => (ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`);

/** Why the lock was not taken, as the text of each campaign item's error. */
export interface LockRefusal {
	message: string;
	description: string;
}

export class CampaignLock {
	/** The stamp of the last beat written (local time); undefined until the first. */
	private lastBeat: number | undefined;
	private state: 'none' | 'held' | 'timedOut' | 'lost' = 'none';
	/** This execution inserted the row: it deletes it at the end, unless the lock lapsed. */
	private inserted = false;
	private beating: Promise<void> = Promise.resolve();
	private readonly ended = new AbortController();

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly timing: LockTiming = LOCK_TIMING,
	) {}

	/** Takes the lock, waiting up to WAIT while another execution holds it; undefined when it is ours, else why not. */
	async take(): Promise<LockRefusal | undefined> {
		const giveUpAt = Date.now() + this.timing.waitMs;
		for (;;) {
			const verdict = await this.tryTake();
			if (typeof verdict === 'object') return verdict;
			if (verdict === 'ours') {
				const held = await this.hold(false);
				if (held !== 'alive') return held;
			}
			if (verdict === 'stale') {
				const takenOver = await this.takeOver();
				if (takenOver !== 'alive') return takenOver;
			}
			if (Date.now() >= giveUpAt) return heldElsewhere(this.timing);
			// Stop ends the wait.
			if (!(await wait(this.timing.pollMs, this.context.getExecutionCancelSignal()))) return canceledWhileWaiting();
		}
	}

	/** New sends may start: the lock is ours and its last beat under LEASE old. */
	sending(): boolean {
		this.checkLapse();
		return this.state === 'held';
	}

	/** The record may be written: the lock is ours, and no one can have taken it over yet. */
	writing(): boolean {
		return (
			this.lastBeat !== undefined && this.state !== 'lost' && this.state !== 'none' && Date.now() - this.lastBeat < writeLimitMs(this.timing)
		);
	}

	/** The error of an item not sent because the lock lapsed. */
	lapsedError(itemIndex: number): NodeOperationError {
		const why =
			this.state === 'lost'
				? 'another execution took the campaign lock over'
				: `its sign of life could not be written to n8n's database for ${seconds(this.timing.leaseMs)}`;
		return new NodeOperationError(this.context.getNode(), `Not sent (item ${itemIndex}): the run stopped sending because its campaign lock lapsed: ${why}`, {
			itemIndex,
			description: 'Another execution may be sending the campaign now; a run again, once it has ended, sends what was not sent.',
		});
	}

	/** The run is over: beats stop, and the row is deleted when the lock is still ours. */
	async release(): Promise<void> {
		this.ended.abort();
		await this.beating;
		if (!this.inserted) return;
		this.checkLapse();
		if (this.state !== 'held') return; // The row may be another execution's now; ours lapses by itself.
		try {
			await this.context.helpers.clearAllProcessedItems(SCOPE, LATEST);
		} catch (error) {
			this.context.logger.warn(
				`Messaging Gateway: the campaign lock could not be released (it lapses ${seconds(this.timing.staleMs)} after its last sign of life): ${(error as Error).message}`,
			);
		}
	}

	private checkLapse(): void {
		if (this.state === 'held' && this.lastBeat !== undefined && Date.now() - this.lastBeat >= this.timing.leaseMs) this.state = 'timedOut';
	}

	/** Its holder died (still so SETTLE later): claim GRACE, delete its row, wait, take; 'alive' when another taker was first. */
	private async takeOver(): Promise<LockRefusal | undefined | 'alive'> {
		if (!(await wait(this.timing.settleMs, this.context.getExecutionCancelSignal()))) return canceledWhileWaiting();
		const again = await this.tryTake();
		if (again === 'ours') return await this.hold(false);
		if (again !== 'stale') return again;
		try {
			const grace = graceValue(Date.now(), this.timing);
			const answer = await this.context.helpers.checkProcessedAndRecord([grace], SCOPE, LATEST);
			if (!answer.new.map(Number).includes(grace)) return 'alive';
			await this.context.helpers.clearAllProcessedItems(SCOPE, LATEST);
		} catch (error) {
			return notTaken((error as Error).message);
		}
		if (!(await wait(this.timing.settleMs, this.ended.signal))) return heldElsewhere(this.timing);
		const verdict = await this.tryTake();
		if (typeof verdict === 'object') return verdict;
		return verdict === 'ours' ? await this.hold(true) : 'alive';
	}

	/**
	 * The row is ours: beat at once, then every BEAT. After a takeover the lock is used only once a beat later than
	 * BEAT + SETTLE found no other holder: a second taker whose late delete removed our row is found before either
	 * writes a record.
	 */
	private async hold(tookOver: boolean): Promise<LockRefusal | undefined | 'alive'> {
		this.inserted = true;
		this.state = 'held';
		this.lastBeat = undefined;
		const firstBeat = await this.beat();
		if (firstBeat) return notTaken(firstBeat.message);
		this.beating = this.beatUntilEnd();
		if (tookOver) await wait(this.timing.beatMs + this.timing.settleMs, this.ended.signal);
		this.checkLapse();
		if (this.state === 'held') return undefined;
		// Another execution holds it after all: wait for it as for any holder.
		await this.beating;
		this.inserted = false;
		return 'alive';
	}

	private async tryTake(): Promise<'ours' | 'stale' | 'alive' | LockRefusal> {
		const values = takeValues(Date.now(), this.timing);
		try {
			const answer = await this.context.helpers.checkProcessedAndRecord(values, SCOPE, LATEST);
			return takeVerdict(answer.new, values);
		} catch (error) {
			const text = error instanceof Error ? error.message : String(error);
			// Another execution inserted the row at the same moment: its insert won.
			if (/duplicate key|unique constraint|SQLITE_CONSTRAINT/i.test(text)) return 'alive';
			if (/incompatible setting/i.test(text)) {
				return {
					message: "Not sent: the workflow's deduplication history in scope Workflow belongs to another node (n8n: incompatible setting)",
					description:
						'A campaign holds that row while it sends (docs/campaigns.md). Set the Scope of the Remove Duplicates node of this workflow to Node. Nothing was sent.',
				};
			}
			return notTaken(text);
		}
	}

	/**
	 * Writes [last + 1, now]: `last + 1` is new unless a larger stamp is stored, which only another holder writes (a
	 * waiter writes at most `now - STALE + GRACE`): then the lock is lost. Undefined when written, else the error.
	 */
	private async beat(): Promise<Error | undefined> {
		const stamp = Date.now();
		const values = this.lastBeat === undefined ? [stamp] : [this.lastBeat + 1, stamp];
		try {
			const answer = await this.context.helpers.checkProcessedAndRecord(values, SCOPE, LATEST);
			const fresh = new Set(answer.new.map(Number));
			if (!fresh.has(values[0])) this.state = 'lost';
			else this.lastBeat = Math.max(this.lastBeat ?? 0, stamp);
			return undefined;
		} catch (error) {
			return error instanceof Error ? error : new Error(String(error));
		}
	}

	private async beatUntilEnd(): Promise<void> {
		while (await wait(this.timing.beatMs, this.ended.signal)) {
			this.checkLapse();
			if (this.state !== 'held') return; // Final: a later beat must not revive a lock another may hold.
			const error = await this.beat();
			if (error) this.context.logger.debug(`Messaging Gateway: the campaign's sign of life could not be written: ${error.message}`);
		}
	}
}

/** The refusal of an execution that waited for the lock for WAIT. */
function heldElsewhere(timing: LockTiming): LockRefusal {
	return {
		message: `Not sent: another execution of this workflow held the campaign lock for the ${seconds(timing.waitMs)} this run waited`,
		description: `Run again when it has ended; if its worker died, its lock lapses ${seconds(timing.staleMs)} after its last sign of life. Nothing was sent.`,
	};
}

/** A Stop while the run waited for the lock. */
function canceledWhileWaiting(): LockRefusal {
	return { message: 'The execution was canceled while it waited for the campaign lock', description: 'Nothing was sent.' };
}

/** The lock could not be taken for another reason (the database did not answer). */
function notTaken(cause: string): LockRefusal {
	return {
		message: `Not sent: the campaign lock could not be taken: ${cause}`,
		description: "The campaign lock is written to n8n's database before anything is sent. Nothing was sent.",
	};
}
