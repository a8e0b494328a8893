/**
 * Cancellation of a send run by n8n (the stop button, a workflow timeout: the execution's cancel signal): no item
 * starts after it, every wait ends at once, requests in flight are aborted, and the run ends with one "canceled"
 * error instead of an error item per request. Run against the sandbox gateway with its latency.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { rejectionOf, runGateway, sendText, useSandbox, type GatewayRunOptions } from './support';

const gateway = useSandbox();
/** A gateway across the internet; the run must end within one such latency of the cancel (3 s: a run that waited for
 * an answer in flight fails it, and a machine at load 16 has room: 1.2 s was seen there with 1 s). */
const LATENCY_MS = 3000;
/** Requests in progress at once (the default Parallel Requests): at most these were on their way at the cancel. */
const PARALLEL = 20;

const phones = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ json: { phone: `551198${String(8_000_000 + i).padStart(7, '0')}` } }));

/**
 * Runs the node and cancels the execution once the sandbox received `afterRequests` requests (or after `afterMs`
 * when given); when it cancelled and when the run ended.
 */
async function cancelAfter(after: { requests: number } | { ms: number }, parameters: INodeParameters, options: GatewayRunOptions) {
	const controller = new AbortController();
	let cancelledAt = 0;
	let seenAtCancel = 0;
	const cancel = () => {
		cancelledAt = Date.now();
		seenAtCancel = gateway.sandbox.requests.length;
		controller.abort();
	};
	const timer =
		'ms' in after
			? setTimeout(cancel, after.ms)
			: setInterval(() => gateway.sandbox.requests.length >= after.requests && !cancelledAt && cancel(), 2);
	try {
		const error = await rejectionOf(runGateway(gateway.sandbox, parameters, { ...options, abortSignal: controller.signal }));
		const endedAt = Date.now();
		// Anything the run still started would reach the sandbox within this time.
		await new Promise((resolve) => setTimeout(resolve, 300));
		return { error, cancelledAt, endedAt, seenAtCancel };
	} finally {
		clearTimeout(timer);
		clearInterval(timer);
	}
}

/**
 * Requests the sandbox received beyond those it had seen at the cancel and those already on their way (at most one
 * per parallel slot). The sandbox shares the test's event loop, so it may record a request sent just before the
 * cancel a good while later on a busy machine: counting is sturdier than timestamps here. A run that kept going
 * would send 80 a second.
 */
const startedAfter = (run: { seenAtCancel: number }) =>
	gateway.sandbox.requests.slice(run.seenAtCancel + PARALLEL).map((request) => request.receivedAt);

describe('a cancelled execution', () => {
	// The first run of a test file loads n8n's execution machinery: not part of what is measured.
	beforeAll(async () => await runGateway(gateway.sandbox, sendText(), { items: phones(1) }));
	beforeEach(() => gateway.sandbox.setLatency(LATENCY_MS));

	it.each([false, true])(
		'starts no request after the cancel and ends within one latency, with one error (Continue On Fail: %s)',
		async (continueOnFail) => {
			const run = await cancelAfter({ requests: 30 }, sendText(), { items: phones(400), continueOnFail });
			const { error, cancelledAt, endedAt } = run;
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/^The execution was canceled: \d+ of 400 items were sent$/);
			expect(gateway.sandbox.requests.length).toBeLessThan(60);
			expect(startedAfter(run)).toEqual([]);
			expect(endedAt - cancelledAt).toBeLessThan(LATENCY_MS);
		},
	);

	it("with Retry On Fail, n8n's further tries start nothing", async () => {
		const run = await cancelAfter({ requests: 10 }, sendText(), { items: phones(100), retryOnFail: { maxTries: 3 } });
		expect(run.error.tries).toBe(3);
		expect(startedAfter(run)).toEqual([]);
	});

	it('ends the pause of a 429 at once', async () => {
		gateway.sandbox.failNext('messages', 1, '429', { retryAfterSeconds: 30 });
		// The 429 is answered after one latency; the cancel comes during its 30 s pause.
		const run = await cancelAfter({ ms: 1.5 * LATENCY_MS }, sendText(), { items: phones(40) });
		expect(run.endedAt - run.cancelledAt).toBeLessThan(LATENCY_MS);
		expect(startedAfter(run)).toEqual([]);
	});

	it('ends the pause between batches at once', async () => {
		const parameters = sendText({ sending: { batchSize: 5, batchInterval: 30_000 } });
		// The first batch (5 in parallel) is answered after one latency; the cancel comes in the 30 s pause after it.
		const { cancelledAt, endedAt, error } = await cancelAfter({ ms: 2.5 * LATENCY_MS }, parameters, { items: phones(20) });
		expect(error.message).toMatch(/5 of 20 items were sent/);
		expect(endedAt - cancelledAt).toBeLessThan(LATENCY_MS);
	});

	it("ends the wait for a recipient's turn at once", async () => {
		gateway.sandbox.setLatency(2 * LATENCY_MS);
		const same = Array.from({ length: 3 }, () => ({ json: { phone: '5511988880010' } }));
		const { cancelledAt, endedAt } = await cancelAfter({ requests: 1 }, sendText(), { items: same });
		expect(endedAt - cancelledAt).toBeLessThan(LATENCY_MS);
		expect(gateway.sandbox.requests).toHaveLength(1);
	});
});
