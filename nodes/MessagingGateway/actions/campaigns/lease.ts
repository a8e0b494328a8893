/**
 * The campaign hold's logic, without n8n: one execution of a workflow at a time sends a campaign (docs/campaigns.md,
 * "Two executions at once"). hold.ts does the writes. Pure: no n8n imports.
 *
 * n8n's deduplication helpers have no lock and no compare-and-set, except one: the INSERT of an absent row (a second
 * INSERT at the same moment fails on the table's primary key). Every other call reads the row, then rewrites it. So
 * the hold is a lease on the workflow's `workflow`-scope row in mode `latestIncrementalKey` (the row keeps the
 * largest number written), whose value is the holder's last sign of life (a Date.now() stamp):
 * - acquire: one call with [0, now - STALE, now - STALE + GRACE]. `0` is new only when the row was absent (this call
 *   inserted it: the hold is ours, its stamp `now - STALE + GRACE`); `now - STALE` is new only when the row's last
 *   stamp is older than STALE (its holder died: take it over); else the holder is alive (refuse). The inserted stamp
 *   is not `now`, and a refused call writes no stamp above `now - STALE + GRACE`, so that callers refused by a dead
 *   holder's row delay its takeover by at most GRACE (a stamp of `now` would keep it alive for ever);
 * - the holder beats (writes `now`) at once after the acquire, before it sends anything, then every BEAT;
 * - it sends only while its last successful beat is under LEASE old, and writes the record only while under
 *   WRITE old (STALE - BEAT: a stamp may lose one beat to another call's read-then-rewrite); a lapse is final;
 * - a beat whose stamp is not new (a larger stamp is stored) means another execution took the hold over: lapsed.
 */

export interface LeaseTiming {
	/** Between two beats. */
	beatMs: number;
	/** The holder stops sending when its last successful beat is this old. */
	leaseMs: number;
	/** Another execution takes the hold over when the last stamp is this old. */
	staleMs: number;
	/** A taker waits this long between deleting the dead holder's row and inserting its own. */
	settleMs: number;
	/** How much younger than STALE the stamp of an acquire (inserted, or written by a refused call) is. */
	graceMs: number;
}

export const LEASE_TIMING: Readonly<LeaseTiming> = Object.freeze({
	beatMs: 5_000,
	leaseMs: 20_000,
	staleMs: 30_000,
	settleMs: 3_000,
	graceMs: 10_000,
});

/** The values of an acquire call at `now`. */
export function acquireValues(now: number, timing: LeaseTiming): number[] {
	return [0, now - timing.staleMs, now - timing.staleMs + timing.graceMs];
}

/** What an acquire call's answer (its `new` values) says: the hold is ours, its holder is dead, or alive. */
export function acquireVerdict(fresh: unknown[], values: number[]): 'ours' | 'stale' | 'alive' {
	const isNew = new Set(fresh.map(Number));
	if (isNew.has(values[0])) return 'ours';
	return isNew.has(values[1]) ? 'stale' : 'alive';
}

/** The record may be written while the last beat is under this old (no one can have taken the hold over yet). */
export function writeLimitMs(timing: LeaseTiming): number {
	return timing.staleMs - timing.beatMs;
}

function duration(ms: number): string {
	return ms % 1000 === 0 ? `${ms / 1000} s` : `${ms} ms`;
}

/** The refusal of an execution that found another one holding the workflow's campaigns. */
export function heldElsewhereText(timing: LeaseTiming): { message: string; description: string } {
	return {
		message: `Not sent: another execution of this workflow is sending a campaign now (its last sign of life was under ${duration(timing.staleMs)} ago)`,
		description: `Run again when it has ended; if its worker died, its hold lapses ${duration(timing.staleMs)} after its last sign of life. Nothing was sent.`,
	};
}

/** The workflow-scope row is in another mode: a Remove Duplicates node of this workflow keeps its history there. */
export function incompatibleRowText(): { message: string; description: string } {
	return {
		message: "Not sent: the workflow's deduplication history in scope Workflow belongs to another node (n8n: incompatible setting)",
		description:
			'A campaign holds that row while it sends (docs/campaigns.md). Set the Scope of the Remove Duplicates node of this workflow to Node. Nothing was sent.',
	};
}

/** The hold could not be taken for another reason (the database did not answer). */
export function notTakenText(cause: string): { message: string; description: string } {
	return {
		message: `Not sent: the campaign's hold could not be taken: ${cause}`,
		description: "The campaign's hold is written to n8n's database before anything is sent. Nothing was sent.",
	};
}

/** An item not sent because the hold lapsed (no sign of life could be written for LEASE, or it was taken over). */
export function lapsedText(itemIndex: number, timing: LeaseTiming, takenOver: boolean): { message: string; description: string } {
	const why = takenOver
		? 'another execution took the campaign over'
		: `its sign of life could not be written to n8n's database for ${duration(timing.leaseMs)}`;
	return {
		message: `Not sent (item ${itemIndex}): the run stopped sending because its hold on the campaign lapsed: ${why}`,
		description: 'Another execution may be sending the campaign now; a run again, once it has ended, sends what was not sent.',
	};
}

/** Whether an error of the helpers is n8n's refusal of a row in another mode. */
export function isIncompatibleRow(error: unknown): boolean {
	return /incompatible setting/i.test(error instanceof Error ? error.message : String(error));
}

/** Whether an error of the helpers is the primary key's refusal of a second INSERT (another execution inserted first). */
export function isDuplicateRow(error: unknown): boolean {
	return /duplicate key|unique constraint|SQLITE_CONSTRAINT/i.test(error instanceof Error ? error.message : String(error));
}
