/**
 * The campaign record's logic, without n8n: what is written for a key, how a run's items are claimed in chunks, what
 * an item is told when its key was claimed before, and which writes a run still owes. Pure: no n8n imports; the
 * record's writes (n8n's deduplication helpers) are done by record.ts with what this module plans.
 *
 * A key has two marks in the record, each one value of n8n's `entries` mode (stored as an md5):
 * - `claim`: written before the message leaves; removed again when the answer says it was not sent (a 4xx);
 * - `sent`: written when the gateway accepted it.
 * So a key is free (no claim), sent (claim and sent), or of unknown outcome (claim without sent: in flight, or left by
 * a run that stopped mid-send). A later run sends only free keys.
 *
 * Writes are batched: a run claims CLAIM_CHUNK items ahead in one write, and the `sent` marks pending at that moment
 * go in the same write (one write per chunk instead of two: the record is rewritten whole on every write, so its
 * cost is the number of writes). Marks are written alone only when MARKS_ALONE are pending (no claim came) and
 * at the run's end; releases, a separate call, when CLAIM_CHUNK are pending and at the end. What a crash leaves
 * claimed without `sent` (the unknown window) is at most the claimed chunk, the requests in flight and the pending
 * marks (docs/campaigns.md).
 */

/** One message of a campaign: the campaign's name and the message's key in it (by default the recipient). */
export interface CampaignKey {
	campaign: string;
	key: string;
}

/** Items claimed in one write. */
export const CLAIM_CHUNK = 20;

/**
 * Pending `sent` marks that are written alone, without waiting for the next claim write. Above CLAIM_CHUNK, so that
 * with Parallel Requests near CLAIM_CHUNK the marks ride with the claims (bench/campaign.bench.ts: 2,000 messages, 102
 * writes; 200 with CLAIM_CHUNK); small, since the marks not yet written are part of the unknown window.
 */
export const MARKS_ALONE = CLAIM_CHUNK + CLAIM_CHUNK / 2;

/** A record value: versioned, and JSON so that no campaign name or key can run into another. */
export function claimValue(entry: CampaignKey): string {
	return `mg-campaign:1:claim:${JSON.stringify([entry.campaign, entry.key])}`;
}

export function sentValue(entry: CampaignKey): string {
	return `mg-campaign:1:sent:${JSON.stringify([entry.campaign, entry.key])}`;
}

/** The items of the chunk holding `itemIndex`: [start, end). */
export function chunkOf(itemIndex: number, itemCount: number, size = CLAIM_CHUNK): { start: number; end: number } {
	const start = Math.floor(itemIndex / size) * size;
	return { start, end: Math.min(itemCount, start + size) };
}

/**
 * What an item is told instead of being sent:
 * - `alreadySent`: the key is marked sent;
 * - `maybeSent`: claimed, never marked sent: an earlier run stopped mid-send (or its answer was of unknown outcome);
 * - `sameKeyInRun`: an earlier item of this run has the same key (it alone is sent).
 */
export type SkipReason =
	| { state: 'alreadySent' }
	| { state: 'maybeSent' }
	| { state: 'sameKeyInRun'; firstItem: number };

export type ClaimAnswer = { state: 'ours' } | SkipReason;

/** The status an item's output carries, and the sentence that says it. */
export function skipText(reason: SkipReason): { status: string; note: string } {
	switch (reason.state) {
		case 'alreadySent':
			return { status: 'alreadySent', note: 'Not sent: already sent in this campaign.' };
		case 'maybeSent':
			return {
				status: 'maybeSent',
				note: 'Not sent: it may have been sent by an earlier run that stopped mid-send (its outcome is unknown), so it is not sent again.',
			};
		case 'sameKeyInRun':
			return { status: 'sameKeyInRun', note: `Not sent: item ${reason.firstItem} of this run has the same Message Key and is the one sent.` };
	}
}

/** How one claimed item ended. */
export type ItemOutcome = 'accepted' | 'notSent' | 'unknown';

interface Held {
	entry: CampaignKey;
	/** Undefined while the item has not ended (not started, or in flight). */
	outcome?: ItemOutcome;
}

/**
 * One run's side of the record: the keys it claimed and how their items ended, the marks it still owes, and which
 * keys it met already claimed. Keys are deduplicated within the run (the first item with a key is the one sent).
 */
export class RunLedger {
	/** Claim value -> the first item of this run with that key. */
	private readonly firstItemByValue = new Map<string, number>();
	/** Items whose key this run claimed. */
	private readonly held = new Map<number, Held>();
	private pendingSent: string[] = [];
	private pendingRelease: string[] = [];
	sent = 0;

	/**
	 * The claim values to write for a chunk's items (each key once), and the items of the chunk whose key an earlier
	 * item of this run has.
	 */
	planClaims(entries: ReadonlyArray<{ itemIndex: number; entry: CampaignKey }>): {
		toClaim: Array<{ itemIndex: number; entry: CampaignKey; value: string }>;
		sameKey: Map<number, number>;
	} {
		const toClaim: Array<{ itemIndex: number; entry: CampaignKey; value: string }> = [];
		const sameKey = new Map<number, number>();
		for (const { itemIndex, entry } of entries) {
			const value = claimValue(entry);
			const first = this.firstItemByValue.get(value);
			if (first !== undefined) {
				sameKey.set(itemIndex, first);
				continue;
			}
			this.firstItemByValue.set(value, itemIndex);
			toClaim.push({ itemIndex, entry, value });
		}
		return { toClaim, sameKey };
	}

	/** The claim write's answer: these items' keys are now this run's. */
	hold(itemIndex: number, entry: CampaignKey): void {
		this.held.set(itemIndex, { entry });
	}

	holds(itemIndex: number): boolean {
		return this.held.has(itemIndex);
	}

	/**
	 * An item ended: accepted keys get their `sent` mark, not-sent keys are released, unknown ones stay claimed.
	 * Returns true when the pending marks are to be written now rather than with the next claim.
	 */
	settle(itemIndex: number, outcome: ItemOutcome): boolean {
		const held = this.held.get(itemIndex);
		if (!held || held.outcome) return false;
		held.outcome = outcome;
		if (outcome === 'accepted') {
			this.sent++;
			this.pendingSent.push(sentValue(held.entry));
		} else if (outcome === 'notSent') {
			this.pendingRelease.push(claimValue(held.entry));
		}
		return this.pendingSent.length >= MARKS_ALONE || this.pendingRelease.length >= CLAIM_CHUNK;
	}

	/** At the run's end: items claimed but never started (the run stopped, or was cancelled) are released. */
	releaseUnstarted(started: (itemIndex: number) => boolean): void {
		for (const [itemIndex, held] of this.held) {
			if (held.outcome || started(itemIndex)) continue;
			held.outcome = 'notSent';
			this.pendingRelease.push(claimValue(held.entry));
		}
	}

	/** The `sent` marks to write with a claim; they are no longer pending. */
	takePendingSent(): string[] {
		const sent = this.pendingSent;
		this.pendingSent = [];
		return sent;
	}

	/** Marks taken for a write that failed: pending again, for the next write. */
	returnPendingSent(sent: string[]): void {
		this.pendingSent.unshift(...sent);
	}

	/** The marks to write now; they are no longer pending. */
	takePending(): { sent: string[]; release: string[] } {
		const taken = { sent: this.pendingSent, release: this.pendingRelease };
		this.pendingSent = [];
		this.pendingRelease = [];
		return taken;
	}
}
