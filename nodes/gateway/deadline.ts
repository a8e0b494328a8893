/**
 * A deadline for one request, on the platform's AbortSignal.timeout: n8n Cloud allows no setTimeout in a node, and
 * n8n-workflow's `sleep` cannot be cancelled. `moved()` restarts an idle deadline (bytes moved); a deadline on the
 * whole answer never calls it. While armed, Node keeps a timeout signal that has an abort listener alive; `stop()`
 * removes the listener, so nothing of a finished request stays reachable.
 */
export class RequestDeadline {
	/** When bytes last moved (ms since the epoch); the deadline falls `ms` after it. */
	private lastMove = Date.now();
	/** The armed timeout and its listener; undefined once stopped or expired. */
	private armed: { signal: AbortSignal; listener: () => void } | undefined;

	constructor(
		private readonly ms: number,
		private readonly expire: () => void,
	) {
		this.arm(ms);
	}

	/** Bytes moved: an idle deadline counts from now (re-armed lazily when the armed timeout fires). */
	moved(): void {
		this.lastMove = Date.now();
	}

	stop(): void {
		if (this.armed) this.armed.signal.removeEventListener('abort', this.armed.listener);
		this.armed = undefined;
	}

	private arm(ms: number): void {
		const signal = AbortSignal.timeout(ms);
		const listener = () => this.check();
		signal.addEventListener('abort', listener, { once: true });
		this.armed = { signal, listener };
	}

	private check(): void {
		if (!this.armed) return;
		const remaining = this.lastMove + this.ms - Date.now();
		if (remaining > 0) {
			this.arm(remaining);
			return;
		}
		this.armed = undefined;
		this.expire();
	}
}

/** Waits `ms`; `cancelled` (subscribe a handler, get an unsubscribe) ends the wait at once. */
export async function cancellableWait(
	ms: number,
	subscribeCancel: (handler: () => void) => () => void,
): Promise<void> {
	await new Promise<void>((resolve) => {
		const elapsed = AbortSignal.timeout(ms);
		const done = () => {
			elapsed.removeEventListener('abort', done);
			unsubscribe();
			resolve();
		};
		elapsed.addEventListener('abort', done, { once: true });
		const unsubscribe = subscribeCancel(done);
	});
}
