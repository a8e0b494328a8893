/**
 * The one timer of the nodes: n8n-workflow's abortable sleep, whichever the host n8n has. The node runs on the host's
 * n8n-workflow: 2.0 to 2.30 export `sleepWithAbort(ms, signal)` beside a `sleep(ms)` without one; 2.35 to 2.41 export
 * only `sleep(ms, signal)` (from @n8n/utils). All reject when the signal aborts and clear their timer; some leave their
 * abort listener on the signal when the time elapses (2.0, 2.35). So every wait passes a signal of its own (the
 * callers: `wait`, transport.ts's Attempt), and whatever a version leaves on it goes with the wait. Every deadline and
 * every wait of a run is a `delay`.
 */
import * as workflow from 'n8n-workflow';

export type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/** The abortable sleep a version of n8n-workflow exports: `sleepWithAbort` when it has one, else `sleep`. */
export function abortableSleepOf(module: object): AbortableSleep {
	const exported = module as { sleepWithAbort?: unknown; sleep?: unknown };
	if (typeof exported.sleepWithAbort === 'function') return exported.sleepWithAbort as AbortableSleep;
	if (typeof exported.sleep === 'function') return exported.sleep as AbortableSleep;
	throw new Error('n8n-workflow exports neither sleepWithAbort nor sleep');
}

const abortableSleep = abortableSleepOf(workflow);

/** Node's timers take at most 2^31-1 ms (a longer one fires at once): longer waits are taken in steps. */
const LONGEST_STEP_MS = 2_147_483_647;

/**
 * Waits `ms`, or less when `signal` aborts first: true when the time elapsed, false when the signal aborted (also when
 * it already had). Never rejects, however the host's sleep rejects on an abort (2.0.x: ManualExecutionCancelledError;
 * later: the signal's reason).
 */
export async function delay(ms: number, signal: AbortSignal, sleep: AbortableSleep = abortableSleep): Promise<boolean> {
	let left = Math.max(0, ms);
	do {
		if (signal.aborted) return false;
		const step = Math.min(left, LONGEST_STEP_MS);
		// Both sleeps reject only when the signal aborts.
		const elapsed = await sleep(step, signal).then(
			() => true,
			() => false,
		);
		if (!elapsed) return false;
		left -= step;
	} while (left > 0);
	return !signal.aborted;
}

/**
 * Waits for `work`, at most `ms`: the wait ends with the work, and its timer with it (a `sleep` raced against the work
 * would stay behind for the whole `ms`). The work goes on after a timeout; its outcome is not this wait's.
 */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
	const done = new AbortController();
	const finish = () => done.abort();
	void work.then(finish, finish);
	await delay(ms, done.signal);
}

/**
 * Calls `handler` once when `signal` aborts (at once when it already has); the returned function removes it. A run's
 * waits and requests listen to n8n's cancel signal of the execution this way and stop listening when they end, so
 * that nothing of a finished request stays on the signal.
 */
export function onAbort(signal: AbortSignal | undefined, handler: () => void): () => void {
	if (!signal) return () => undefined;
	if (signal.aborted) {
		handler();
		return () => undefined;
	}
	signal.addEventListener('abort', handler, { once: true });
	return () => signal.removeEventListener('abort', handler);
}

/**
 * Waits `ms`, or less when `stop` (n8n's cancel signal of the execution) aborts: true when the time elapsed. The wait
 * has a signal of its own, so whatever the host's sleep leaves on it goes with the wait.
 */
export async function wait(ms: number, stop: AbortSignal | undefined): Promise<boolean> {
	if (stop?.aborted) return false;
	const own = new AbortController();
	const removeListener = onAbort(stop, () => own.abort());
	try {
		return await delay(ms, own.signal);
	} finally {
		removeListener();
	}
}
