/** The sandbox gateway in its own process for bench/messages.bench.ts: sends `{ url, apiKey, phoneId }` to its parent. */
import { startSandbox } from '../test/sandbox';

void (async () => {
	const sandbox = await startSandbox();
	process.send?.({ url: sandbox.url, apiKey: sandbox.apiKey, phoneId: sandbox.phoneId });
	process.on('message', (message) => {
		if (message === 'count') {
			process.send?.({ sent: sandbox.requests.filter((r) => r.status === 200).length, all: sandbox.requests.length });
		}
		// Recorded requests are dropped between rounds so that the sandbox's memory does not weigh on later rounds.
		if (message === 'reset') {
			sandbox.reset();
			process.send?.('reset');
		}
	});
	process.on('disconnect', () => void sandbox.close().then(() => process.exit(0)));
})();
