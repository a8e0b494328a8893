/**
 * One run's side of the campaign record (marks.ts says what it holds): which of the run's items are its to send, in
 * which order, and the writes that claim them, mark their outcomes, seal their parts and complete their campaigns.
 * Pure: no n8n imports; campaign.ts makes the calls with what this plans, and gives back their answers.
 */
import {
	type CampaignEntry,
	type ItemOutcome,
	type KeyState,
	marks,
	otherMode,
	type PartState,
	partOf,
	Read,
	type RecordMode,
	type SkipReason,
	type Write,
} from './marks';

/**
 * Marks written alone (no claim write came) once this many are pending: with the claims ahead (CLAIM_CHUNK) and the
 * items in progress, what a crash leaves `maybeSent` stays under 100 with the default Sending options (docs/campaigns.md).
 */
export const MARKS_ALONE = 20;

/** Removals gathered before they are written (each removal rewrites the row, like any write). */
export const REMOVALS_AT_ONCE = 128;

/** Keys of sealed parts read in one write when a run again reads them. */
export const READ_KEYS_AT_ONCE = 1000;

export class RunRecord {
	/** Item indexes in the order their messages are sent: items without a campaign, then part after part. */
	readonly order: number[] = [];
	private readonly byItem = new Map<number, KeyState | { sameKeyAs: number }>();
	private readonly parts: PartState[] = [];
	/** Campaigns of the run: whether the record had one of that name before (a run again), and could read its seals. */
	private readonly campaigns = new Map<string, { existing: boolean; unreadable: boolean; keptOtherWay?: boolean; keys: KeyState[] }>();
	/** Marks to write (with the next claims, or alone), and the key each belongs to. */
	private pendingMarks = new Map<string, KeyState>();
	/** Seal marks to write, and their part. */
	private pendingSeals = new Map<string, PartState>();
	private pendingRemovals: string[] = [];
	/** Marks and seals in a write under way: the next write leaves them out (they are pending again if it fails). */
	private readonly inWrite = new Set<string>();

	constructor(
		entries: ReadonlyArray<CampaignEntry | undefined>,
		readonly mode: RecordMode,
	) {
		const keys = new Map<string, KeyState>();
		const parts = new Map<string, PartState>();
		const sameKey: number[] = [];
		entries.forEach((entry, itemIndex) => {
			if (!entry) {
				this.order.push(itemIndex);
				return;
			}
			let campaign = this.campaigns.get(entry.campaign);
			if (!campaign) {
				campaign = { existing: false, unreadable: false, keys: [] };
				this.campaigns.set(entry.campaign, campaign);
			}
			const id = JSON.stringify([entry.campaign, entry.key]);
			const first = keys.get(id);
			if (first) {
				sameKey.push(itemIndex);
				this.byItem.set(itemIndex, { sameKeyAs: first.item });
				return;
			}
			const part = mode === 'wholeList' ? partOf(entry.campaign, entry.recipient) : 0;
			const partId = JSON.stringify([entry.campaign, part]);
			let partState = parts.get(partId);
			if (!partState) {
				partState = { campaign: entry.campaign, part, keys: [], unmarked: 0 };
				parts.set(partId, partState);
				this.parts.push(partState);
			}
			const state: KeyState = { campaign: entry.campaign, key: entry.key, item: itemIndex, startOver: entry.startOver, partState, claimed: false, marked: false };
			keys.set(id, state);
			this.byItem.set(itemIndex, state);
			campaign.keys.push(state);
			partState.keys.push(state);
			partState.unmarked++;
		});
		for (const partState of this.parts) for (const state of partState.keys) this.order.push(state.item);
		this.order.push(...sameKey);
	}

	/**
	 * The run's first write: each campaign's mark, kept this run's way. A new one has no seal to read; but a campaign
	 * kept the other way before cannot be read this way (its seals would look like free keys): `otherWay` asks.
	 */
	opening(): string[] {
		return [...this.campaigns.keys()].map((campaign) => marks.campaign(campaign, this.mode));
	}

	/** The campaigns that are new this way, whose other way's mark is asked next. */
	openingAnswer(fresh: ReadonlySet<string>): string[] {
		const others: string[] = [];
		for (const [campaign, state] of this.campaigns) {
			state.existing = !fresh.has(marks.campaign(campaign, this.mode));
			if (!state.existing) others.push(marks.campaign(campaign, otherMode(this.mode)));
		}
		return others;
	}

	/**
	 * Which campaigns were kept the other way (their items are not sent: the run's error says so); the marks that
	 * were added only by asking, and this run's own mark of those campaigns, are to be removed.
	 */
	otherWayAnswer(asked: readonly string[], fresh: ReadonlySet<string>): { keptOtherWay: string[]; remove: string[] } {
		const keptOtherWay: string[] = [];
		const remove: string[] = [];
		for (const [campaign, state] of this.campaigns) {
			const other = marks.campaign(campaign, otherMode(this.mode));
			if (!asked.includes(other)) continue;
			if (fresh.has(other)) remove.push(other);
			else {
				keptOtherWay.push(campaign);
				state.keptOtherWay = true;
				remove.push(marks.campaign(campaign, this.mode));
			}
		}
		return { keptOtherWay, remove };
	}

	/** Whether the item's campaign was kept the other way (its items are refused). */
	keptOtherWay(itemIndex: number): boolean {
		const entry = this.entryOf(itemIndex);
		return entry !== undefined && this.campaigns.get(entry.campaign)?.keptOtherWay === true;
	}

	/** At the run's end: keys claimed for items that never started (the run stopped or was canceled) are free again. */
	freeUnended(): void {
		for (const campaign of this.campaigns.values()) {
			for (const state of campaign.keys) if (state.claimed && !state.outcome) this.ended(state.item, 'free');
		}
	}

	/** With The Whole List, a run again reads the seals of its parts (Read), batch after batch, before anything is sent. */
	reads(): Read[] {
		if (this.mode !== 'wholeList') return [];
		const reads: Read[] = [];
		for (const [campaign, state] of this.campaigns) {
			if (!state.existing) continue;
			const parts = this.parts.filter((partState) => partState.campaign === campaign);
			const list = state.keys.map((key) => key.key);
			for (let start = 0; start < parts.length; ) {
				const batch: PartState[] = [];
				let keys = 0;
				while (start < parts.length && (batch.length === 0 || keys + parts[start].keys.length <= READ_KEYS_AT_ONCE)) {
					keys += parts[start].keys.length;
					batch.push(parts[start++]);
				}
				reads.push(new Read(campaign, batch, state, list));
			}
		}
		return reads;
	}

	/** What the item is told when it is not sent; undefined when it is this run's to send (claim it first). */
	skipOf(itemIndex: number): SkipReason | undefined {
		const entry = this.byItem.get(itemIndex);
		if (!entry) return undefined;
		if ('sameKeyAs' in entry) return { sameKeyAs: entry.sameKeyAs };
		return entry.startOver ? undefined : entry.skip;
	}

	/** The item's campaign and key (its output carries them), or undefined when it has none. */
	entryOf(itemIndex: number): { campaign: string; key: string } | undefined {
		let entry = this.byItem.get(itemIndex);
		if (entry && 'sameKeyAs' in entry) entry = this.byItem.get(entry.sameKeyAs);
		return entry && !('sameKeyAs' in entry) ? { campaign: entry.campaign, key: entry.key } : undefined;
	}

	/** Whether the item's claim is written and ours: only then may its message leave. */
	claimed(itemIndex: number): boolean {
		const entry = this.byItem.get(itemIndex);
		return entry !== undefined && !('sameKeyAs' in entry) && entry.claimed;
	}

	/**
	 * The claim write of `items` (a chunk of the send order): the claims of those that are this run's to send, with
	 * the marks and seals pending now (a value's answer is its own, so they do not change what the claims find).
	 */
	claimWrite(items: readonly number[]): { write: Write; claims: Map<string, KeyState> } {
		const claims = new Map<string, KeyState>();
		for (const itemIndex of items) {
			const entry = this.byItem.get(itemIndex);
			if (!entry || 'sameKeyAs' in entry || entry.claimed || (entry.skip && !entry.startOver)) continue;
			claims.set(marks.claim(entry.campaign, entry.key), entry);
		}
		const write = this.pendingWrite(false);
		write.record.push(...claims.keys());
		return { write, claims };
	}

	/**
	 * The answer of a claim write: a claim that was new is this run's (and a Start Over's, new or not); the others were
	 * claimed by an earlier run, so their other marks are read next (`earlierOutcomes`).
	 */
	claimAnswer(claims: Map<string, KeyState>, fresh: ReadonlySet<string>): KeyState[] {
		const earlier: KeyState[] = [];
		for (const [value, state] of claims) {
			if (fresh.has(value) || state.startOver) state.claimed = true;
			else earlier.push(state);
		}
		return earlier;
	}

	/** Whether keys claimed by an earlier run were sent or refused: asked by recording those marks. */
	earlierOutcomes(earlier: readonly KeyState[]): string[] {
		return earlier.flatMap((state) => [marks.sent(state.campaign, state.key), marks.refused(state.campaign, state.key)]);
	}

	/** What they were; the marks that were new (added only by asking) are to be removed again. */
	earlierOutcomesAnswer(earlier: readonly KeyState[], fresh: ReadonlySet<string>): string[] {
		const added: string[] = [];
		for (const state of earlier) {
			const sent = marks.sent(state.campaign, state.key);
			const refused = marks.refused(state.campaign, state.key);
			state.skip = !fresh.has(sent) ? 'alreadySent' : !fresh.has(refused) ? 'refusedBefore' : 'maybeSent';
			state.outcome = state.skip === 'alreadySent' ? 'sent' : state.skip === 'refusedBefore' ? 'refused' : 'unknown';
			this.markWritten(state);
			added.push(...[sent, refused].filter((value) => fresh.has(value)));
		}
		return added;
	}

	/**
	 * How a claimed item's message ended: sent gets its `sent` mark, refused its `refused` mark, free its claim
	 * removed, unknown keeps its claim. True when the pending marks are to be written now, without a claim write.
	 */
	ended(itemIndex: number, outcome: ItemOutcome): boolean {
		const state = this.byItem.get(itemIndex);
		if (!state || 'sameKeyAs' in state || !state.claimed || state.outcome) return false;
		state.outcome = outcome;
		if (outcome === 'sent') this.pendingMarks.set(marks.sent(state.campaign, state.key), state);
		else if (outcome === 'refused') this.pendingMarks.set(marks.refused(state.campaign, state.key), state);
		else {
			if (outcome === 'free') this.pendingRemovals.push(marks.claim(state.campaign, state.key));
			this.markWritten(state);
		}
		return this.pendingMarks.size - this.inWrite.size >= MARKS_ALONE || this.pendingRemovals.length >= REMOVALS_AT_ONCE;
	}

	/** The marks and seals pending now; the removals too when enough have gathered, or at the run's end. */
	pendingWrite(atEnd: boolean): Write {
		const record = [...this.pendingMarks.keys(), ...this.pendingSeals.keys()].filter((value) => !this.inWrite.has(value));
		for (const value of record) this.inWrite.add(value);
		const write: Write = { record, remove: [] };
		if (atEnd || this.pendingRemovals.length >= REMOVALS_AT_ONCE) write.remove = this.pendingRemovals.splice(0);
		return write;
	}

	/** A write failed: nothing of it is written; its marks are pending again for the next write, and its removals. */
	writeFailed(write: Write): void {
		for (const value of write.record) this.inWrite.delete(value);
		this.pendingRemovals.unshift(...write.remove);
	}

	/**
	 * A write is done: its marks are written, and with The Whole List every part whose keys all have a written outcome
	 * is sealed (its seal marks pending, riding on the next write); a written seal lets the marks of its part's sent
	 * keys go (their removal pending).
	 */
	written(write: Write): void {
		for (const value of write.record) {
			this.inWrite.delete(value);
			const state = this.pendingMarks.get(value);
			if (state) {
				this.pendingMarks.delete(value);
				this.markWritten(state);
			}
			const sealed = this.pendingSeals.get(value);
			if (!sealed) continue;
			this.pendingSeals.delete(value);
			if (value !== sealed.sealedNow) continue;
			for (const key of sealed.keys) {
				// A sealed part keeps the claim of an unknown key and the `refused` mark of a refused one.
				if (key.outcome === 'sent') this.pendingRemovals.push(marks.claim(key.campaign, key.key), marks.sent(key.campaign, key.key));
				if (key.outcome === 'refused') this.pendingRemovals.push(marks.claim(key.campaign, key.key));
			}
		}
	}

	/**
	 * At the run's end, after the pending writes: for each campaign of a whole list whose every part is sealed and every
	 * key is of its list, `completed` and `done` first, then the removal of everything else of it.
	 */
	completions(): Array<{ campaign: string; add: Write; remove: Write }> {
		if (this.mode !== 'wholeList') return [];
		const completions: Array<{ campaign: string; add: Write; remove: Write }> = [];
		for (const [campaign, state] of this.campaigns) {
			const parts = this.parts.filter((partState) => partState.campaign === campaign);
			const finished = parts.every((partState) => partState.sealedNow || partState.sealedBefore?.seal);
			if (!finished || state.unreadable || state.keys.some((key) => key.skip === 'completed' || (key.skip && !key.outcome))) continue;
			const remove: string[] = [];
			for (const partState of parts) {
				remove.push(marks.sealed(campaign, partState.part), (partState.sealedNow ?? partState.sealedBefore?.seal) as string);
				for (const key of partState.keys) {
					if (key.outcome === 'unknown' || key.claimed) remove.push(marks.claim(campaign, key.key));
					if (key.outcome === 'refused') remove.push(marks.refused(campaign, key.key));
					if (key.claimed && key.outcome === 'sent') remove.push(marks.sent(campaign, key.key));
				}
			}
			const allSent = state.keys.every((key) => key.outcome === 'sent');
			completions.push({
				campaign,
				add: { record: [marks.completed(campaign), marks.done(campaign, state.keys.map((key) => key.key), allSent)], remove: [] },
				remove: { record: [], remove },
			});
		}
		return completions;
	}

	/** A key's outcome is written: its part may be sealed now. */
	private markWritten(state: KeyState): void {
		if (state.marked) return;
		state.marked = true;
		const partState = state.partState;
		partState.unmarked--;
		if (this.mode !== 'wholeList' || partState.unmarked > 0 || partState.sealedBefore || partState.sealedNow) return;
		// Free keys (not attempted) leave the part open: a run again sends them.
		if (partState.keys.some((key) => key.outcome === 'free')) return;
		const failed = partState.keys.filter((key) => key.outcome !== 'sent').map((key) => key.key);
		partState.sealedNow = marks.seal(partState.campaign, partState.part, partState.keys.map((key) => key.key), failed);
		this.pendingSeals.set(marks.sealed(partState.campaign, partState.part), partState);
		this.pendingSeals.set(partState.sealedNow, partState);
	}
}
