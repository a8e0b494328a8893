/**
 * The campaign hold: one execution of a workflow at a time sends campaigns, across every n8n process (queue-mode
 * workers included). A lease on the workflow's `workflow`-scope deduplication row; lease.ts explains the protocol and
 * holds its logic, this module makes the calls. Every wait is a `pause` (nodes/gateway/pause.ts).
 */
import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pause } from '../../../gateway/pause';
import {
	acquireValues,
	acquireVerdict,
	heldElsewhereText,
	incompatibleRowText,
	isDuplicateRow,
	isIncompatibleRow,
	lapsedText,
	notTakenText,
	writeLimitMs,
	type LeaseTiming,
} from './lease';

const SCOPE = 'workflow';
const LATEST: ICheckProcessedOptions = { mode: 'latestIncrementalKey' };

/** Why an execution does not hold the campaign: its error for an item (a new error per item: items pair their own). */
export type HoldRefusal = (itemIndex: number) => NodeOperationError;

export class CampaignHold {
	/** The local time (= the stamp) of the last successful beat; undefined until the first. */
	private lastBeat: number | undefined;
	private lapsed: 'no' | 'timedOut' | 'takenOver' = 'no';
	/** Whether this execution inserted the row (then it deletes it at the end, unless the hold lapsed). */
	private inserted = false;
	private taking: Promise<HoldRefusal | undefined> | undefined;
	private beating: Promise<void> = Promise.resolve();
	private readonly ended = new AbortController();

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly timing: LeaseTiming,
	) {}

	/** Takes the hold once (later calls share the first's answer): undefined when it is ours, else the refusal. */
	async take(): Promise<HoldRefusal | undefined> {
		return await (this.taking ??= this.acquire());
	}

	/** New sends and claims are allowed: the hold is ours and its last beat under LEASE old. */
	sending(): boolean {
		this.checkLapse();
		return this.lapsed === 'no' && this.lastBeat !== undefined;
	}

	/** The record may be written: the hold is ours, and no one can have taken it over yet (lease.ts). */
	writing(): boolean {
		return this.lastBeat !== undefined && this.lapsed !== 'takenOver' && Date.now() - this.lastBeat < writeLimitMs(this.timing);
	}

	/** The error of an item not sent because the hold lapsed. */
	lapsedError(itemIndex: number): NodeOperationError {
		const { message, description } = lapsedText(itemIndex, this.timing, this.lapsed === 'takenOver');
		return new NodeOperationError(this.context.getNode(), message, { itemIndex, description });
	}

	/** The run is over: beats stop, and the row is deleted when the hold is still ours. */
	async release(): Promise<void> {
		this.ended.abort();
		await this.beating;
		if (!this.inserted) return;
		this.checkLapse();
		if (this.lapsed !== 'no') return; // The row may be another execution's now; ours lapses by itself.
		try {
			await this.context.helpers.clearAllProcessedItems(SCOPE, LATEST);
		} catch (error) {
			this.context.logger.warn(
				`Messaging Gateway: the campaign's hold could not be released (it lapses ${this.timing.staleMs / 1000} s after its last sign of life): ${(error as Error).message}`,
			);
		}
	}

	private checkLapse(): void {
		if (this.lapsed === 'no' && this.lastBeat !== undefined && Date.now() - this.lastBeat >= this.timing.leaseMs) this.lapsed = 'timedOut';
	}

	private async acquire(): Promise<HoldRefusal | undefined> {
		let verdict = await this.tryAcquire();
		if (verdict === 'stale') {
			// Its holder died. A second taker that judged the same row stale deletes it before our insert, not after.
			try {
				await this.context.helpers.clearAllProcessedItems(SCOPE, LATEST);
			} catch (error) {
				return this.refusal(notTakenText((error as Error).message));
			}
			if (!(await pause(this.timing.settleMs, this.ended.signal))) return this.refusal(heldElsewhereText(this.timing));
			verdict = await this.tryAcquire();
		}
		if (typeof verdict === 'function') return verdict;
		if (verdict !== 'ours') return this.refusal(heldElsewhereText(this.timing));
		this.inserted = true;
		// The inserted stamp is GRACE younger than stale; the first beat makes it now, before anything is sent.
		const error = await this.beat();
		if (error) return this.refusal(notTakenText(error.message));
		if (this.lapsed === 'takenOver') {
			this.inserted = false;
			return this.refusal(heldElsewhereText(this.timing));
		}
		this.beating = this.beatUntilEnd();
		return undefined;
	}

	private async tryAcquire(): Promise<'ours' | 'stale' | 'alive' | HoldRefusal> {
		const values = acquireValues(Date.now(), this.timing);
		try {
			const answer = await this.context.helpers.checkProcessedAndRecord(values, SCOPE, LATEST);
			return acquireVerdict(answer.new, values);
		} catch (error) {
			// Another execution inserted the row at the same moment: its insert won.
			if (isDuplicateRow(error)) return 'alive';
			if (isIncompatibleRow(error)) return this.refusal(incompatibleRowText());
			return this.refusal(notTakenText((error as Error).message));
		}
	}

	/** Writes the stamp `now`; undefined when written, else the error. */
	private async beat(): Promise<Error | undefined> {
		const stamp = Date.now();
		try {
			const answer = await this.context.helpers.checkProcessedAndRecord([stamp], SCOPE, LATEST);
			// A larger stamp than ours: another execution holds the row now.
			if (!answer.new.map(Number).includes(stamp)) this.lapsed = 'takenOver';
			else this.lastBeat = Math.max(this.lastBeat ?? 0, stamp);
			return undefined;
		} catch (error) {
			return error instanceof Error ? error : new Error(String(error));
		}
	}

	private async beatUntilEnd(): Promise<void> {
		while (await pause(this.timing.beatMs, this.ended.signal)) {
			this.checkLapse();
			if (this.lapsed !== 'no') return; // Final: a later beat must not revive a hold another may have taken.
			const error = await this.beat();
			if (error) this.context.logger.debug(`Messaging Gateway: the campaign's sign of life could not be written: ${error.message}`);
		}
	}

	private refusal(text: { message: string; description: string }): HoldRefusal {
		return (itemIndex) => new NodeOperationError(this.context.getNode(), text.message, { itemIndex, description: text.description });
	}
}
