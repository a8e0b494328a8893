/**
 * Contract with n8n-workflow: the abortable wait the package's waits and deadlines are built on. n8n-workflow 2.0.x
 * exports `sleepWithAbort(ms, signal)` (and a `sleep(ms)` that takes no signal); 2.41 exports `sleep(ms, signal)` only.
 * Whichever the installed n8n-workflow has must resolve after `ms`, reject at once on abort and clear its timer (no
 * timer left to keep the process or the run alive). The day n8n renames or changes it, this fails.
 */
import { getEventListeners } from 'node:events';

import * as workflow from 'n8n-workflow';

type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;
const exported = workflow as unknown as { sleep?: AbortableSleep; sleepWithAbort?: AbortableSleep };
const hasSleepWithAbort = typeof exported.sleepWithAbort === 'function';
/** 2.0.x: sleepWithAbort; 2.41: sleep. */
const abortableSleep: AbortableSleep = hasSleepWithAbort ? exported.sleepWithAbort! : exported.sleep!;

const timers = () => process.getActiveResourcesInfo().filter((resource) => resource === 'Timeout').length;

it('n8n-workflow exports an abortable sleep: sleepWithAbort (2.0.x) or sleep with a signal (2.41)', () => {
	expect(typeof abortableSleep).toBe('function');
	// 2.41 dropped sleepWithAbort; a release with neither, or with both again, changes what the package must pick.
	expect(hasSleepWithAbort).toBe(typeof (workflow as { sleepWithAbort?: unknown }).sleepWithAbort === 'function');
});

it('resolves after its time when the signal does not abort', async () => {
	const started = performance.now();
	await expect(abortableSleep(50, new AbortController().signal)).resolves.toBeUndefined();
	expect(performance.now() - started).toBeGreaterThanOrEqual(45);
});

it('rejects on abort and clears its timer', async () => {
	const before = timers();
	const controller = new AbortController();
	const waiting = abortableSleep(60_000, controller.signal);
	expect(timers()).toBe(before + 1);
	controller.abort();
	await expect(waiting).rejects.toBeInstanceOf(Error);
	expect(timers()).toBe(before);
});

it('rejects at once, setting no timer, when the signal has already aborted', async () => {
	const before = timers();
	const controller = new AbortController();
	controller.abort();
	const waiting = abortableSleep(60_000, controller.signal);
	expect(timers()).toBe(before);
	await expect(waiting).rejects.toBeInstanceOf(Error);
});

it('a finished wait leaves its abort listener on the signal in 2.0.x and none in 2.41: a signal that outlives many waits needs a wait-sized one', async () => {
	const controller = new AbortController();
	await abortableSleep(1, controller.signal);
	expect(getEventListeners(controller.signal, 'abort')).toHaveLength(hasSleepWithAbort ? 1 : 0);
});
