/**
 * The nodes' one timer (gateway/transport.ts, `wait`): n8n-workflow's abortable sleep of the host's version, found by what the
 * version exports. A wait ends when its time elapses or at once when its signal aborts, never rejects, and leaves no
 * timer and no listener behind.
 */
import { getEventListeners } from 'node:events';
import * as workflow from 'n8n-workflow';

import { abortableSleepOf, wait, waitAtMost } from '../../../nodes/gateway/transport';

type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;

const timers = () => process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length;

/** n8n-workflow 2.0.x's `sleepWithAbort`, as it was (utils.ts): it rejects with its own error, and on elapsing leaves its listener. */
class ManualExecutionCancelledError extends Error {}
const sleepWithAbortOf2_0: AbortableSleep = async (ms, abortSignal) =>
	await new Promise<void>((resolve, reject) => {
		if (abortSignal?.aborted) {
			reject(new ManualExecutionCancelledError(''));
			return;
		}
		const timeout = setTimeout(resolve, ms);
		abortSignal?.addEventListener('abort', () => {
			clearTimeout(timeout);
			reject(new ManualExecutionCancelledError(''));
		}, { once: true });
	});
const sleepOf2_0 = async (ms: number) => await new Promise<void>((resolve) => setTimeout(resolve, ms));

describe('the sleep of the host n8n-workflow', () => {
	it('2.0.x (sleep without a signal, sleepWithAbort): sleepWithAbort; 2.41 (sleep with a signal only): sleep', () => {
		expect(abortableSleepOf({ sleep: sleepOf2_0, sleepWithAbort: sleepWithAbortOf2_0 })).toBe(sleepWithAbortOf2_0);
		expect(abortableSleepOf({ sleep: workflow.sleep })).toBe(workflow.sleep);
		expect(() => abortableSleepOf({})).toThrow(/neither sleepWithAbort nor sleep/);
	});

	it('the installed n8n-workflow is one of the two shapes (2.41: sleep takes the signal)', () => {
		expect(typeof workflow.sleep).toBe('function');
		const exported = workflow as unknown as { sleepWithAbort?: unknown };
		if (exported.sleepWithAbort === undefined) expect(workflow.sleep.length).toBeGreaterThanOrEqual(1);
	});
});

describe.each([
	['the installed n8n-workflow', undefined],
	['n8n-workflow 2.0.x (sleepWithAbort)', sleepWithAbortOf2_0],
] as const)('wait on %s', (_name, sleep) => {
	it('waits the time and says it elapsed', async () => {
		const started = Date.now();
		expect(await wait(120, new AbortController().signal, sleep)).toBe(true);
		expect(Date.now() - started).toBeGreaterThanOrEqual(115);
	});

	it('ends at once when the signal aborts, without rejecting, and leaves no timer', async () => {
		const before = timers();
		const stop = new AbortController();
		const started = Date.now();
		const waiting = wait(60_000, stop.signal, sleep);
		setTimeout(() => stop.abort(), 30);
		expect(await waiting).toBe(false);
		expect(Date.now() - started).toBeLessThan(200);
		expect(timers()).toBe(before);
		expect(getEventListeners(stop.signal, 'abort')).toHaveLength(0);
	});

	it('does not wait on a signal that already aborted', async () => {
		const stop = new AbortController();
		stop.abort();
		const started = Date.now();
		expect(await wait(60_000, stop.signal, sleep)).toBe(false);
		expect(Date.now() - started).toBeLessThan(50);
	});
});

describe("a run's wait on the execution's cancel signal (wait)", () => {
	it("ends at once when the execution is cancelled, and takes its listener off n8n's signal when it ends", async () => {
		const execution = new AbortController();
		const waits = Promise.all([wait(60_000, execution.signal), wait(60_000, execution.signal), wait(60_000, execution.signal)]);
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(3);
		const started = Date.now();
		setTimeout(() => execution.abort(), 20);
		expect(await waits).toEqual([false, false, false]);
		expect(Date.now() - started).toBeLessThan(200);
		expect(await wait(60_000, execution.signal)).toBe(false);
	});

	it('elapses when nothing cancels it, and leaves no listener', async () => {
		const execution = new AbortController();
		expect(await wait(50, execution.signal)).toBe(true);
		expect(getEventListeners(execution.signal, 'abort')).toHaveLength(0);
	});
});

describe('waitAtMost (the trigger waits for its mark-as-read requests, a few seconds at most)', () => {
	it('ends with the work and leaves no timer behind', async () => {
		const before = timers();
		const started = Date.now();
		await waitAtMost(new Promise((resolve) => setTimeout(resolve, 30)), 60_000);
		expect(Date.now() - started).toBeLessThan(30_000);
		expect(timers()).toBe(before);
	});

	it('ends after the time when the work takes longer, and a failed work does not make it reject', async () => {
		const started = Date.now();
		await waitAtMost(new Promise(() => undefined), 100);
		expect(Date.now() - started).toBeGreaterThanOrEqual(95);
		await expect(waitAtMost(Promise.reject(new Error('refused')), 60_000)).resolves.toBeUndefined();
	});
});
