/**
 * The schedule of a message run (nodes/MessagingGateway/actions/message/schedule.ts), pure, on a fake clock: the pace
 * (Messages per Second, the network's throughput answers lowering it and time raising it, pair rate waits), the
 * request slots, and the dispatch of items (order, window, stop rule, batches, cancel).
 */
import {
	dispatch,
	LATE_START_CATCH_UP_MS,
	Pacer,
	PAIR_RATE_WAIT,
	RecipientTurns,
	RequestSlots,
	THROUGHPUT_PACING,
} from '../../../nodes/MessagingGateway/actions/message/schedule';

/** Starts `count` requests through the pacer on a fake clock: each waits as the pacer says, then starts. */
function startAll(pacer: Pacer, count: number, from = 10_000): number[] {
	let now = from;
	const starts: number[] = [];
	for (let i = 0; i < count; i++) {
		now += pacer.waitFor(now);
		pacer.start(now);
		starts.push(now);
	}
	return starts;
}

describe('Pacer: Messages per Second', () => {
	it('spaces starts evenly at the rate and never starts more than the rate in any second', () => {
		const starts = startAll(new Pacer({ perSecond: 80, perRecipientMs: 0 }), 400);
		for (const [i, start] of starts.entries()) {
			expect(starts.filter((time) => time >= start && time < start + 1000).length).toBeLessThanOrEqual(80);
			if (i > 0) expect(start - starts[i - 1]).toBeGreaterThanOrEqual(12);
		}
		expect(starts[399] - starts[0]).toBeGreaterThanOrEqual(4987); // 399 spacings of 12.5 ms
		expect(starts[399] - starts[0]).toBeLessThan(5100);
	});

	it('a timer that fires late does not slow the schedule down; a long lull does not make a burst', () => {
		const pacer = new Pacer({ perSecond: 10, perRecipientMs: 0 });
		pacer.start(1);
		expect(pacer.waitFor(1)).toBe(100);
		pacer.start(131); // 30 ms late (a busy machine's timer)
		expect(pacer.waitFor(131)).toBe(70); // the next slot is still at 201
		pacer.start(201);
		pacer.start(2001); // nothing to send for 1.8 s
		expect(pacer.waitFor(2001)).toBe(100 - LATE_START_CATCH_UP_MS);
	});

	it('without a cap, starts are never delayed', () => {
		const pacer = new Pacer({ perSecond: 0, perRecipientMs: 0 });
		for (let i = 0; i < 1000; i++) pacer.start(5);
		expect(pacer.waitFor(5)).toBe(0);
	});

	it('the interval per recipient delays only that recipient', () => {
		const pacer = new Pacer({ perSecond: 0, perRecipientMs: 600 });
		pacer.start(1, 'a');
		expect(pacer.waitFor(101, 'a')).toBe(500);
		expect(pacer.waitFor(101, 'b')).toBe(0);
	});
});

/**
 * The network as the issue describes it (and the sandbox implements it): at most `limit` accepted sends in any second;
 * the excess is refused (130429). `senders` runs share the phone, each with its own pacer at the default 80/s.
 */
function simulate(limit: number, senders: number, messages: number): { endMs: number; refused: number; accepted: number } {
	const latency = 5;
	const pacers = Array.from({ length: senders }, () => new Pacer({ perSecond: 80, perRecipientMs: 0 }));
	const left = pacers.map(() => messages);
	const acceptedAt: number[] = [];
	let refused = 0;
	let now = 0;
	const nextAt = pacers.map(() => 0);
	while (left.some((count) => count > 0)) {
		const sender = nextAt.reduce((best, at, i) => (left[i] > 0 && (best < 0 || at < nextAt[best]) ? i : best), -1);
		now = Math.max(now, nextAt[sender]);
		const pacer = pacers[sender];
		const wait = pacer.waitFor(now);
		if (wait > 0) {
			nextAt[sender] = now + wait;
			continue;
		}
		pacer.start(now);
		const answeredAt = now + latency;
		const inWindow = acceptedAt.filter((time) => time > now - 1000).length;
		if (inWindow < limit) {
			acceptedAt.push(now);
			pacer.accepted(answeredAt);
			left[sender]--;
		} else {
			refused++;
			pacer.throughputRefused(answeredAt, now);
		}
		nextAt[sender] = now + 1;
	}
	return { endMs: now, refused, accepted: acceptedAt.length };
}

describe('Pacer: the network\'s throughput answers (issue 37)', () => {
	it('one run at the default 80/s against a number allowed 20/s: within 1.5x of the bound, under 10 % refused', () => {
		const { endMs, refused } = simulate(20, 1, 240);
		expect(endMs / 1000 / (240 / 20)).toBeLessThan(1.5);
		expect(refused).toBeLessThan(24);
	});

	it('two runs at once on a phone allowed 80/s share it: within 1.5x of the bound, under 10 % refused', () => {
		const { endMs, refused } = simulate(80, 2, 240);
		expect(endMs / 1000 / (480 / 80)).toBeLessThan(1.5);
		expect(refused).toBeLessThan(48);
	});

	it('a refusal lowers the pace to what the phone accepted in the last second, and waits until that second has passed', () => {
		const pacer = new Pacer({ perSecond: 80, perRecipientMs: 0 });
		for (let i = 0; i < 20; i++) {
			pacer.start(1 + i * 12);
			pacer.accepted(1 + i * 12 + 5);
		}
		pacer.throughputRefused(260, 250);
		expect(pacer.pacing).toMatchObject({ throughputWaits: 1, pace: 20 * THROUGHPUT_PACING.lowerTo });
		expect(pacer.waitFor(261)).toBe(1006 - 261); // the oldest answer of the last second is a second old at 1006
		// A refusal of a request started before the pace went down says nothing new: the pace stays.
		pacer.throughputRefused(270, 255);
		expect(pacer.pacing.pace).toBe(20 * THROUGHPUT_PACING.lowerTo);
	});

	it('a 429 waits its Retry-After; every second without a refusal raises the pace again, up to the cap', () => {
		const pacer = new Pacer({ perSecond: 80, perRecipientMs: 0 });
		pacer.start(1);
		pacer.throughputRefused(10, 1, 2000);
		expect(pacer.waitFor(10)).toBe(2000);
		const lowest = pacer.pacing.pace;
		expect(pacer.waitFor(3010)).toBe(0);
		expect(pacer.pacing.pace).toBeGreaterThan(lowest);
		pacer.waitFor(600_000);
		expect(pacer.pacing.pace).toBe(80);
	});

	it('a pair rate answer (131056) makes that recipient wait, longer each time, others not', () => {
		const pacer = new Pacer({ perSecond: 0, perRecipientMs: 0 });
		pacer.pairRateRefused(1000, 'a');
		expect(pacer.waitFor(1000, 'a')).toBe(PAIR_RATE_WAIT.firstMs);
		expect(pacer.waitFor(1000, 'b')).toBe(0);
		pacer.pairRateRefused(3000, 'a');
		expect(pacer.waitFor(3000, 'a')).toBe(PAIR_RATE_WAIT.firstMs * 2);
		for (let i = 0; i < 5; i++) pacer.pairRateRefused(10_000, 'a');
		expect(pacer.waitFor(10_000, 'a')).toBe(PAIR_RATE_WAIT.mostMs);
		expect(pacer.pacing.pairRateWaits).toBe(7);
	});

	it("after a pair rate answer, that recipient's next messages are spaced as it taught, so that they are not refused again", () => {
		const pacer = new Pacer({ perSecond: 0, perRecipientMs: 0 });
		pacer.start(0, 'a');
		pacer.pairRateRefused(10, 'a');
		expect(pacer.waitFor(10, 'a')).toBe(PAIR_RATE_WAIT.firstMs);
		pacer.start(1010, 'a'); // the refused message again, accepted
		// The next one waits the spacing from that start, not only until the refused one's wait ended.
		expect(pacer.waitFor(1020, 'a')).toBe(PAIR_RATE_WAIT.firstMs - 10);
		pacer.start(2010, 'a');
		expect(pacer.waitFor(2500, 'a')).toBe(510);
		expect(pacer.waitFor(2500, 'b')).toBe(0);
	});
});

describe('RequestSlots', () => {
	it('lets `size` requests through, the others in the order they asked, each as a slot is released', async () => {
		const slots = new RequestSlots(2);
		const order: number[] = [];
		const releases = await Promise.all([slots.take(), slots.take()]);
		const waiting = [3, 4, 5].map(async (n) => {
			const release = await slots.take();
			order.push(n);
			return release;
		});
		await Promise.resolve();
		expect(order).toEqual([]);
		releases[0]();
		releases[0](); // a second release of the same slot frees nothing more
		const third = await waiting[0];
		expect(order).toEqual([3]);
		releases[1]();
		third();
		await Promise.all(waiting.slice(1));
		expect(order).toEqual([3, 4, 5]);
	});
});

describe('dispatch', () => {
	const noWait = async () => undefined;
	const ticks = async (count: number) => {
		for (let i = 0; i < count; i++) await Promise.resolve();
	};

	it('starts items in the given order, at most `window` in progress, and gives each outcome by item index', async () => {
		let inProgress = 0;
		let most = 0;
		const started: number[] = [];
		const order = [3, 1, 4, 0, 2, 5];
		const result = await dispatch(
			order,
			{ window: 2, stopOnFailure: false },
			async (itemIndex) => {
				started.push(itemIndex);
				inProgress++;
				most = Math.max(most, inProgress);
				await ticks(10 - itemIndex);
				inProgress--;
				if (itemIndex === 4) throw new Error('four');
				return itemIndex * 10;
			},
			noWait,
		);
		expect(most).toBe(2);
		expect(started).toEqual(order);
		expect(result.outcomes.map((outcome) => (outcome?.ok ? outcome.value : 'error'))).toEqual([0, 10, 20, 30, 'error', 50]);
		expect(result.succeeded).toBe(5);
	});

	it('stops new starts at the first failure, lets those in progress finish, and names it', async () => {
		const started: number[] = [];
		const result = await dispatch(
			[0, 1, 2, 3, 4, 5, 6, 7],
			{ window: 2, stopOnFailure: true },
			async (itemIndex) => {
				started.push(itemIndex);
				await ticks(1);
				if (itemIndex === 2) throw new Error('two');
				return itemIndex;
			},
			noWait,
		);
		expect(result.stoppedBy).toEqual({ index: 2, error: new Error('two') });
		expect(started).toEqual([0, 1, 2, 3]);
		expect(result.outcomes.slice(4)).toEqual([]);
	});

	it('batches: each batch ends before its interval, which comes between batches only', async () => {
		const events: string[] = [];
		await dispatch(
			[0, 1, 2, 3, 4],
			{ window: 5, stopOnFailure: false, batch: { size: 2, intervalMs: 700 } },
			async (itemIndex) => {
				events.push(`start ${itemIndex}`);
				await Promise.resolve();
				events.push(`end ${itemIndex}`);
			},
			async (ms) => {
				events.push(`wait ${ms}`);
			},
		);
		expect(events).toEqual(['start 0', 'start 1', 'end 0', 'end 1', 'wait 700', 'start 2', 'start 3', 'end 2', 'end 3', 'wait 700', 'start 4', 'end 4']);
	});

	it('a turn taken as an item starts keeps item order per recipient, whatever each item awaits after it', async () => {
		for (let round = 0; round < 20; round++) {
			const turns = new RecipientTurns();
			const sent: number[] = [];
			// Later items await less before they want to send: without turns taken in start order they would overtake.
			await dispatch(
				[0, 1, 2, 3, 4, 5],
				{ window: 6, stopOnFailure: false },
				(itemIndex) => {
					const turn = turns.take('same');
					return (async () => {
						await ticks((6 - itemIndex) * 3 + (round % 3));
						await turn.ready;
						sent.push(itemIndex);
						await ticks(1);
						turn.done(false);
					})();
				},
				noWait,
			);
			expect(sent).toEqual([0, 1, 2, 3, 4, 5]);
			expect(turns.size).toBe(0);
		}
	});

	it('once the signal aborts, no item starts; the result says it was cancelled', async () => {
		const cancel = new AbortController();
		const started: number[] = [];
		const result = await dispatch(
			Array.from({ length: 100 }, (_, i) => i),
			{ window: 2, stopOnFailure: false, signal: cancel.signal, batch: { size: 10, intervalMs: 1000 } },
			async (itemIndex) => {
				started.push(itemIndex);
				if (itemIndex === 3) cancel.abort();
				await ticks(1);
				return itemIndex;
			},
			noWait,
		);
		expect(started).toEqual([0, 1, 2, 3]);
		expect(result.cancelled).toBe(true);
		expect(result.stoppedBy).toBeUndefined();
	});
});
