/**
 * The sandbox gateway in its own process for bench/throughput.bench.ts: sends `{ url, apiKey, phoneId }` to its
 * parent, then answers its messages:
 *
 * - `{ throughput: { perSecond, pairIntervalMs, mode?, retryAfterSeconds? } }`: the network's limits from now on
 *   (test/sandbox/throughput.ts); answers the settings.
 * - `{ latency: ms }`: every following request answered after ms milliseconds.
 * - `'report'`: what the gateway saw of `POST /api/Messages` sends (mark-as-read excluded) since the last reset.
 * - `'reset'`: forgets requests, state and the limits' past (the settings given at start: none).
 */
import { ENDPOINTS } from '../nodes/gateway/spec';
import { startSandbox } from '../test/sandbox';

export interface ThroughputReport {
	/** Send requests received. */
	sends: number;
	/** Sends answered 200. */
	accepted: number;
	/** Accepted sends per recipient. */
	acceptedBy: Record<string, number>;
	/** Sends not answered 200, by status and network code (`400 130429`, `429 130429`, `400 131056`, ...). */
	refusedBy: Record<string, number>;
	/** Sends to each recipient, accepted or not (how often each was tried). */
	triedBy: Record<string, number>;
	/** Arrival of the first send and of the last accepted one (epoch ms, the real clock). */
	firstAt: number | null;
	lastAcceptedAt: number | null;
}

void (async () => {
	const sandbox = await startSandbox();
	process.send?.({ url: sandbox.url, apiKey: sandbox.apiKey, phoneId: sandbox.phoneId });
	process.on('message', (message: unknown) => {
		if (typeof message === 'object' && message !== null && 'throughput' in message) {
			process.send?.(sandbox.setThroughput((message as { throughput: object }).throughput));
		} else if (typeof message === 'object' && message !== null && 'latency' in message) {
			sandbox.setLatency(Number((message as { latency: number }).latency));
			process.send?.('latency');
		} else if (message === 'report') {
			process.send?.(report());
		} else if (message === 'reset') {
			sandbox.reset();
			process.send?.('reset');
		}
	});
	process.on('disconnect', () => void sandbox.close().then(() => process.exit(0)));

	function report(): ThroughputReport {
		const sends = sandbox.requests.filter(
			(request) =>
				request.path === ENDPOINTS.messages.path && typeof request.body === 'object' && request.body !== null && 'to' in request.body,
		);
		const result: ThroughputReport = {
			sends: sends.length,
			accepted: 0,
			acceptedBy: {},
			refusedBy: {},
			triedBy: {},
			firstAt: sends[0]?.receivedAt ?? null,
			lastAcceptedAt: null,
		};
		for (const send of sends) {
			const to = String((send.body as { to: unknown }).to);
			result.triedBy[to] = (result.triedBy[to] ?? 0) + 1;
			if (send.status === 200) {
				result.accepted++;
				result.acceptedBy[to] = (result.acceptedBy[to] ?? 0) + 1;
				result.lastAcceptedAt = Math.max(result.lastAcceptedAt ?? 0, send.receivedAt);
				continue;
			}
			const code = (send.responseBody as { error?: { code?: unknown } } | null)?.error?.code;
			const key = `${send.status}${code === undefined ? '' : ` ${String(code)}`}`;
			result.refusedBy[key] = (result.refusedBy[key] ?? 0) + 1;
		}
		return result;
	}
})();
