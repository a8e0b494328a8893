/**
 * Contract with n8n-core: `httpRequestWithAuthentication` attaches the execution's cancel signal to the request
 * itself, so Stop (or a workflow timeout) ends a request that is waiting for its answer. The package relies on it for
 * every gateway call; the day n8n stops attaching it, this fails.
 */
import type { ServerResponse } from 'node:http';

import { runNode } from '../harness';
import { API_KEY, type LocalServer, RequestNode, nextRequest, startServer } from './support';

let server: LocalServer;
let arrived: () => void;
let closedByClient: Promise<void>;
const held: ServerResponse[] = [];

beforeAll(async () => {
	// Never answers: only the cancel signal can end the request (no timeout is set).
	server = await startServer((req, res) => {
		held.push(res);
		closedByClient = new Promise((resolve) => req.socket.once('close', () => resolve()));
		arrived();
	});
});
afterAll(() => server.close());

it("ends a request waiting for its answer when the execution's cancel signal aborts", async () => {
	const requestArrived = new Promise<void>((resolve) => (arrived = resolve));
	const execution = new AbortController();
	nextRequest.options = { method: 'GET', url: `${server.url}/never-answers`, json: true };

	const run = runNode({
		node: new RequestNode(),
		parameters: {},
		credentials: { messagingGatewayApi: { apiKey: API_KEY, baseUrl: server.url } },
		abortSignal: execution.signal,
	});
	const outcome = run.then(
		() => 'answered',
		(error: Error) => error,
	);
	await requestArrived;
	execution.abort();

	const result = await outcome;
	expect(result).toBeInstanceOf(Error);
	await closedByClient; // the socket is closed by the client, not left open
	expect(held).toHaveLength(1);
});
