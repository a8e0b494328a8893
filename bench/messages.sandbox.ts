/** The sandbox gateway in its own process for bench/messages.bench.ts: sends `{ url, apiKey, phoneId }` to its parent. */
import { startSandbox } from '../test/sandbox';

void (async () => {
	const sandbox = await startSandbox();
	process.send?.({ url: sandbox.url, apiKey: sandbox.apiKey, phoneId: sandbox.phoneId });
	process.on('message', (message) => {
		// `latency:<ms>`: every following request is answered after ms milliseconds (a gateway across the internet).
		if (typeof message === 'string' && message.startsWith('latency:')) {
			sandbox.setLatency(Number(message.slice('latency:'.length)));
			process.send?.('latency');
		}
		if (message === 'count') {
			const times = sandbox.requests.map((r) => r.receivedAt);
			process.send?.({
				sent: sandbox.requests.filter((r) => r.status === 200).length,
				all: sandbox.requests.length,
				spanMs: times.length ? Math.max(...times) - Math.min(...times) : 0,
			});
		}
		// Recorded requests are dropped between rounds so that the sandbox's memory does not weigh on later rounds.
		if (message === 'reset') {
			sandbox.reset();
			process.send?.('reset');
		}
	});
	process.on('disconnect', () => void sandbox.close().then(() => process.exit(0)));
})();
