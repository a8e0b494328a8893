/**
 * The deadlines of a run's requests (gateway/deadlines.ts): a request that outlives its deadline is ended once, an idle
 * deadline moves with each chunk, and a request that ends first leaves nothing behind.
 */
import { DeadlineWatch, WATCH_TICK_MS } from '../../../nodes/gateway/deadlines';

const wait = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));

it('a request that outlives its deadline is ended once, near the deadline and not before', async () => {
	const watch = new DeadlineWatch();
	const started = Date.now();
	const endedAt: number[] = [];
	watch.watch(300, () => endedAt.push(Date.now() - started));
	await wait(300 + 2 * WATCH_TICK_MS);
	expect(endedAt).toHaveLength(1);
	expect(endedAt[0]).toBeGreaterThanOrEqual(295);
	expect(endedAt[0]).toBeLessThan(300 + WATCH_TICK_MS + 150);
	expect(watch.size).toBe(0);
});

it('a request that ends before its deadline is never ended by it', async () => {
	const watch = new DeadlineWatch();
	let ended = false;
	const deadline = watch.watch(200, () => (ended = true));
	await wait(100);
	deadline.stop();
	expect(watch.size).toBe(0);
	await wait(300);
	expect(ended).toBe(false);
});

it('an idle deadline restarted by each chunk holds while chunks keep coming, and ends once they stop', async () => {
	const watch = new DeadlineWatch();
	let endedAfter: number | undefined;
	const started = Date.now();
	const deadline = watch.watch(300, () => (endedAfter = Date.now() - started));
	for (let chunk = 0; chunk < 6; chunk++) {
		await wait(100); // 600 ms in all against a 300 ms idle deadline
		deadline.restart();
	}
	expect(endedAfter).toBeUndefined();
	await wait(300 + 2 * WATCH_TICK_MS);
	expect(endedAfter).toBeGreaterThanOrEqual(890);
});

it('requests of different deadlines, added while the watch sleeps, each end at their own', async () => {
	const watch = new DeadlineWatch();
	const ended: string[] = [];
	const long = watch.watch(2000, () => ended.push('long'));
	await wait(50);
	watch.watch(100, () => ended.push('short'));
	await wait(100 + 2 * WATCH_TICK_MS);
	expect(ended).toEqual(['short']);
	expect(watch.size).toBe(1);
	long.stop();
});
