/**
 * The dispatcher's pure parts on a fake clock: the pacer's rate cap, 429 pause and per-recipient interval, the
 * ordered, bounded-parallel dispatch with its stop rule, and the sent record's scoping.
 */
import { dispatch, LATE_START_CATCH_UP_MS, Pacer, takeTurn } from '../../nodes/MessagingGateway/actions/dispatcher';
import { RecipientTurns } from '../../nodes/MessagingGateway/actions/recipientTurns';
import { SentRecord, sentKey } from '../../nodes/MessagingGateway/actions/sentRecord';

/** A clock whose sleep moves time forward at once. */
function fakeClock(start = 10_000) {
	let now = start;
	return {
		now: () => now,
		sleep: async (ms: number) => {
			now += ms;
		},
	};
}

describe('Pacer', () => {
	it('spaces starts evenly at the rate and never starts more than the rate in any second', async () => {
		const clock = fakeClock();
		const pacer = new Pacer({ perSecond: 80, perRecipientMs: 0 });
		const starts: number[] = [];
		for (let i = 0; i < 400; i++) {
			await takeTurn(pacer, clock);
			starts.push(clock.now());
		}
		for (const [i, start] of starts.entries()) {
			expect(starts.filter((time) => time >= start && time < start + 1000).length).toBeLessThanOrEqual(80);
			if (i > 0) expect(start - starts[i - 1]).toBeGreaterThanOrEqual(12);
		}
		// 400 starts at 80/s: 399 spacings of 12.5 ms.
		expect(starts[399] - starts[0]).toBeGreaterThanOrEqual(4987);
		expect(starts[399] - starts[0]).toBeLessThan(5100);
	});

	it('a timer that fires late does not slow the schedule down; a long lull does not make a burst', () => {
		const pacer = new Pacer({ perSecond: 10, perRecipientMs: 0 });
		pacer.start(0);
		expect(pacer.waitFor(0)).toBe(100);
		pacer.start(130); // 30 ms late (a busy machine's timer)
		expect(pacer.waitFor(130)).toBe(70); // the next slot is still 200
		pacer.start(200);
		expect(pacer.waitFor(200)).toBe(100);
		pacer.start(2000); // nothing to send for 1.8 s: 17 missed slots
		// The schedule restarts near here: only LATE_START_CATCH_UP_MS of it is caught up, the missed slots are not.
		expect(pacer.waitFor(2000)).toBe(100 - LATE_START_CATCH_UP_MS);
	});

	it('without a cap, starts are never delayed', () => {
		const pacer = new Pacer({ perSecond: 0, perRecipientMs: 0 });
		for (let i = 0; i < 1000; i++) pacer.start(5);
		expect(pacer.waitFor(5)).toBe(0);
	});

	it('a 429 pause holds every start until it ends; a shorter pause does not cut a longer one', () => {
		const pacer = new Pacer({ perSecond: 0, perRecipientMs: 0 });
		pacer.pause(1000, 2000);
		pacer.pause(1500, 500);
		expect(pacer.waitFor(1000)).toBe(2000);
		expect(pacer.waitFor(2999)).toBe(1);
		expect(pacer.waitFor(3000)).toBe(0);
	});

	it('the interval per recipient delays only that recipient', () => {
		const pacer = new Pacer({ perSecond: 0, perRecipientMs: 600 });
		pacer.start(0, 'a');
		expect(pacer.waitFor(100, 'a')).toBe(500);
		expect(pacer.waitFor(100, 'b')).toBe(0);
	});
});

describe('dispatch', () => {
	const noSleep = async () => {};

	it('gives outcomes in input order whatever order they finish in, with at most `parallel` in progress', async () => {
		let inProgress = 0;
		let most = 0;
		const result = await dispatch(
			10,
			{ parallel: 3, stopOnFailure: false },
			async (index) => {
				inProgress++;
				most = Math.max(most, inProgress);
				await new Promise((resolve) => setImmediate(resolve));
				for (let i = 0; i < 10 - index; i++) await Promise.resolve(); // later items finish sooner
				inProgress--;
				if (index === 4) throw new Error('four');
				return index * 10;
			},
			noSleep,
		);
		expect(most).toBe(3);
		expect(result.outcomes.map((outcome) => (outcome?.ok ? outcome.value : 'error'))).toEqual([0, 10, 20, 30, 'error', 50, 60, 70, 80, 90]);
		expect(result.stoppedBy).toBeUndefined();
		expect(result.succeeded).toBe(9);
	});

	it('stops new starts at the first failure, lets those in progress finish, and names the lowest failed item', async () => {
		const started: number[] = [];
		const result = await dispatch(
			10,
			{ parallel: 2, stopOnFailure: true },
			async (index) => {
				started.push(index);
				await new Promise((resolve) => setImmediate(resolve));
				if (index === 2) throw new Error('two');
				return index;
			},
			noSleep,
		);
		expect(result.stoppedBy?.index).toBe(2);
		expect((result.stoppedBy?.error as Error).message).toBe('two');
		expect(started).toEqual([0, 1, 2, 3]);
		expect(result.outcomes.slice(4)).toEqual(new Array(6).fill(undefined));
	});

	it('batches: each batch ends before the pause, and the pause comes between batches only', async () => {
		const events: string[] = [];
		await dispatch(
			5,
			{ parallel: 5, stopOnFailure: false, batch: { size: 2, intervalMs: 700 } },
			async (index) => {
				events.push(`start ${index}`);
				await Promise.resolve();
				events.push(`end ${index}`);
			},
			async (ms) => {
				events.push(`pause ${ms}`);
			},
		);
		expect(events).toEqual(['start 0', 'start 1', 'end 0', 'end 1', 'pause 700', 'start 2', 'start 3', 'end 2', 'end 3', 'pause 700', 'start 4', 'end 4']);
	});
});

describe('SentRecord', () => {
	it('keeps entries per scope (one node run) and per item and body', () => {
		const record = new SentRecord<string, string>();
		const run = {};
		record.remember(run, sentKey(0, { to: '1' }), { accepted: true, output: 'id-0' });
		expect(record.lookup(run, sentKey(0, { to: '1' }))).toEqual({ accepted: true, output: 'id-0' });
		expect(record.lookup(run, sentKey(0, { to: '2' }))).toBeUndefined(); // another body: another send
		expect(record.lookup(run, sentKey(1, { to: '1' }))).toBeUndefined(); // another item
		expect(record.lookup({}, sentKey(0, { to: '1' }))).toBeUndefined(); // another run
		expect(record.size(run)).toBe(1);
	});
});

describe('claims as the dispatcher starts items, and cancellation', () => {
	const ticks = async (count: number) => {
		for (let i = 0; i < count; i++) await Promise.resolve();
	};

	it('a claim made as an item starts keeps item order per recipient, whatever each item awaits after it', async () => {
		for (let round = 0; round < 20; round++) {
			const turns = new RecipientTurns();
			const sent: number[] = [];
			// Later items await less before they want to send: without claims in start order they would overtake.
			await dispatch(
				6,
				{ parallel: 6, stopOnFailure: false },
				(index) => {
					const turn = turns.claim('same');
					return (async () => {
						await ticks((6 - index) * 3 + (round % 3));
						await turn.ready;
						sent.push(index);
						await ticks(1);
						turn.done(false);
					})();
				},
				async () => undefined,
			);
			expect(sent).toEqual([0, 1, 2, 3, 4, 5]);
		}
	});

	it('once the signal aborts, no item starts; the result says it was cancelled', async () => {
		const controller = new AbortController();
		const started: number[] = [];
		const result = await dispatch(
			100,
			{ parallel: 2, stopOnFailure: false },
			async (index) => {
				started.push(index);
				if (index === 3) controller.abort();
				await ticks(1);
				return index;
			},
			async () => undefined,
		);
		// Without the signal in the options nothing stops: the same run with it does.
		expect(started).toHaveLength(100);
		expect(result.cancelled).toBe(false);

		const cancel = new AbortController();
		const startedWithSignal: number[] = [];
		const cancelled = await dispatch(
			100,
			{ parallel: 2, stopOnFailure: false, signal: cancel.signal, batch: { size: 10, intervalMs: 1000 } },
			async (index) => {
				startedWithSignal.push(index);
				if (index === 3) cancel.abort();
				await ticks(1);
				return index;
			},
			async () => undefined,
		);
		expect(startedWithSignal).toEqual([0, 1, 2, 3]);
		expect(cancelled.cancelled).toBe(true);
		expect(cancelled.stoppedBy).toBeUndefined();
	});
});
