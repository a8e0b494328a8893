/**
 * Run by cancelSignal.test.ts in a plain Node process (Jest's sandboxed globals keep every AbortSignal that was
 * read alive, which would hide what the node itself holds): sends `REQUESTS` requests through one run's connection
 * to a helper that answers at once, and prints the live heap growth after a full GC, with the execution's signal
 * still alive, and how many listeners the execution's signal still holds.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { getEventListeners } from 'node:events';

import { gatewayRequest, type GatewayConnection } from '../../nodes/gateway/transport';

const REQUESTS = Number(process.argv[2] ?? 100_000);

setFlagsFromString('--expose-gc');
const gc = runInNewContext('gc') as () => void;
const liveBytes = async () => {
	await new Promise((resolve) => setImmediate(resolve));
	gc();
	return process.memoryUsage().heapUsed;
};

/** A context whose HTTP helper answers at once, as a gateway would: only the node's own work is measured. */
const context = {
	helpers: {
		httpRequestWithAuthentication: async () => ({ statusCode: 200, body: { messages: [{ id: 'wamid.1' }] }, headers: {} }),
	},
	getNode: () => ({ id: 'n', name: 'Messaging Gateway', type: 'messagingGateway', typeVersion: 1, position: [0, 0], parameters: {} }),
	logger: { debug: () => undefined },
} as unknown as IExecuteFunctions;

async function main() {
	const execution = new AbortController();
	const connection: GatewayConnection = {
		settings: { baseUrl: 'http://gateway.test', phoneId: '', defaultCountry: '' },
		apiKey: 'key-0123456789',
		credentials: { apiKey: 'key-0123456789' },
		signal: execution.signal,
	};
	const body = { messaging_product: 'whatsapp', to: '5511988887777', type: 'text', text: { body: 'oi' } };
	const sendAll = async (count: number) => {
		for (let i = 0; i < count; i++) {
			await gatewayRequest.call(context, { endpoint: 'messages', method: 'POST', body, connection, timeoutMs: 60_000 });
		}
	};
	await sendAll(1_000); // warm-up: compiled code and caches are not growth
	const before = await liveBytes();
	await sendAll(REQUESTS);
	const growth = (await liveBytes()) - before;
	process.stdout.write(
		JSON.stringify({ requests: REQUESTS, growth, subscriptions: getEventListeners(execution.signal, 'abort').length, timers: process.getActiveResourcesInfo().filter((kind) => kind === 'Timeout').length, aborted: execution.signal.aborted }),
	);
}

void main();
