/**
 * The deadlines of a run's requests in flight, watched by one loop on n8n-workflow's `sleep`: n8n Cloud allows no
 * setTimeout in a node, n8n-workflow's `sleep` cannot be cancelled, and AbortSignal.timeout cannot be cleared (a
 * request that ends early, nearly every one, would leave its signal and timer behind: 33 MB after 100,000 quick
 * requests, test/unit/cancelSignal.test.ts). Here a request that ends just leaves the set; nothing waits for it.
 *
 * State: `watched` holds the deadlines of the requests in flight; `watching` is true while the loop runs. The loop
 * wakes at the earliest deadline, or after WATCH_TICK_MS at most (a request added while it sleeps may end sooner than
 * the wake-up it planned), ends the expired ones and stops when the set is empty; the next deadline starts it again.
 */
import { sleep } from 'n8n-workflow';

/** The longest the loop sleeps: how late, at most, a deadline can be noticed. */
export const WATCH_TICK_MS = 250;

/** A watched deadline, from `DeadlineWatch.watch`. */
export interface WatchedDeadline {
	/** Moves the deadline to `ms` from now (an idle deadline restarts on each chunk of the body). */
	restart(): void;
	/** The request ended: the deadline no longer applies. */
	stop(): void;
}

interface Entry {
	/** When it expires, in ms since the epoch. */
	expiresAt: number;
	readonly onExpire: () => void;
}

export class DeadlineWatch {
	private readonly watched = new Set<Entry>();
	private watching = false;

	/** Calls `onExpire` once, `ms` from now unless restarted or stopped first. */
	watch(ms: number, onExpire: () => void): WatchedDeadline {
		const entry: Entry = { expiresAt: Date.now() + ms, onExpire };
		this.watched.add(entry);
		if (!this.watching) void this.loop();
		return {
			restart: () => (entry.expiresAt = Date.now() + ms),
			stop: () => this.watched.delete(entry),
		};
	}

	/** Requests watched at the moment (for tests). */
	get size(): number {
		return this.watched.size;
	}

	private async loop(): Promise<void> {
		this.watching = true;
		try {
			while (this.watched.size > 0) {
				const now = Date.now();
				let earliest = Infinity;
				for (const entry of [...this.watched]) {
					if (entry.expiresAt <= now) {
						this.watched.delete(entry);
						entry.onExpire();
					} else earliest = Math.min(earliest, entry.expiresAt);
				}
				if (this.watched.size > 0) await sleep(Math.min(earliest - now, WATCH_TICK_MS));
			}
		} finally {
			this.watching = false;
		}
	}
}
