/**
 * What the campaign record holds, the states of a run's keys and parts (record.ts plans a run's writes with them),
 * and how a run again reads a whole list's sealed parts (Read). Pure: no n8n imports; campaign.ts makes the calls (n8n's deduplication helpers).
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

// ---- A run's keys and parts ----

export interface KeyState {
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

export interface PartState {
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

// ---- A run again reads sealed parts ----

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
