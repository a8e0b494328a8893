/**
 * Cancellation of a send run by n8n (the stop button, a workflow timeout: the execution's cancel signal): no item
 * starts after it, every wait ends at once, requests in flight are aborted, and the run ends with one "canceled"
 * error instead of an error item per request. Run against the sandbox gateway with its latency.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { rejectionOf, runGateway, useSandbox, type GatewayRunOptions } from './support';

const gateway = useSandbox();
/** A gateway across the internet; the run must end within one such latency of the cancel. */
const LATENCY_MS = 1000;
/** A request sent just before the cancel may be recorded by the sandbox a little later on a busy machine. */
const IN_TRANSIT_MS = 100;

const sendText = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	messageType: 'text',
	recipientPhoneNumber: '={{ $json.phone }}',
	textBody: 'Seu pedido saiu para entrega',
	...extra,
});

const phones = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ json: { phone: `551198${String(8_000_000 + i).padStart(7, '0')}` } }));

/**
 * Runs the node and cancels the execution once the sandbox received `afterRequests` requests (or after `afterMs`
 * when given); when it cancelled and when the run ended.
 */
async function cancelAfter(after: { requests: number } | { answered: number } | { ms: number }, parameters: INodeParameters, options: GatewayRunOptions) {
	const controller = new AbortController();
	let cancelledAt = 0;
	const cancel = () => {
		cancelledAt = Date.now();
		controller.abort();
	};
	const timer =
		'ms' in after
			? setTimeout(cancel, after.ms)
			: setInterval(() => {
					const seen = 'requests' in after ? gateway.sandbox.requests : gateway.sandbox.requests.filter((request) => request.status === 200);
					if (seen.length >= ('requests' in after ? after.requests : after.answered) && !cancelledAt) cancel();
				}, 2);
	try {
		const error = await rejectionOf(runGateway(gateway.sandbox, parameters, { ...options, abortSignal: controller.signal }));
		return { error, cancelledAt, endedAt: Date.now() };
	} finally {
		clearTimeout(timer);
		clearInterval(timer);
	}
}

/** Requests that reached the sandbox after the cancellation (a few ms for one already on its way). */
const startedAfter = (cancelledAt: number) =>
	gateway.sandbox.requests.filter((request) => request.receivedAt > cancelledAt + IN_TRANSIT_MS);

describe('a cancelled execution', () => {
	// The first run of a test file loads n8n's execution machinery: not part of what is measured.
	beforeAll(async () => await runGateway(gateway.sandbox, sendText(), { items: phones(1) }));
	beforeEach(() => gateway.sandbox.setLatency(LATENCY_MS));

	it.each([false, true])(
		'starts no request after the cancel and ends within one latency, with one error (Continue On Fail: %s)',
		async (continueOnFail) => {
			const { error, cancelledAt, endedAt } = await cancelAfter({ requests: 30 }, sendText(), { items: phones(400), continueOnFail });
			expect(error).toBeInstanceOf(NodeOperationError);
			expect(error.message).toMatch(/^The execution was canceled: \d+ of 400 items were sent$/);
			expect(gateway.sandbox.requests.length).toBeLessThan(60);
			expect(startedAfter(cancelledAt)).toEqual([]);
			expect(endedAt - cancelledAt).toBeLessThan(LATENCY_MS);
		},
	);

	it("with Retry On Fail, n8n's further tries start nothing", async () => {
		const { cancelledAt, error } = await cancelAfter({ requests: 10 }, sendText(), { items: phones(100), retryOnFail: { maxTries: 3 } });
		expect(error.tries).toBe(3);
		expect(startedAfter(cancelledAt)).toEqual([]);
	});

	it('ends the pause of a 429 at once', async () => {
		gateway.sandbox.failNext('messages', 1, '429', { retryAfterSeconds: 30 });
		const { cancelledAt, endedAt } = await cancelAfter({ ms: 400 }, sendText(), { items: phones(20) });
		expect(endedAt - cancelledAt).toBeLessThan(LATENCY_MS);
		expect(startedAfter(cancelledAt)).toEqual([]);
	});

	it('ends the pause between batches at once', async () => {
		const parameters = sendText({ batching: { batchSize: 5, batchInterval: 30_000 } });
		const { cancelledAt, endedAt, error } = await cancelAfter({ answered: 5 }, parameters, { items: phones(20) });
		expect(error.message).toMatch(/5 of 20 items were sent/);
		expect(endedAt - cancelledAt).toBeLessThan(LATENCY_MS);
	});

	it("ends the wait for a recipient's turn at once", async () => {
		gateway.sandbox.setLatency(2_000);
		const same = Array.from({ length: 3 }, () => ({ json: { phone: '5511988880010' } }));
		const { cancelledAt, endedAt } = await cancelAfter({ requests: 1 }, sendText(), { items: same });
		expect(endedAt - cancelledAt).toBeLessThan(LATENCY_MS);
		expect(gateway.sandbox.requests).toHaveLength(1);
	});
});
