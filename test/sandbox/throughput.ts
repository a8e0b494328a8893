/**
 * The network's limits on sending (/work/shared/spec/NOTES.md, last paragraph), which it answers synchronously with
 * HTTP 400, not 429, and Meta's error body:
 *
 * - Throughput of the phone number: at most `perSecond` accepted sends (`POST /api/Messages` with a message, not a
 *   mark-as-read) in any sliding window of 1,000 ms; the excess → 400, code 130429 "(#130429) Rate limit hit",
 *   details "Cloud API message throughput has been reached". The limit is the phone's, so every caller of the
 *   sandbox (any API key, any process) shares it: the sandbox has one phone.
 * - Pair rate: a send to a recipient less than `pairIntervalMs` after the last ACCEPTED send to the same recipient →
 *   400, code 131056 "(#131056) (Business Account, Consumer Account) pair rate limit hit".
 *
 * The throughput is checked first; a refused send counts against neither limit (it was not sent). `mode: '429'`
 * answers both with HTTP 429 and `Retry-After: retryAfterSeconds` instead (the same body), as a gateway that turns the
 * network's limits into 429s would. Refused requests are recorded like any other (status and answer), and counted in
 * `counts`. Checked after the body is validated (an invalid message gets its own 400), before it is accepted.
 *
 * Off by default (`perSecond` and `pairIntervalMs` 0), so no test sees a limit it did not ask for. The clock is the
 * sandbox's (`now` of startSandbox: tests move it; Date.now otherwise).
 */
import { GatewayError } from './errors';

/** The network's window of its throughput limit. */
export const THROUGHPUT_WINDOW_MS = 1000;

export const THROUGHPUT_CODE = 130429;
export const THROUGHPUT_MESSAGE = '(#130429) Rate limit hit';
export const THROUGHPUT_DETAILS = 'Cloud API message throughput has been reached';
export const PAIR_RATE_CODE = 131056;
export const PAIR_RATE_MESSAGE = '(#131056) (Business Account, Consumer Account) pair rate limit hit';
export const PAIR_RATE_DETAILS =
	'Message failed to send because there were too many messages sent from this phone number to the same phone number in a short period of time';

/** How the excess is answered: as the network (400 and its code) or as a gateway that answers 429. */
export type ThroughputMode = 'network' | '429';
export const THROUGHPUT_MODES: readonly ThroughputMode[] = ['network', '429'];

export interface ThroughputSettings {
	/** Accepted sends in any 1,000 ms window, at most; 0: no limit. */
	perSecond: number;
	/** Least milliseconds between two accepted sends to one recipient; 0: no limit. */
	pairIntervalMs: number;
	/** `network` (default): 400 with 130429 / 131056. `429`: HTTP 429 with Retry-After, the same body. */
	mode: ThroughputMode;
	/** The Retry-After of mode `429`, in seconds (default 1). */
	retryAfterSeconds: number;
}

export const THROUGHPUT_OFF: ThroughputSettings = { perSecond: 0, pairIntervalMs: 0, mode: 'network', retryAfterSeconds: 1 };

/** What the limits did since the start or the last reset. */
export interface ThroughputCounts {
	/** Sends accepted (checked while a limit was on, or not). */
	accepted: number;
	/** Sends refused for the phone's throughput (130429). */
	refusedThroughput: number;
	/** Sends refused for the pair rate (131056). */
	refusedPair: number;
}

/** Settings from a partial one: an absent or 0 limit is off, an absent mode is `network` (not merged with the old). */
export function throughputSettings(asked: Partial<ThroughputSettings> | null | undefined): ThroughputSettings {
	return {
		perSecond: asked?.perSecond ?? 0,
		pairIntervalMs: asked?.pairIntervalMs ?? 0,
		mode: asked?.mode ?? 'network',
		retryAfterSeconds: asked?.retryAfterSeconds ?? 1,
	};
}

/** Why a setting is not valid, or null: limits are numbers >= 0, the mode one of THROUGHPUT_MODES. */
export function checkThroughputSettings(asked: Record<string, unknown>): string | null {
	for (const name of ['perSecond', 'pairIntervalMs', 'retryAfterSeconds'] as const) {
		const value = asked[name];
		if (value !== undefined && !(typeof value === 'number' && Number.isFinite(value) && value >= 0)) {
			return `${name} must be a number >= 0`;
		}
	}
	if (asked.mode !== undefined && !(THROUGHPUT_MODES as readonly unknown[]).includes(asked.mode)) {
		return `mode must be one of ${THROUGHPUT_MODES.join(', ')}`;
	}
	return null;
}

export class NetworkThroughput {
	settings: ThroughputSettings;
	readonly counts: ThroughputCounts = { accepted: 0, refusedThroughput: 0, refusedPair: 0 };
	/** When the last accepted sends were accepted, oldest first: only the last `perSecond` matter. */
	private readonly recent: number[] = [];
	/** Recipient → when a send to them was last accepted (entries older than the pair interval are dropped). */
	private readonly lastTo = new Map<string, number>();

	constructor(
		settings: ThroughputSettings,
		private readonly now: () => number,
	) {
		this.settings = { ...settings };
	}

	/** New settings; what was accepted before still counts (it is the phone's recent past). */
	set(settings: ThroughputSettings): void {
		this.settings = { ...settings };
	}

	/**
	 * A valid send to `to` is about to be accepted: throws the network's refusal when a limit is reached, else records
	 * it as accepted.
	 */
	admit(to: string): void {
		const now = this.now();
		const { perSecond, pairIntervalMs } = this.settings;
		if (perSecond > 0) {
			const inWindow = this.recent.filter((at) => now - at < THROUGHPUT_WINDOW_MS).length;
			if (inWindow >= perSecond) {
				this.counts.refusedThroughput++;
				throw this.refusal(THROUGHPUT_CODE, THROUGHPUT_MESSAGE, THROUGHPUT_DETAILS);
			}
		}
		if (pairIntervalMs > 0) {
			const last = this.lastTo.get(to);
			if (last !== undefined && now - last < pairIntervalMs) {
				this.counts.refusedPair++;
				throw this.refusal(PAIR_RATE_CODE, PAIR_RATE_MESSAGE, PAIR_RATE_DETAILS);
			}
		}
		this.counts.accepted++;
		this.recent.push(now);
		// The limit may be raised later: keep enough for any limit up to the network's highest tier (1,000/s).
		if (this.recent.length > Math.max(perSecond, 1000)) this.recent.shift();
		this.lastTo.set(to, now);
		if (this.lastTo.size > 10_000) this.forgetOlderThan(now - Math.max(pairIntervalMs, THROUGHPUT_WINDOW_MS));
	}

	/** Forgets every accepted send (reset). */
	reset(settings: ThroughputSettings): void {
		this.settings = { ...settings };
		this.recent.length = 0;
		this.lastTo.clear();
		this.counts.accepted = 0;
		this.counts.refusedThroughput = 0;
		this.counts.refusedPair = 0;
	}

	private forgetOlderThan(time: number): void {
		for (const [to, at] of this.lastTo) if (at < time) this.lastTo.delete(to);
	}

	private refusal(code: number, message: string, details: string): GatewayError {
		if (this.settings.mode === '429') {
			return new GatewayError(429, message, {
				code,
				details,
				headers: { 'retry-after': String(this.settings.retryAfterSeconds) },
			});
		}
		return new GatewayError(400, message, { code, details });
	}
}
