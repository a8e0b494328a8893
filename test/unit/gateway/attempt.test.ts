/**
 * The deadline and cancellation of one request attempt (gateway/transport.ts, Attempt, on its `wait`): a deadline fires once, on
 * time (no polling loop: it is one sleep), an idle one moves with the bytes, an attempt that ends first is never ended
 * by it and leaves no timer, and the execution's cancellation ends it at once.
 */
import { getEventListeners } from 'node:events';

import { Attempt } from '../../../nodes/gateway/transport';

const wait = async (ms: number) => await new Promise((resolve) => setTimeout(resolve, ms));
const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;
const endedAt = (attempt: Attempt, started: number) =>
	new Promise<number>((resolve) => attempt.signal.addEventListener('abort', () => resolve(Date.now() - started), { once: true }));

it('an attempt that outlives its whole-answer deadline is ended once, at the deadline', async () => {
	const started = Date.now();
	const attempt = new Attempt(undefined, { ms: 300, idle: false });
	const elapsed = await endedAt(attempt, started);
	expect(attempt.ended).toBe('timeout');
	expect(elapsed).toBeGreaterThanOrEqual(295);
	expect(elapsed).toBeLessThan(450); // one timer, not a loop's tick (the loop this replaced was up to 250 ms late); slack for a busy machine
	attempt.end();
});

it('bytes that keep moving hold an idle deadline; it ends once they stop', async () => {
	const started = Date.now();
	const attempt = new Attempt(undefined, { ms: 300, idle: true });
	const ended = endedAt(attempt, started);
	for (let chunk = 0; chunk < 6; chunk++) {
		await wait(100); // 600 ms in all against a 300 ms idle deadline
		attempt.touch();
	}
	expect(attempt.ended).toBeUndefined();
	expect(await ended).toBeGreaterThanOrEqual(890);
	attempt.end();
});

it('waiting for the body’s own source is not idle', async () => {
	let waiting = true;
	const attempt = new Attempt(undefined, { ms: 200, idle: true }, () => waiting);
	await wait(500);
	expect(attempt.ended).toBeUndefined();
	waiting = false;
	await wait(450);
	expect(attempt.ended).toBe('timeout');
	attempt.end();
});

it('an attempt that ends before its deadline is never ended by it, and leaves no timer', async () => {
	const before = timers();
	const attempt = new Attempt(undefined, { ms: 200, idle: false });
	await wait(50);
	attempt.end();
	await wait(0);
	expect(timers()).toBe(before);
	await wait(300);
	expect(attempt.ended).toBeUndefined();
	expect(attempt.signal.aborted).toBe(false);
});

it("the execution's cancellation ends it at once, and one already cancelled starts ended", async () => {
	const execution = new AbortController();
	const attempt = new Attempt(execution.signal, { ms: 60_000, idle: false });
	const started = Date.now();
	const ended = endedAt(attempt, started);
	execution.abort();
	expect(await ended).toBeLessThan(20);
	expect(attempt.ended).toBe('cancel');
	attempt.end();
	expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
	const late = new Attempt(execution.signal, { ms: 60_000, idle: false });
	expect(late.ended).toBe('cancel');
	expect(late.signal.aborted).toBe(true);
	late.end();
});
