/**
 * A wait that the execution's cancellation ends at once, on the platform's AbortSignal.timeout: n8n Cloud allows no
 * setTimeout in a node, and n8n-workflow's `sleep` cannot be cancelled. While it waits, Node keeps the timeout signal
 * alive (it has an abort listener); the listener goes when the wait ends. Used for the run's waits (pacing, a 429
 * pause, the pause between batches), which end by themselves or by a cancel; a request's deadline, which nearly
 * always ends early, is watched by the run's DeadlineWatch instead (deadlines.ts says why).
 */
import type { Cancellation } from './connection';

/** Waits `ms`; the execution's cancellation ends the wait at once (and one that is already cancelled does not wait). */
export async function cancellableWait(ms: number, cancel: Cancellation): Promise<void> {
	if (cancel.aborted) return;
	await new Promise<void>((resolve) => {
		const elapsed = AbortSignal.timeout(ms);
		const done = () => {
			elapsed.removeEventListener('abort', done);
			unsubscribe();
			resolve();
		};
		elapsed.addEventListener('abort', done, { once: true });
		const unsubscribe = cancel.subscribe(done);
	});
}
