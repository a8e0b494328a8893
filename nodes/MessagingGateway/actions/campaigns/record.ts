/**
 * The campaign record of Message > Send, kept with n8n's deduplication helpers: the one store n8n writes to its
 * database at once in the middle of a node's run, in every process type (static data, custom data and node context
 * are saved only when the node ends, so a crash mid-node loses them). ledger.ts holds the logic; this module writes.
 *
 * What the helpers are, and how they are used (n8n's deduplication helpers, as test/harness/deduplication.ts
 * reproduces them):
 * - one row per workflow and scope: the record is the `node`-scope row (each Send node keeps its own record), each
 *   value prefixed so it meets no other value; the `workflow`-scope row is the hold (hold.ts);
 * - `entries` mode: an md5 per value, the row's list read and rewritten whole on each call: claims are written
 *   CLAIM_CHUNK items at a time with the `sent` marks pending then, releases CLAIM_CHUNK at a time (ledger.ts);
 * - no lock: two calls at once may lose one's write. So one execution of a workflow at a time writes its campaign
 *   records (the hold, taken before the first claim; another execution is refused), and an execution's own calls
 *   are made one after another;
 * - no check-only call: whether a claimed key was also marked sent is asked by recording its `sent` mark and
 *   removing it again when it was new (only for keys met already claimed, on a re-run).
 */
import type { ICheckProcessedOptions, IExecuteFunctions } from 'n8n-workflow';

import { CampaignHold } from './hold';
import { CLAIM_CHUNK, chunkOf, claimValue, RunLedger, sentValue, type CampaignKey, type ClaimAnswer, type ItemOutcome } from './ledger';
import type { LeaseTiming } from './lease';

const SCOPE = 'node';
const ENTRIES: ICheckProcessedOptions = { mode: 'entries' };

/** An item's key and what its claim found. */
export interface Claim {
	entry: CampaignKey;
	answer: ClaimAnswer;
}

/** Reads an item's campaign and key; undefined when the item has no campaign. Throws for bad input. */
export type KeyReader = (itemIndex: number) => CampaignKey | undefined;

export class CampaignRecord {
	private readonly ledger = new RunLedger();
	private readonly chunks = new Map<number, Promise<Map<number, Claim | { error: unknown }>>>();
	private readonly started = new Set<number>();
	/** This run's record calls, one after another (the helpers have no lock; the hold keeps other executions out). */
	private calls: Promise<unknown> = Promise.resolve();
	private writes: Promise<void> = Promise.resolve();
	private startedOver: Promise<void> | undefined;
	private readonly hold: CampaignHold;

	constructor(
		private readonly context: IExecuteFunctions,
		private readonly itemCount: number,
		private readonly keyOf: KeyReader,
		private readonly startOver: boolean,
		timing: LeaseTiming,
	) {
		this.hold = new CampaignHold(context, timing);
	}

	/** Messages of this run the gateway accepted. */
	get sent(): number {
		return this.ledger.sent;
	}

	/**
	 * Claims the item's key before its message leaves: `ours` (send it), or why not. Undefined: the item has no
	 * campaign. The items of its chunk are claimed with it, in one write.
	 */
	async claim(itemIndex: number): Promise<Claim | undefined> {
		const { start } = chunkOf(itemIndex, this.itemCount);
		let chunk = this.chunks.get(start);
		if (!chunk) {
			chunk = this.claimChunk(start);
			this.chunks.set(start, chunk);
		}
		const claim = (await chunk).get(itemIndex);
		if (claim === undefined) return undefined;
		if ('error' in claim) throw claim.error;
		this.started.add(itemIndex);
		return claim;
	}

	/** Before a claimed item's request leaves: throws when the hold lapsed (the item is not sent). */
	stopIfLapsed(itemIndex: number): void {
		if (this.ledger.holds(itemIndex) && !this.hold.sending()) throw this.hold.lapsedError(itemIndex);
	}

	/** How the item's request ended; writes the pending marks now when they are not to wait for the next claim. */
	settle(itemIndex: number, outcome: ItemOutcome): void {
		if (this.ledger.settle(itemIndex, outcome)) this.flush();
	}

	/** The run is over (sent, stopped or cancelled): unstarted claims are released and every pending mark written. */
	async finish(): Promise<void> {
		await Promise.allSettled([...this.chunks.values()]);
		this.ledger.releaseUnstarted((itemIndex) => this.started.has(itemIndex));
		this.flush();
		try {
			await this.writes;
		} catch (error) {
			// Not the run's failure: a sent mark not written leaves its key claimed, which a later run flags and never
			// sends again; a release not written leaves a message unsent until Start Over.
			this.context.logger.warn(`Messaging Gateway: the campaign record's last marks could not be written: ${(error as Error).message}`);
		} finally {
			await this.hold.release();
		}
	}

	private flush(): void {
		const { sent, release } = this.ledger.takePending();
		if (sent.length === 0 && release.length === 0) return;
		const write = async () => {
			if (sent.length) await this.record(() => this.context.helpers.checkProcessedAndRecord(sent, SCOPE, ENTRIES));
			if (release.length) await this.record(() => this.context.helpers.removeProcessed(release, SCOPE, ENTRIES));
		};
		this.writes = this.writes.then(write, write);
	}

	/** One write of the record, after the previous ones, while no other execution can have taken the hold over. */
	private async record<T>(call: () => Promise<T>): Promise<T> {
		const write = async () => {
			if (!this.hold.writing()) throw new Error("the campaign's hold lapsed: the record is no longer written by this run");
			return await call();
		};
		const done = this.calls.then(write, write);
		this.calls = done.catch(() => undefined);
		return await done;
	}

	private async claimChunk(start: number): Promise<Map<number, Claim | { error: unknown }>> {
		const answers = new Map<number, Claim | { error: unknown }>();
		const entries: Array<{ itemIndex: number; entry: CampaignKey }> = [];
		const end = Math.min(this.itemCount, start + CLAIM_CHUNK);
		for (let itemIndex = start; itemIndex < end; itemIndex++) {
			try {
				const entry = this.keyOf(itemIndex);
				if (entry) entries.push({ itemIndex, entry });
			} catch (error) {
				answers.set(itemIndex, { error });
			}
		}
		if (entries.length === 0) return answers;
		// The workflow's hold, taken before its first claim (a run without a campaign item takes none).
		const refusal = await this.hold.take();
		if (refusal || !this.hold.sending()) {
			for (const { itemIndex } of entries) answers.set(itemIndex, { error: refusal ? refusal(itemIndex) : this.hold.lapsedError(itemIndex) });
			return answers;
		}
		await (this.startedOver ??= this.forgetInputKeys());

		const { toClaim, sameKey } = this.ledger.planClaims(entries);
		const entryOf = new Map(entries.map(({ itemIndex, entry }) => [itemIndex, entry]));
		for (const [itemIndex, firstItem] of sameKey) {
			answers.set(itemIndex, { entry: entryOf.get(itemIndex) as CampaignKey, answer: { state: 'sameKeyInRun', firstItem } });
		}
		if (toClaim.length === 0) return answers;

		// The sent marks pending now ride in the same write (ledger.ts): a value's answer is its own, so they do not
		// change what the claims find.
		const marks = this.ledger.takePendingSent();
		let claimed: Awaited<ReturnType<IExecuteFunctions['helpers']['checkProcessedAndRecord']>> | undefined;
		try {
			claimed = await this.record(() =>
				this.context.helpers.checkProcessedAndRecord([...marks, ...toClaim.map((claim) => claim.value)], SCOPE, ENTRIES),
			);
		} finally {
			// A failed write wrote none of them: the marks wait for the next write.
			if (!claimed) this.ledger.returnPendingSent(marks);
		}
		const fresh = new Set(claimed.new.map(String));
		const ours = toClaim.filter((claim) => fresh.has(claim.value));
		for (const claim of ours) {
			this.ledger.hold(claim.itemIndex, claim.entry);
			answers.set(claim.itemIndex, { entry: claim.entry, answer: { state: 'ours' } });
		}
		const earlier = toClaim.filter((claim) => !fresh.has(claim.value));
		if (earlier.length) await this.readEarlierOutcomes(earlier, answers);
		return answers;
	}

	/**
	 * Keys an earlier run claimed: sent, or of unknown outcome. There is no check-only call, so their `sent` marks
	 * are recorded and those that were new (not sent) removed again.
	 */
	private async readEarlierOutcomes(
		earlier: Array<{ itemIndex: number; entry: CampaignKey }>,
		answers: Map<number, Claim | { error: unknown }>,
	): Promise<void> {
		const values = earlier.map((claim) => sentValue(claim.entry));
		const checked = await this.record(() => this.context.helpers.checkProcessedAndRecord(values, SCOPE, ENTRIES));
		const notSent = new Set(checked.new.map(String));
		if (notSent.size) await this.record(() => this.context.helpers.removeProcessed([...notSent], SCOPE, ENTRIES));
		for (const claim of earlier) {
			const answer: ClaimAnswer = notSent.has(sentValue(claim.entry)) ? { state: 'maybeSent' } : { state: 'alreadySent' };
			answers.set(claim.itemIndex, { entry: claim.entry, answer });
		}
	}

	/** Start Over: the record forgets the keys of this run's items (claims and sent marks), once, before any claim. */
	private async forgetInputKeys(): Promise<void> {
		if (!this.startOver) return;
		const values: string[] = [];
		for (let itemIndex = 0; itemIndex < this.itemCount; itemIndex++) {
			let entry: CampaignKey | undefined;
			try {
				entry = this.keyOf(itemIndex);
			} catch {
				continue; // The item's own claim reports its bad input.
			}
			if (entry) values.push(claimValue(entry), sentValue(entry));
		}
		if (values.length) await this.record(() => this.context.helpers.removeProcessed(values, SCOPE, ENTRIES));
	}
}
