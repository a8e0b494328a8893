/**
 * What the router does for every operation: paired items, Continue On Fail, batching pauses, and send-and-wait's
 * error path. Run through Message operations against the sandbox gateway.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import * as messageResource from '../../nodes/MessagingGateway/actions/message';
import { BATCHING_DEFAULTS, SENDING_DEFAULTS } from '../../nodes/MessagingGateway/actions/message/sending';
import type { RecordedRequest } from '../sandbox';
import { rejectionOf, runGateway, sendText, useSandbox } from './support';

const gateway = useSandbox();

const phones = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { phone: `55119888800${10 + i}` } }));

const run = (parameters: INodeParameters, items = phones(1), continueOnFail = false) =>
	runGateway(gateway.sandbox, parameters, { items, continueOnFail });

const recipientOf = (request: RecordedRequest) => (request.body as { to: string }).to;
const digitsOf = (items: ReturnType<typeof phones>) => items.map((item) => item.json.phone);
/** The message ids the sandbox answered, by recipient, for accepted sends. */
const acceptedIds = () =>
	Object.fromEntries(
		gateway.sandbox.requests
			.filter((request) => request.status === 200)
			.map((request) => [recipientOf(request), (request.responseBody as { messages: Array<{ id: string }> }).messages[0].id]),
	);

/** Milliseconds between consecutive requests the sandbox received. */
const gaps = () => {
	const times = gateway.sandbox.requests.map((request) => request.receivedAt);
	return times.slice(1).map((time, i) => time - times[i]);
};

describe('paired items and Continue On Fail', () => {
	it('pairs every output item with its input item', async () => {
		const { output } = await run(sendText(), phones(3));
		expect(output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].map((item) => typeof item.json.messageId)).toEqual(['string', 'string', 'string']);
	});

	it('with Continue On Fail, a bad item becomes an error item in its place and the others are sent', async () => {
		const items = [{ json: { phone: '5511988880010' } }, { json: { phone: '12' } }, { json: { phone: '5511988880012' } }];
		const { output } = await run(sendText(), items, true);
		expect(output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0][1].json.error).toMatch(/item 1/);
		expect(output[0][0].json.messageId).toBeDefined();
		expect(output[0][2].json.messageId).toBeDefined();
		expect(gateway.sandbox.requests.map((request) => (request.body as { to: string }).to).sort()).toEqual(['5511988880010', '5511988880012']);
	});

	it('without it, the first bad item stops the run with an error naming the item', async () => {
		const items = [{ json: { phone: '5511988880010' } }, { json: { phone: '12' } }];
		await expect(run(sendText(), items)).rejects.toThrow(NodeOperationError);
		await expect(run(sendText(), items)).rejects.toMatchObject({ context: { itemIndex: 1 } });
	});

	it('a gateway error item carries the HTTP status', async () => {
		gateway.sandbox.failNext('messages', 1, '500');
		const { output } = await run(sendText(), phones(2), true);
		expect(output[0][0].json).toMatchObject({ httpCode: '500' });
		expect(output[0][0].json.error).toMatch(/^The gateway answered 500/);
		expect(output[0][1].json.messageId).toBeDefined();
	});
});

describe('batching', () => {
	it('pauses between batches of the chosen size', async () => {
		// Each answer takes 1 s: a request that reaches the gateway less than 1 s after the one before it was sent
		// before that one was answered (the same batch); a new batch waits for the answers, then the 400 ms pause.
		gateway.sandbox.setLatency(1000);
		await run(sendText({ sending: { batchSize: 2, batchInterval: 400 } }), phones(5));
		const pauses = gaps();
		expect(pauses).toHaveLength(4);
		// Requests 2 and 4 start a new batch: they wait; the others go with the one before them.
		expect(pauses[1]).toBeGreaterThanOrEqual(1000 + 380);
		expect(pauses[3]).toBeGreaterThanOrEqual(1000 + 380);
		expect(pauses[0]).toBeLessThan(1000);
		expect(pauses[2]).toBeLessThan(1000);
	});

	it('an option left out takes its default: a batch size alone pauses the default interval', async () => {
		await run(sendText({ sending: { batchSize: 1 } }), phones(2));
		expect(gaps()[0]).toBeGreaterThanOrEqual(BATCHING_DEFAULTS.intervalMs - 50);
	});

	it('the editor defaults are the router defaults', () => {
		const sending = messageResource.description.find((field) => field.name === 'sending');
		const defaults = Object.fromEntries((sending?.options ?? []).map((option) => [option.name, 'default' in option ? option.default : undefined]));
		expect(defaults).toMatchObject({ batchSize: BATCHING_DEFAULTS.size, batchInterval: BATCHING_DEFAULTS.intervalMs });
		expect(messageResource.description.find((field) => field.name === 'batching')).toBeUndefined();
	});
});

describe('parallel sending (dispatcher)', () => {
	it('answers that come back out of order: output in input order, each item paired with its own answer', async () => {
		const items = phones(6);
		// The first items answer last: item 0 after 2 s, item 5 at once.
		gateway.sandbox.setLatency((request) => (5 - Number(recipientOf(request).slice(-1))) * 400);
		const { output } = await run(sendText(), items);
		const received = gateway.sandbox.requests.map((request) => request.receivedAt);
		expect(Math.max(...received) - Math.min(...received)).toBeLessThan(2000); // all sent before item 0's answer
		expect(output[0].map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		expect(output[0].map((item) => item.json.to)).toEqual(digitsOf(items));
		const ids = acceptedIds();
		expect(output[0].map((item) => item.json.messageId)).toEqual(digitsOf(items).map((to) => ids[to]));
	});

	it('holds Messages per Second: no second at the sandbox holds more starts than the cap', async () => {
		const { output } = await run(sendText({ sending: { messagesPerSecond: 10 } }), phones(25));
		expect(output[0]).toHaveLength(25);
		// The first request of a run reaches the sandbox later after its start than the others (set-up): left out.
		const times = gateway.sandbox.requests.map((request) => request.receivedAt).sort((a, b) => a - b).slice(1);
		// Arrival jitter on a loaded machine may move a request or two into the next window: the margin (no cap: 24).
		for (const start of times) expect(times.filter((time) => time >= start && time < start + 1000).length).toBeLessThanOrEqual(12);
		expect(times[times.length - 1] - times[0]).toBeGreaterThanOrEqual(1900); // 24 starts at 10/s span 2.3 s
	});

	it('a 429 pauses all sends for its Retry-After (one back-off for all), then the run completes once each', async () => {
		gateway.sandbox.setLatency(400);
		gateway.sandbox.failNext('messages', 1, '429', { retryAfterSeconds: 1 });
		const items = phones(12);
		const { output } = await run(sendText({ sending: { parallelRequests: 4 } }), items);
		const requests = [...gateway.sandbox.requests].sort((a, b) => a.receivedAt - b.receivedAt);
		const limited = requests.find((request) => request.status === 429)!;
		// The first 4 were in flight when the 429 came (answered after 400 ms); everything after them, the retry and
		// the other items alike, starts only when its Retry-After (1 s after that answer) is over.
		expect(requests.indexOf(limited)).toBeLessThan(4);
		for (const later of requests.slice(4)) expect(later.receivedAt).toBeGreaterThanOrEqual(limited.receivedAt + 400 + 950);
		expect(requests).toHaveLength(13);
		expect(output[0].map((item) => item.json.to)).toEqual(digitsOf(items));
		expect(Object.keys(acceptedIds()).sort()).toEqual(digitsOf(items).sort());
	});

	it('Interval per Recipient spaces messages to the same number, not to others', async () => {
		const items = [0, 1, 2, 3].map((i) => ({ json: { phone: i % 2 === 0 ? '5511988880010' : `55119888800${20 + i}` } }));
		await run(sendText({ sending: { recipientIntervalMs: 600 } }), items);
		const same = gateway.sandbox.requests.filter((request) => recipientOf(request) === '5511988880010');
		// Starts are 600 ms apart; arrival at the sandbox jitters on a loaded machine, and without the option they would be ~12 ms apart.
		expect(same[1].receivedAt - same[0].receivedAt).toBeGreaterThanOrEqual(400);
		const others = gateway.sandbox.requests.filter((request) => recipientOf(request) !== '5511988880010');
		for (const other of others) expect(other.receivedAt).toBeLessThan(same[1].receivedAt);
	});

	describe('messages to the same recipient', () => {
		const A = '5511988880010';
		const sendNumbered = (extra: INodeParameters = {}) => sendText({ textBody: '={{ $json.text }}', ...extra });
		const numbered = (recipients: string[]) => recipients.map((phone, i) => ({ json: { phone, text: `message ${i}` } }));
		const textOf = (request: RecordedRequest) => (request.body as { text: { body: string } }).text.body;
		const toA = () => gateway.sandbox.requests.filter((request) => recipientOf(request) === A);

		it('go one after another in item order, while other recipients go in parallel', async () => {
			gateway.sandbox.setLatency(300);
			const items = numbered([A, '5511988880021', A, '5511988880023', A]);
			const { output } = await run(sendNumbered({ sending: { messagesPerSecond: 0 } }), items);
			expect(toA().map(textOf)).toEqual(['message 0', 'message 2', 'message 4']);
			// Each starts after the one before it was answered (300 ms), with margin for a loaded machine.
			const [first, second, third] = toA().map((request) => request.receivedAt);
			expect(second - first).toBeGreaterThanOrEqual(250);
			expect(third - second).toBeGreaterThanOrEqual(250);
			const others = gateway.sandbox.requests.filter((request) => recipientOf(request) !== A);
			for (const other of others) expect(other.receivedAt).toBeLessThan(second);
			expect(output[0].map((item) => item.json.to)).toEqual(digitsOf(items));
		});

		it('leave in item order whatever each item awaits first: a credential country and an own country, 20 runs', async () => {
			// Item 0 reads its country from the credential, item 1 from its own expression: the same number written
			// nationally. Reading the credential once per item used to let item 1 claim the recipient first.
			const items = [
				{ json: { phone: '(11) 98888-0010', country: '', text: 'message 0' } },
				{ json: { phone: '11 98888 0010', country: 'BR', text: 'message 1' } },
			];
			const parameters = sendNumbered({ defaultCountry: '={{ $json.country }}', sending: { messagesPerSecond: 0 } });
			for (let runIndex = 0; runIndex < 20; runIndex++) {
				gateway.sandbox.reset();
				await runGateway(gateway.sandbox, parameters, { items, credentials: { defaultCountry: 'BR' } });
				expect(gateway.sandbox.requests.map(textOf)).toEqual(['message 0', 'message 1']);
			}
		});

		it('without Continue On Fail, a later one is not sent after an earlier one failed', async () => {
			gateway.sandbox.setLatency(200);
			gateway.sandbox.failNext('messages', 1, '500');
			const items = numbered([A, A, '5511988880021']);
			// 5 per second: the first message reaches the gateway well before the third starts.
			const error = await rejectionOf(run(sendNumbered({ sending: { messagesPerSecond: 5 } }), items));
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.context.itemIndex).toBe(0);
			expect(toA().map(textOf)).toEqual(['message 0']);
			expect(gateway.sandbox.requests.map(recipientOf)).toEqual([A, '5511988880021']);
		});

		it('with Continue On Fail, the later one is sent once the failed one was answered', async () => {
			gateway.sandbox.setLatency(400);
			gateway.sandbox.failNext('messages', 1, '500');
			const items = numbered([A, A]);
			const { output } = await run(sendNumbered({ sending: { messagesPerSecond: 5 } }), items, true);
			expect(toA().map((request) => [textOf(request), request.status])).toEqual([
				['message 0', 500],
				['message 1', 200],
			]);
			// Paced alone, the second would start 200 ms after the first; it waits for the first's answer (400 ms).
			expect(toA()[1].receivedAt - toA()[0].receivedAt).toBeGreaterThanOrEqual(350);
			expect(output[0].map((item) => item.json.httpCode)).toEqual(['500', undefined]);
		});
	});

	it('with Continue On Fail, parallel failures become error items in their places', async () => {
		gateway.sandbox.failNext('messages', 2, '500', { skip: 2 });
		const items = phones(8);
		const { output } = await run(sendText({ sending: { parallelRequests: 8 } }), items, true);
		const failedRecipients = gateway.sandbox.requests.filter((request) => request.status === 500).map(recipientOf);
		expect(failedRecipients).toHaveLength(2);
		expect(output[0].map((item) => item.pairedItem)).toEqual(items.map((_, item) => ({ item })));
		output[0].forEach((item, index) => {
			const failed = failedRecipients.includes(digitsOf(items)[index]);
			expect(item.json.httpCode).toBe(failed ? '500' : undefined);
			expect(typeof item.json.messageId).toBe(failed ? 'undefined' : 'string');
		});
	});

	it('without it, the first failure stops new sends and the error says how many items were sent', async () => {
		const items = phones(10);
		items[4] = { json: { phone: '12' } };
		const error = await rejectionOf(run(sendText({ sending: { parallelRequests: 2 } }), items));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.context.itemIndex).toBe(4);
		expect(error.description).toMatch(/4 of 10 items were sent before the run stopped at item 4/);
		// n8n's Retry On Fail answers them from the record; a Retry from the executions list is a new run.
		expect(error.description).toMatch(/Retry On Fail does not send them again; a Retry of the execution .* sends every item again/);
		expect(gateway.sandbox.requests.map(recipientOf).sort()).toEqual(digitsOf(items).slice(0, 4)); // two in flight: any order
	});

	it('the editor defaults are the dispatcher defaults', () => {
		const sending = messageResource.description.find((field) => field.name === 'sending');
		const defaults = Object.fromEntries((sending?.options ?? []).map((option) => [option.name, 'default' in option ? option.default : undefined]));
		expect(defaults).toEqual({
			batchSize: BATCHING_DEFAULTS.size,
			batchInterval: BATCHING_DEFAULTS.intervalMs,
			parallelRequests: SENDING_DEFAULTS.parallel,
			messagesPerSecond: SENDING_DEFAULTS.perSecond,
			recipientIntervalMs: SENDING_DEFAULTS.perRecipientMs,
			timeout: SENDING_DEFAULTS.timeoutMs / 1000,
		});
	});
});

describe("n8n's Retry On Fail sends nothing twice", () => {
	const retry = { maxTries: 3 };

	// A 429 whose Retry-After is longer than the node waits: refused before it was taken (not sent), so it may go again.
	const notSent = { retryAfterSeconds: 600 };

	it('a 10-item run that fails at one item: the retry sends only that item; every recipient gets one accepted message', async () => {
		gateway.sandbox.failNext('messages', 1, '429', { skip: 6, ...notSent });
		const items = phones(10);
		const { output, tries } = await runGateway(gateway.sandbox, sendText(), { items, retryOnFail: retry });
		expect(tries).toBe(2);
		const statuses = gateway.sandbox.requests.map((request) => request.status);
		expect(statuses.filter((status) => status === 429)).toHaveLength(1);
		expect(statuses.filter((status) => status === 200)).toHaveLength(10);
		const ids = acceptedIds();
		expect(output[0].map((item) => item.json.messageId)).toEqual(digitsOf(items).map((to) => ids[to]));
	});

	it('with Continue On Fail, a first error item makes n8n retry: accepted items come from the record', async () => {
		gateway.sandbox.failNext('messages', 1, '429', notSent);
		const items = phones(5);
		const { output, tries } = await runGateway(gateway.sandbox, sendText({ sending: { parallelRequests: 1 } }), {
			items,
			continueOnFail: true,
			retryOnFail: retry,
		});
		expect(tries).toBe(2);
		expect(gateway.sandbox.requests.map(recipientOf)).toEqual([...digitsOf(items), digitsOf(items)[0]]);
		expect(output[0].every((item) => typeof item.json.messageId === 'string')).toBe(true);
	});

	it('a send that may have arrived (connection lost) is not sent again by any try', async () => {
		gateway.sandbox.failNext('messages', 1, 'drop', { skip: 2 });
		const items = phones(4);
		const error = await rejectionOf(
			runGateway(gateway.sandbox, sendText({ sending: { parallelRequests: 1 } }), { items, retryOnFail: retry }),
		);
		expect(error.message).toMatch(/connection to the gateway was lost/);
		expect(error.context.itemIndex).toBe(2);
		expect(error.tries).toBe(3);
		// Three tries: items 0, 1 answered from the record, item 2 fails again from the record, item 3 never started.
		expect(gateway.sandbox.requests.map(recipientOf)).toEqual(digitsOf(items).slice(0, 3));
	});

	it.each(['502-after-accept', '504-after-accept', '500'] as const)(
		'a %s from the proxy is unknown: one request in all, with Retry On Fail 3, and the error says it was not repeated',
		async (fault) => {
			gateway.sandbox.failNext('messages', 1, fault);
			const error = await rejectionOf(runGateway(gateway.sandbox, sendText(), { items: phones(1), retryOnFail: retry }));
			expect(error.tries).toBe(3);
			expect(gateway.sandbox.requests).toHaveLength(1);
			expect(error).toBeInstanceOf(NodeApiError);
			expect(error.description).toMatch(/may have accepted.*not repeated.*Retry On Fail/);
		},
	);

	it('a 502 with Continue On Fail and Retry On Fail: the error item comes back from the record, nothing sent again', async () => {
		gateway.sandbox.failNext('messages', 1, '502-after-accept');
		const { output, tries } = await runGateway(gateway.sandbox, sendText(), {
			items: phones(2),
			continueOnFail: true,
			retryOnFail: retry,
		});
		expect(tries).toBe(3);
		expect(gateway.sandbox.requests).toHaveLength(2);
		expect(output[0][0].json).toMatchObject({ httpCode: '502' });
		expect(output[0][1].json.messageId).toEqual(expect.any(String));
	});

	it('each new run of the node sends again (the record is per run, not per process)', async () => {
		await run(sendText(), phones(2));
		await run(sendText(), phones(2));
		expect(gateway.sandbox.requests).toHaveLength(4);
	});
});

describe('send and wait', () => {
	const ask: INodeParameters = {
		resource: 'message',
		operation: 'sendAndWait',
		recipientPhoneNumber: '+55 11 98888-7777',
		message: 'Aprovar o reembolso?',
	};

	it('with Continue On Fail, a failed send becomes an error item and the execution does not wait', async () => {
		gateway.sandbox.failNext('messages', 1, '500');
		const result = await run(ask, phones(1), true);
		expect(result.waitTill).toBeUndefined();
		expect(result.output[0]).toEqual([{ json: expect.objectContaining({ httpCode: '500' }), pairedItem: { item: 0 } }]);
	});

	it('without it, the failed send is a NodeApiError', async () => {
		gateway.sandbox.failNext('messages', 1, '500');
		await expect(run(ask)).rejects.toThrow(NodeApiError);
	});
});
