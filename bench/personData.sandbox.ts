/** The sandbox gateway in its own process for bench/personData.bench.ts: sends `{ url, apiKey }` to its parent. */
import { startSandbox } from '../test/sandbox';

void (async () => {
	// Bodies are not kept: a million records would only measure the sandbox's own memory.
	const sandbox = await startSandbox({ keepBodiesUpToBytes: 0 });
	process.send?.({ url: sandbox.url, apiKey: sandbox.apiKey, phoneId: sandbox.phoneId });
	process.on('message', (message) => {
		if (message === 'files') {
			process.send?.({ files: sandbox.state.personFiles.map(({ records, bytes }) => ({ records, bytes })) });
		}
		if (message === 'reset') {
			sandbox.reset();
			process.send?.('reset');
		}
	});
	process.on('disconnect', () => void sandbox.close().then(() => process.exit(0)));
})();
