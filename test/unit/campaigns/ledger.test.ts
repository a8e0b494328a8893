/** The campaign record's pure logic (nodes/MessagingGateway/actions/campaigns/ledger.ts). */
import { CLAIM_CHUNK, chunkOf, MARKS_ALONE, claimValue, RunLedger, sentValue, skipText } from '../../../nodes/MessagingGateway/actions/campaigns/ledger';

const key = (k: string, campaign = 'spring') => ({ campaign, key: k });

describe('record values', () => {
	it('differ by kind, campaign and key, and no name can run into another', () => {
		expect(claimValue(key('a'))).not.toBe(sentValue(key('a')));
		expect(claimValue(key('a', 'x'))).not.toBe(claimValue(key('a', 'y')));
		expect(claimValue({ campaign: 'a","b', key: 'c' })).not.toBe(claimValue({ campaign: 'a', key: 'b","c' }));
	});
});

describe('chunks', () => {
	it('cover the items in runs of CLAIM_CHUNK, the last one shorter', () => {
		expect(chunkOf(0, 100)).toEqual({ start: 0, end: CLAIM_CHUNK });
		expect(chunkOf(CLAIM_CHUNK + 1, 100)).toEqual({ start: CLAIM_CHUNK, end: CLAIM_CHUNK * 2 });
		expect(chunkOf(99, 100, 40)).toEqual({ start: 80, end: 100 });
	});
});

describe('a run\'s ledger', () => {
	it('claims each key once per run; later items with the same key name the first', () => {
		const ledger = new RunLedger();
		const first = ledger.planClaims([{ itemIndex: 0, entry: key('a') }, { itemIndex: 1, entry: key('b') }, { itemIndex: 2, entry: key('a') }]);
		expect(first.toClaim.map((claim) => claim.itemIndex)).toEqual([0, 1]);
		expect([...first.sameKey]).toEqual([[2, 0]]);
		const later = ledger.planClaims([{ itemIndex: 30, entry: key('b') }]);
		expect(later.toClaim).toEqual([]);
		expect([...later.sameKey]).toEqual([[30, 1]]);
	});

	it('marks accepted keys sent, releases not-sent ones, and leaves unknown ones claimed', () => {
		const ledger = new RunLedger();
		['a', 'b', 'c'].forEach((k, i) => ledger.hold(i, key(k)));
		ledger.settle(0, 'accepted');
		ledger.settle(1, 'notSent');
		ledger.settle(2, 'unknown');
		expect(ledger.takePending()).toEqual({ sent: [sentValue(key('a'))], release: [claimValue(key('b'))] });
		expect(ledger.sent).toBe(1);
		expect(ledger.takePending()).toEqual({ sent: [], release: [] });
	});

	it('asks for a write of sent marks alone only once MARKS_ALONE are pending (they ride with the next claim before)', () => {
		const ledger = new RunLedger();
		const due = Array.from({ length: MARKS_ALONE }, (_, i) => {
			ledger.hold(i, key(String(i)));
			return ledger.settle(i, 'accepted');
		});
		expect(due.indexOf(true)).toBe(MARKS_ALONE - 1);
	});

	it('asks for a write of releases once CLAIM_CHUNK are pending', () => {
		const ledger = new RunLedger();
		const due = Array.from({ length: CLAIM_CHUNK }, (_, i) => {
			ledger.hold(i, key(String(i)));
			return ledger.settle(i, 'notSent');
		});
		expect(due.indexOf(true)).toBe(CLAIM_CHUNK - 1);
	});

	it('hands its sent marks to a claim write, and takes them back when that write failed', () => {
		const ledger = new RunLedger();
		['a', 'b'].forEach((k, i) => ledger.hold(i, key(k)));
		ledger.settle(0, 'accepted');
		const taken = ledger.takePendingSent();
		expect(taken).toEqual([sentValue(key('a'))]);
		ledger.settle(1, 'accepted');
		ledger.returnPendingSent(taken);
		expect(ledger.takePending().sent).toEqual([sentValue(key('a')), sentValue(key('b'))]);
	});

	it('releases at the end the claims of items that never started, and only those', () => {
		const ledger = new RunLedger();
		['a', 'b', 'c'].forEach((k, i) => ledger.hold(i, key(k)));
		ledger.settle(0, 'accepted');
		ledger.releaseUnstarted((itemIndex) => itemIndex === 1);
		expect(ledger.takePending().release).toEqual([claimValue(key('c'))]);
	});

	it('settles an item once', () => {
		const ledger = new RunLedger();
		ledger.hold(0, key('a'));
		ledger.settle(0, 'accepted');
		ledger.settle(0, 'notSent');
		expect(ledger.takePending()).toEqual({ sent: [sentValue(key('a'))], release: [] });
	});
});

describe('what a skipped item says', () => {
	it.each([
		[{ state: 'alreadySent' } as const, 'alreadySent', /already sent in this campaign/],
		[{ state: 'maybeSent' } as const, 'maybeSent', /may have been sent by an earlier run that stopped mid-send/],
		[{ state: 'sameKeyInRun', firstItem: 3 } as const, 'sameKeyInRun', /item 3 of this run has the same Message Key/],
	])('%o', (reason, status, note) => {
		expect(skipText(reason).status).toBe(status);
		expect(skipText(reason).note).toMatch(note);
	});
});
