/**
 * The campaign record's logic, without n8n: what a run writes to the Send node's record and what it learns from the
 * answers. Pure: no n8n imports; campaign.ts makes the calls (n8n's deduplication helpers) with what this plans.
 *
 * The record is one row of marks (n8n's `entries` mode: a value is present or not; a call that asks for a value
 * also adds it, so every value asked for is one this module can afford to find added: see `Read`). A key (one
 * message of a campaign) is:
 * - free: no mark (never sent, or its message was not attempted);
 * - claimed: `claim`, written before its message leaves: in flight, or of unknown outcome (`maybeSent`);
 * - sent: `claim` and `sent`;
 * - refused: `claim` and `refused`: the gateway refused that message; a run again does not repeat a refusal.
 *
 * With "The Whole List" (docs/campaigns.md), every run gets the campaign's whole list, and the record stays bounded:
 * - the keys are split into PARTS parts by their recipient (a hash), and sent part after part (a recipient's
 *   messages keep their order: they are in one part);
 * - a part whose keys all have an outcome is sealed: `sealed` and `seal` (a hash of its keys and of those that failed)
 *   replace the marks of its sent keys; its failed keys keep theirs (`claim` of an unknown one, `refused`);
 * - a campaign whose keys all have an outcome is completed: `completed` and `done` (a hash of its keys) replace
 *   everything of it.
 * A later run with the same list gets every answer back from those; a key that is not in the list a part was sealed
 * with cannot be told from a sent one, so it is `maybeSent` (never sent twice). With "Part of the Campaign" nothing is
 * sealed: every key keeps its marks, for runs that each get some keys (a batch, one event).
 */
import { createHash } from 'crypto';

/** How the record remembers keys: sealed parts of whole lists, or every key on its own. */
export type RecordMode = 'wholeList' | 'someMessages';

/** Parts of a campaign: 1,024, so that a part of a 1,000,000-message campaign holds about a thousand keys. */
export const PARTS = 1024;

/** Keys claimed in one write: a crash leaves at most these, the requests in flight and the marks not yet written `maybeSent`. */
export const CLAIM_CHUNK = 20;

/** Marks written alone (no claim write came) once this many are pending. */
export const MARKS_ALONE = 30;

/** Removals gathered before they are written (each removal rewrites the row, like any write). */
export const REMOVALS_AT_ONCE = 128;

/** Keys of sealed parts read in one write when a run again reads them. */
export const READ_KEYS_AT_ONCE = 1000;

/** One message of a campaign: its campaign, its key, its recipient (the part), and Start Over for it. */
export interface CampaignEntry {
	campaign: string;
	key: string;
	recipient: string;
	startOver: boolean;
}

// ---- Marks ----

const PREFIX = 'mg-campaign:2:';
const mark = (kind: string, ...fields: Array<string | number>) => `${PREFIX}${kind}:${JSON.stringify(fields)}`;

export const marks = {
	/** The campaign has a record, kept this way (Campaign > Input). */
	campaign: (campaign: string, mode: RecordMode) => mark('campaign', campaign, mode),
	claim: (campaign: string, key: string) => mark('claim', campaign, key),
	sent: (campaign: string, key: string) => mark('sent', campaign, key),
	refused: (campaign: string, key: string) => mark('refused', campaign, key),
	sealed: (campaign: string, part: number) => mark('sealed', campaign, part),
	seal: (campaign: string, part: number, keys: readonly string[], failed: readonly string[]) =>
		mark('seal', campaign, part, hashOf([...keys].sort(), [...failed].sort())),
	completed: (campaign: string) => mark('completed', campaign),
	/** A completed campaign's list; `allSent` when every message of it was accepted (a run again says alreadySent). */
	done: (campaign: string, keys: readonly string[], allSent: boolean) => mark('done', campaign, hashOf([...keys].sort()), allSent ? 'allSent' : 'some failed'),
	/** Present while a run reads the campaign's sealed parts: a crash in between leaves it, and later runs trust no seal. */
	reading: (campaign: string) => mark('reading', campaign),
};

/** The other way of remembering keys: a campaign's record is kept one way (`opening` checks it). */
export function otherMode(mode: RecordMode): RecordMode {
	return mode === 'wholeList' ? 'someMessages' : 'wholeList';
}

function hashOf(...lists: string[][]): string {
	return createHash('sha256').update(JSON.stringify(lists)).digest('base64');
}

/** The part of a recipient's messages in a campaign. */
export function partOf(campaign: string, recipient: string): number {
	return createHash('md5').update(JSON.stringify([campaign, recipient])).digest().readUInt16BE(0) % PARTS;
}

// ---- Answers ----

/** What an item is told instead of being sent. */
export type SkipReason =
	| 'alreadySent'
	| 'maybeSent'
	| 'refusedBefore'
	| 'notInList'
	| 'completed'
	| 'unreadable'
	| { sameKeyAs: number };

/** What a claimed item came to: accepted, refused (a refusal of the message), unknown, or not attempted (free again). */
export type ItemOutcome = 'sent' | 'refused' | 'unknown' | 'free';

/** The status an item's output carries, and the sentence that says it. */
export function skipText(reason: SkipReason): { status: string; note: string } {
	if (typeof reason === 'object') {
		return { status: 'sameKeyInRun', note: `Not sent: item ${reason.sameKeyAs} of this run has the same Message Key and is the one sent.` };
	}
	const notes: Record<Exclude<SkipReason, object>, string> = {
		alreadySent: 'Not sent: already sent in this campaign.',
		maybeSent:
			'Not sent: it may have been sent by an earlier run that stopped mid-send (its outcome is unknown), so it is not sent again.',
		refusedBefore:
			'Not sent: the gateway refused it in an earlier run of this campaign (that run said why); a run again does not repeat a refusal. To send it again, turn on Start Over for this item.',
		notInList:
			'Not sent: this key is not in the list this part of the campaign was finished with, so it cannot be told from one already sent. When each run gets only some of the campaign (Loop Over Items, one message per event), set Campaign > Input to Part of the Campaign; to add recipients to a finished list, give them a new Campaign Name.',
		completed:
			'Not sent: the campaign was completed by an earlier run, which sent each of its messages or said why not. To send it again, turn on Start Over for this item.',
		unreadable:
			'Not sent: an earlier run stopped while it read this campaign\'s record, so its finished parts cannot be trusted; nothing of them is sent again. Turn on Start Over for the items to send.',
	};
	return { status: reason, note: notes[reason] };
}

// ---- One run's side of the record ----

interface KeyState {
	campaign: string;
	key: string;
	/** The first item of the run with this key: the one sent. */
	item: number;
	startOver: boolean;
	partState: PartState;
	/** Why it is not sent (an earlier run's outcome), once known; undefined: it is this run's to send. */
	skip?: Exclude<SkipReason, object>;
	/** Its claim is written and ours. */
	claimed: boolean;
	outcome?: ItemOutcome;
	/** Its outcome is written (its mark, or none needed). */
	marked: boolean;
}

interface PartState {
	campaign: string;
	part: number;
	keys: KeyState[];
	/** Keys whose outcome is not yet written: the part is sealed when none is left. */
	unmarked: number;
	/** Sealed by an earlier run: the seal it matched (removed when the campaign completes), or undefined when none did. */
	sealedBefore?: { seal?: string };
	/** Sealed by this run: its seal mark. */
	sealedNow?: string;
}

/** A write of the record: values to record (checkProcessedAndRecord) and to remove (removeProcessed). */
export interface Write {
	record: string[];
	remove: string[];
}

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
		return this.pendingMarks.size >= MARKS_ALONE || this.pendingRemovals.length >= REMOVALS_AT_ONCE;
	}

	/** The marks and seals pending now; the removals too when enough have gathered, or at the run's end. */
	pendingWrite(atEnd: boolean): Write {
		const write: Write = { record: [...this.pendingMarks.keys(), ...this.pendingSeals.keys()], remove: [] };
		if (atEnd || this.pendingRemovals.length >= REMOVALS_AT_ONCE) write.remove = this.pendingRemovals.splice(0);
		return write;
	}

	/** A write failed: nothing of it is written; what it removes is pending again (its marks still are). */
	writeFailed(write: Write): void {
		this.pendingRemovals.unshift(...write.remove);
	}

	/**
	 * A write is done: its marks are written, and with The Whole List every part whose keys all have a written outcome
	 * is sealed (its seal marks pending, riding on the next write); a written seal lets the marks of its part's sent
	 * keys go (their removal pending).
	 */
	written(write: Write): void {
		for (const value of write.record) {
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

/**
 * A run again reads the seals of one batch of a campaign's parts, before anything is sent. Every value asked for is
 * also added, so the read is made of writes whose added values do no harm, then removed:
 *
 * 1. `reading`, `completed` and each part's `sealed`: a part without `sealed` is open (its keys' marks are read as they
 *    are claimed, as on a first run); a campaign with `completed` answers `completed` when its `done` (step 2) is that
 *    of this list, else `notInList`.
 * 2. For sealed parts: each key's `claim` and `refused` (the marks a sealed part keeps of its failed keys), and the
 *    part's `seal` if those were all it failed. A matching seal: the keys without marks were sent; otherwise the list
 *    changed: they are `notInList`.
 * 3. The values that were added only by asking are removed, `reading` with them. A crash between 1 and 3 leaves
 *    `reading`: a later run trusts no seal of the campaign (`unreadable`), since an added seal could look real.
 */
export class Read {
	private sealedParts: PartState[] = [];
	private completedBefore = false;
	private readonly added: string[] = [];

	constructor(
		readonly campaign: string,
		private readonly batch: PartState[],
		private readonly state: { unreadable: boolean },
		private readonly listKeys: readonly string[],
	) {}

	first(): string[] {
		return [marks.reading(this.campaign), marks.completed(this.campaign), ...this.batch.map((partState) => marks.sealed(this.campaign, partState.part))];
	}

	firstAnswer(fresh: ReadonlySet<string>): void {
		for (const value of this.first()) if (fresh.has(value)) this.added.push(value);
		if (!fresh.has(marks.reading(this.campaign))) this.state.unreadable = true;
		this.completedBefore = !fresh.has(marks.completed(this.campaign));
		this.sealedParts = this.batch.filter((partState) => !fresh.has(marks.sealed(this.campaign, partState.part)));
	}

	/** Step 2's values: per key of sealed parts `claim` and `refused`, the list's `done` when completed. */
	second(): string[] {
		if (this.completedBefore) return [marks.done(this.campaign, this.listKeys, true), marks.done(this.campaign, this.listKeys, false)];
		return this.sealedParts.flatMap((partState) =>
			partState.keys.flatMap((state) => [marks.claim(this.campaign, state.key), marks.refused(this.campaign, state.key)]),
		);
	}

	secondAnswer(fresh: ReadonlySet<string>): void {
		for (const value of this.second()) if (fresh.has(value)) this.added.push(value);
		if (this.completedBefore) {
			const allSent = !fresh.has(marks.done(this.campaign, this.listKeys, true));
			const same = allSent || !fresh.has(marks.done(this.campaign, this.listKeys, false));
			const skip = this.state.unreadable ? 'unreadable' : !same ? 'notInList' : allSent ? 'alreadySent' : 'completed';
			for (const partState of this.batch) for (const state of partState.keys) state.skip = skip;
			return;
		}
		for (const partState of this.sealedParts) {
			const failed: string[] = [];
			for (const state of partState.keys) {
				const claimed = !fresh.has(marks.claim(this.campaign, state.key));
				const refused = !fresh.has(marks.refused(this.campaign, state.key));
				if (refused) state.skip = 'refusedBefore';
				else if (claimed) state.skip = 'maybeSent';
				if (state.skip) failed.push(state.key);
				state.outcome = refused ? 'refused' : claimed ? 'unknown' : 'sent';
				state.marked = true;
			}
			partState.sealedBefore = { seal: marks.seal(this.campaign, partState.part, partState.keys.map((state) => state.key), failed) };
		}
	}

	/** Step 2b: whether each sealed part's seal is that of these keys and failures. */
	third(): string[] {
		if (this.completedBefore) return [];
		return this.sealedParts.map((partState) => partState.sealedBefore?.seal as string);
	}

	thirdAnswer(fresh: ReadonlySet<string>): void {
		for (const partState of this.sealedParts) {
			const seal = partState.sealedBefore?.seal as string;
			const matches = !fresh.has(seal) && !this.state.unreadable;
			if (fresh.has(seal)) this.added.push(seal);
			if (!matches) partState.sealedBefore = {};
			for (const state of partState.keys) {
				if (state.skip) continue;
				state.skip = matches ? 'alreadySent' : this.state.unreadable ? 'unreadable' : 'notInList';
			}
		}
	}

	/** Step 3: what the read added; `reading` stays when the record could not be read (an earlier read crashed). */
	cleanup(): string[] {
		return this.state.unreadable ? this.added.filter((value) => value !== marks.reading(this.campaign)) : this.added;
	}
}
