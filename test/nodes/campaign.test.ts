/**
 * Campaigns (Message > Send with a Campaign Name; nodes/MessagingGateway/actions/campaign/): each message's key is
 * claimed in the Send node's record before anything of it leaves, marked sent or refused by its answer, freed when
 * nothing of it was sent, and left claimed when its outcome is unknown; finished parts of a whole list are sealed and a
 * finished campaign completed. A later execution sends only what was not sent. Run against the sandbox, with the
 * harness's deduplication helpers (test/harness/deduplication.ts, n8n's semantics). The lock's timing is shortened so
 * that waits stay short.
 */
import { ExecuteContext } from 'n8n-core';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { clearDeduplicationRows, deduplicationFaults, deduplicationRows, deduplicationWrites, getLogs } from '../harness';
import { jsonItems, outputJson, rejectionOf, runGateway, sendText, useSandbox, receivedBy as receivedByAt } from './support';

jest.mock('../../nodes/MessagingGateway/actions/campaign/lock', () => ({
	...jest.requireActual<object>('../../nodes/MessagingGateway/actions/campaign/lock'),
	LOCK_TIMING: { beatMs: 125, leaseMs: 750, staleMs: 1250, settleMs: 250, graceMs: 375, pollMs: 50, waitMs: 3000 },
}));

const gateway = useSandbox();
beforeEach(() => clearDeduplicationRows());

const phoneOf = (i: number) => `551198${String(8_000_000 + i).padStart(7, '0')}`;
const phones = (count: number, first = 0) =>
	jsonItems(Array.from({ length: count }, (_, i) => ({ phone: phoneOf(first + i), orderId: `order-${first + i}` })));
const campaign = (name: string, extra: IDataObject = {}, sending: IDataObject = {}): INodeParameters =>
	sendText({ campaign: { name, ...extra }, sending } as INodeParameters);
const statusesOf = (output: IDataObject[]) => output.map((json) => json.status);
const count = (values: unknown[]) => {
	const counts: Record<string, number> = {};
	for (const value of values) counts[String(value)] = (counts[String(value)] ?? 0) + 1;
	return counts;
};

/** How many messages each recipient received at the sandbox: sends it accepted (a 504-after-accept was accepted too). */
const receivedBy = () => receivedByAt(gateway.sandbox, true);

/** The node's record: how many values its row holds. */
const recordEntries = () => [...deduplicationRows()].filter(([key]) => key.includes('|n:')).reduce((all, [, row]) => all + (row.data as string[]).length, 0);

describe('a campaign run', () => {
	it('sends each key once; every item says what happened (sent, status, campaign, key); a run again sends nothing', async () => {
		const first = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(5) }));
		expect(first.map((json) => [json.sent, json.status, json.campaign, json.key, json.to])).toEqual(
			Array.from({ length: 5 }, (_, i) => [true, 'sent', 'spring', phoneOf(i), phoneOf(i)]),
		);
		expect(first.every((json) => typeof json.messageId === 'string')).toBe(true);

		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(5) }));
		expect(gateway.sandbox.requests).toHaveLength(5);
		expect(again.map((json) => [json.sent, json.status, json.key])).toEqual(Array.from({ length: 5 }, (_, i) => [false, 'alreadySent', phoneOf(i)]));
		expect(again[0].note).toBe('Not sent: already sent in this campaign.');
	});

	it('error items keep campaign and key, with sent false and status failed', async () => {
		gateway.sandbox.failNext('messages', 1, '500', { skip: 1 });
		const output = outputJson(await runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(3), continueOnFail: true }));
		const failed = output.find((json) => json.error !== undefined) as IDataObject;
		expect(failed).toMatchObject({ sent: false, status: 'failed', campaign: 'spring', key: expect.any(String), httpCode: '500' });
	});

	it('a completed campaign remembers its list in two values; a run with another list cannot tell new keys from sent ones', async () => {
		await runGateway(gateway.sandbox, campaign('spring'), { items: phones(30) });
		expect(recordEntries()).toBeLessThanOrEqual(4); // the mode, the campaign, completed and its list
		const result = await runGateway(gateway.sandbox, campaign('spring'), { items: phones(31) });
		const more = outputJson(result);
		expect(count(statusesOf(more))).toEqual({ notInList: 31 });
		// The run says it on its output too, with what to set for a workflow that sends one message per event.
		expect(result.hints.map((hint) => hint.message)).toContainEqual(expect.stringMatching(/^31 items were not sent: .*set Campaign > Input to Part of the Campaign\.$/));
		expect(more[30].note).toMatch(/set Campaign > Input to Part of the Campaign; to add recipients to a finished list, give them a new Campaign Name/);
		expect(gateway.sandbox.requests).toHaveLength(30);
	});

	it('another campaign is sent; with Part of the Campaign, runs that each bring other keys (one per event) each send theirs', async () => {
		await runGateway(gateway.sandbox, campaign('spring'), { items: phones(2) });
		await runGateway(gateway.sandbox, campaign('summer'), { items: phones(2) });
		expect([...receivedBy().values()]).toEqual([2, 2]);
		const events = campaign('orders', { messageKey: '={{ $json.orderId }}', input: 'someMessages' });
		for (let i = 0; i < 40; i++) await runGateway(gateway.sandbox, events, { items: phones(1, i) });
		const again = outputJson(await runGateway(gateway.sandbox, events, { items: phones(40) }));
		expect(count(statusesOf(again))).toEqual({ alreadySent: 40 });
		expect(receivedBy().size).toBe(40);
		expect(Math.max(...[...receivedBy().entries()].filter(([to]) => to > phoneOf(1)).map(([, n]) => n))).toBe(1);
	});

	it('a key twice in one run is sent once; the second item names the first', async () => {
		const items = jsonItems([{ phone: phoneOf(1) }, { phone: phoneOf(2) }, { phone: phoneOf(1) }]);
		const output = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items }));
		expect(output[2]).toMatchObject({ sent: false, status: 'sameKeyInRun', note: expect.stringContaining('item 0'), campaign: 'spring' });
		expect(receivedBy().get(phoneOf(1))).toBe(1);
	});

	it('a refusal of a message is recorded: a run again does not repeat it; Start Over for that item sends it', async () => {
		gateway.sandbox.failNext('messages', 1, 'undeliverable', { skip: 1 });
		const first = outputJson(await runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(3), continueOnFail: true }));
		expect(first[1]).toMatchObject({ sent: false, status: 'failed', key: phoneOf(1), httpCode: '400' });
		// The run completed the campaign (every key has an outcome): a run again sends none of it.
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(3) }));
		expect(statusesOf(again)).toEqual(['completed', 'completed', 'completed']);
		expect(again[1].note).toMatch(/completed by an earlier run, which sent each of its messages or said why not/);
		expect(gateway.sandbox.requests).toHaveLength(3);
		const over = outputJson(
			await runGateway(gateway.sandbox, campaign('spring', { startOver: '={{ $json.orderId === "order-1" }}' }), { items: phones(3) }),
		);
		expect(statusesOf(over)).toEqual(['completed', 'sent', 'completed']);
		expect(receivedBy().get(phoneOf(1))).toBe(1);
	});

	it('an interrupted run keeps each refusal exactly: a run again says refusedBefore for it', async () => {
		gateway.sandbox.failNext('messages', 1, 'undeliverable', { skip: 1 });
		gateway.sandbox.setLatency(20);
		const controller = new AbortController();
		const watch = setInterval(() => gateway.sandbox.requests.length >= 8 && controller.abort(), 2);
		await rejectionOf(
			runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(40), continueOnFail: true, abortSignal: controller.signal }),
		).finally(() => clearInterval(watch));
		await new Promise((resolve) => setTimeout(resolve, 100));
		gateway.sandbox.setLatency(0);
		const refusedTo = (gateway.sandbox.requests.find((request) => request.status === 400)?.body as { to: string }).to;
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(40) }));
		const refused = again.find((json) => json.key === refusedTo) as IDataObject;
		expect(refused.status).toBe('refusedBefore');
		expect(refused.note).toMatch(/a run again does not repeat a refusal. To send it again, turn on Start Over for this item/);
		expect(Math.max(...receivedBy().values())).toBe(1);
	});

	it('a refusal that stops the run (the API key, a locked account, a paused template) frees what was not sent: a run again sends it', async () => {
		gateway.sandbox.failNext('messages', 1, 'key-refused', { skip: 2 });
		const first = outputJson(await runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(6), continueOnFail: true }));
		expect(first.filter((json) => json.sent === true)).toHaveLength(2);
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(6) }));
		expect(statusesOf(again)).toEqual(['alreadySent', 'alreadySent', 'sent', 'sent', 'sent', 'sent']);
		expect(Math.max(...receivedBy().values())).toBe(1);
	});

	it('an answer of unknown outcome leaves the key claimed: a run again after a Stop says maybeSent for it, alreadySent for the rest', async () => {
		gateway.sandbox.failNext('messages', 1, '504-after-accept', { skip: 1 });
		gateway.sandbox.setLatency(30);
		const controller = new AbortController();
		const watch = setInterval(() => gateway.sandbox.requests.length >= 10 && controller.abort(), 2);
		await rejectionOf(
			runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(40), continueOnFail: true, abortSignal: controller.signal }),
		).finally(() => clearInterval(watch));
		await new Promise((resolve) => setTimeout(resolve, 100));
		gateway.sandbox.setLatency(0);
		const unknownTo = (gateway.sandbox.requests.find((request) => request.status === 504)?.body as { to: string }).to;
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(40) }));
		const byKey = new Map(again.map((json) => [json.key, json.status]));
		expect(byKey.get(unknownTo)).toBe('maybeSent');
		expect(again.find((json) => json.key === unknownTo)?.note).toMatch(/may have been sent by an earlier run that stopped mid-send/);
		expect(Math.max(...receivedBy().values())).toBe(1);
		for (const json of again) expect(['alreadySent', 'maybeSent', 'sent']).toContain(json.status);
	});

	it('a run stopped mid-send, then run again: every recipient once, the window flagged, the count in the log and in the custom data n8n keeps', async () => {
		gateway.sandbox.setLatency(100);
		const controller = new AbortController();
		const watch = setInterval(() => gateway.sandbox.requests.length >= 30 && controller.abort(), 2);
		const stopped = await rejectionOf(runGateway(gateway.sandbox, campaign('spring'), { items: phones(200), abortSignal: controller.signal })).finally(() =>
			clearInterval(watch),
		);
		expect(stopped.message).toMatch(/^The execution was canceled: \d+ of 200 items were sent$/);
		const sentCount = Number(/(\d+) of 200/.exec(stopped.message)?.[1]);
		expect(getLogs()).toContainEqual(expect.stringContaining(`info Messaging Gateway: The execution was canceled: ${sentCount} of 200 items were sent`));
		// n8n 2.0's execution context has no custom data (npm run test:compat): nothing is kept there.
		const keepsCustomData = 'customData' in ExecuteContext.prototype;
		expect((stopped as { customData?: Record<string, string> }).customData).toEqual(keepsCustomData ? { messagesSent: `${sentCount} of 200` } : {});
		await new Promise((resolve) => setTimeout(resolve, 300));

		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(200) }));
		const received = receivedBy();
		expect(Math.max(...received.values())).toBe(1);
		// Only requests in flight at the stop (Parallel Requests, 20) can be of unknown outcome.
		expect(again.filter((json) => json.status === 'maybeSent').length).toBeLessThanOrEqual(20);
		again.forEach((json, i) => expect(received.has(phoneOf(i)) || json.status === 'maybeSent').toBe(true));
	});

	it("n8n's Retry On Fail: the second try sends only what the first did not", async () => {
		gateway.sandbox.failNext('messages', 1, '429', { skip: 2, retryAfterSeconds: 600 });
		const { output, tries } = await runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), {
			items: phones(6),
			retryOnFail: { maxTries: 2 },
		});
		expect(tries).toBe(2);
		expect(output[0].map((item) => item.json.status)).toEqual(['alreadySent', 'alreadySent', 'sent', 'sent', 'sent', 'sent']);
		expect([...receivedBy().values()]).toEqual([1, 1, 1, 1, 1, 1]);
	});

	it('Start Over per item: only the items it is on for are sent again, and are answered alreadySent later', async () => {
		await runGateway(gateway.sandbox, campaign('spring'), { items: phones(4) });
		const over = outputJson(
			await runGateway(gateway.sandbox, campaign('spring', { startOver: '={{ $json.orderId === "order-1" }}' }), { items: phones(4) }),
		);
		expect(statusesOf(over)).toEqual(['alreadySent', 'sent', 'alreadySent', 'alreadySent']);
		expect([...receivedBy().values()]).toEqual([1, 2, 1, 1]);
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(4) }));
		expect(statusesOf(again)).toEqual(['alreadySent', 'alreadySent', 'alreadySent', 'alreadySent']);
	});

	it('two executions of one campaign at the same time: the second waits for the first, then sends nothing twice', async () => {
		gateway.sandbox.setLatency(20);
		const runs = await Promise.all([
			runGateway(gateway.sandbox, campaign('spring'), { items: phones(60) }),
			runGateway(gateway.sandbox, campaign('spring'), { items: phones(60) }),
		]);
		const statuses = runs.map((run) => count(statusesOf(outputJson(run))));
		expect(statuses).toContainEqual({ sent: 60 });
		expect(statuses).toContainEqual({ alreadySent: 60 });
		expect(receivedBy().size).toBe(60);
		expect(Math.max(...receivedBy().values())).toBe(1);
	});

	it('overlapping executions with a Message Key (one event each) both send, none twice', async () => {
		gateway.sandbox.setLatency(50);
		const event = campaign('orders', { messageKey: '={{ $json.orderId }}', input: 'someMessages' });
		const runs = await Promise.all([0, 1, 2, 0].map((i) => runGateway(gateway.sandbox, event, { items: phones(1, i) })));
		expect(runs.map((run) => outputJson(run)[0].status).sort()).toEqual(['alreadySent', 'sent', 'sent', 'sent']);
		expect([...receivedBy().values()]).toEqual([1, 1, 1]);
	});

	it('a run without a campaign item takes no lock: it sends while a campaign runs', async () => {
		gateway.sandbox.setLatency(20);
		const first = runGateway(gateway.sandbox, campaign('spring'), { items: phones(40) });
		while (gateway.sandbox.requests.length === 0) await new Promise((resolve) => setTimeout(resolve, 2));
		const plain = outputJson(await runGateway(gateway.sandbox, sendText(), { items: phones(2, 100) }));
		expect(plain.every((json) => typeof json.messageId === 'string')).toBe(true);
		await first;
	});
});

describe('nothing stranded: what was not sent of a message leaves its key free', () => {
	it('a media upload of unknown outcome (500): the message never left, so a run again sends it', async () => {
		gateway.sandbox.failNext('medias', 1, '500');
		const image = {
			...campaign('pictures'),
			messageType: 'image',
			mediaSource: 'url',
			mediaUrl: `${gateway.sandbox.url}/__no_such_file.jpg`,
		};
		const first = outputJson(await runGateway(gateway.sandbox, image, { items: phones(1), continueOnFail: true }));
		expect(first[0]).toMatchObject({ sent: false, status: 'failed', campaign: 'pictures' });
		const again = outputJson(await runGateway(gateway.sandbox, campaign('pictures'), { items: phones(1) }));
		expect(statusesOf(again)).toEqual(['sent']);
	});

	it('a template read by ID that failed: a run again sends the message', async () => {
		gateway.sandbox.failNext('templates.get', 1, '500');
		const byId = {
			...campaign('templates'),
			messageType: 'template',
			templateParameterSource: 'fromTemplate',
			templateId: '123',
			templateParameters: { mappingMode: 'defineBelow', value: {}, schema: [] },
		};
		const first = outputJson(await runGateway(gateway.sandbox, byId, { items: phones(1), continueOnFail: true }));
		expect(first[0]).toMatchObject({ sent: false, status: 'failed' });
		const again = outputJson(await runGateway(gateway.sandbox, campaign('templates'), { items: phones(1) }));
		expect(statusesOf(again)).toEqual(['sent']);
	});
});

describe('the record stays small', () => {
	it("a whole list is sealed part by part and completed: the row ends with four values, each write small", async () => {
		const items = phones(2000);
		const parameters = campaign('big', {}, { messagesPerSecond: 0 });
		await runGateway(gateway.sandbox, parameters, { items });
		expect(recordEntries()).toBeLessThanOrEqual(4);
		expect(deduplicationWrites.entries.bytes / 2000).toBeLessThan(4096); // bytes rewritten per message
		// About a write per 20 messages for the claims and the marks riding on them, and a few for seals' removals:
		// a mark is written once, not again by every write while it is pending.
		expect(deduplicationWrites.entries.count).toBeLessThanOrEqual(2000 / 20 + 2000 / 20 + 50);
		// Thirty more campaigns on the same node: the row grows by two values a campaign.
		for (let day = 1; day <= 30; day++) await runGateway(gateway.sandbox, campaign(`day-${day}`, {}, { messagesPerSecond: 0 }), { items: phones(20) });
		expect(recordEntries()).toBeLessThanOrEqual(4 + 30 * 3);
	});

	it('a run again after an interruption answers exactly from the sealed parts and the marks kept', async () => {
		gateway.sandbox.setLatency(5);
		const parameters = campaign('big', {}, { messagesPerSecond: 0 });
		const controller = new AbortController();
		const watch = setInterval(() => gateway.sandbox.requests.length >= 700 && controller.abort(), 2);
		await rejectionOf(runGateway(gateway.sandbox, parameters, { items: phones(1200), abortSignal: controller.signal })).finally(() => clearInterval(watch));
		await new Promise((resolve) => setTimeout(resolve, 200));
		gateway.sandbox.setLatency(0);
		const sentBefore = receivedBy();
		const again = outputJson(await runGateway(gateway.sandbox, parameters, { items: phones(1200) }));
		again.forEach((json, i) => {
			if (json.status === 'alreadySent') expect(sentBefore.get(phoneOf(i))).toBe(1);
			if (json.status === 'sent') expect(sentBefore.has(phoneOf(i))).toBe(false);
		});
		expect(Math.max(...receivedBy().values())).toBe(1);
		expect(again.filter((json) => json.status === 'maybeSent').length).toBeLessThanOrEqual(20);
	});
});

describe('when the record cannot be written', () => {
	it('a lock that cannot be taken sends nothing, each item says why', async () => {
		deduplicationFaults.failWriteAfter = 0;
		const output = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3), continueOnFail: true }));
		expect(output.map((json) => json.error)).toEqual(
			[0, 1, 2].map((i) => `Not sent: the campaign lock could not be taken: Connection terminated unexpectedly (injected by the harness) (item ${i})`),
		);
		expect(output.every((json) => json.campaign === 'spring' && json.sent === false)).toBe(true);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('a claim that cannot be written names the item and says nothing was sent', async () => {
		deduplicationFaults.failScope = 'n:';
		const output = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3), continueOnFail: true }));
		for (const json of output) expect(json.error).toMatch(/^Not sent: the campaign record could not be read from n8n's database: Connection terminated/);
		expect(gateway.sandbox.requests).toHaveLength(0);
		expect([...deduplicationRows().keys()]).toEqual([]); // the lock was released
	});

	it('last marks that cannot be written: the run says so in a hint; a run again flags them and sends none twice', async () => {
		// Written: the lock, its first beat, the campaign's mark, the question whether it was kept the other way and its
		// removal, the claims; not the marks at the end.
		deduplicationFaults.failWriteAfter = 6;
		const first = await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3) });
		expect(outputJson(first).every((json) => typeof json.messageId === 'string')).toBe(true);
		expect(first.logs).toContainEqual(expect.stringContaining("warn Messaging Gateway: The campaign record's last marks could not be written"));
		expect(first.hints).toContainEqual(expect.objectContaining({ type: 'warning', message: expect.stringMatching(/^The campaign record's last marks could not be written/) }));
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3) }));
		expect(statusesOf(again)).toEqual(['maybeSent', 'maybeSent', 'maybeSent']);
		expect(gateway.sandbox.requests).toHaveLength(3);
	});
});

describe('per item, as the expressions say', () => {
	it('bad input in the Campaign Name names the item and the field', async () => {
		const error = await rejectionOf(
			runGateway(gateway.sandbox, sendText({ campaign: { name: '={{ $json.name }}' } }), {
				items: jsonItems([{ phone: phoneOf(0), name: 'ok' }, { phone: phoneOf(1), name: { a: 1 } }]),
			}),
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Campaign Name (item 1): must be text');
	});

	it('a Campaign Name of spaces is refused, naming the field', async () => {
		const error = await rejectionOf(runGateway(gateway.sandbox, campaign('   '), { items: phones(1) }));
		expect(error.message).toMatch(/^Campaign Name \(item 0\): is only spaces/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('items of two campaigns in one run each keep their own record', async () => {
		const twoCampaigns = sendText({ campaign: { name: '={{ $json.orderId < "order-3" ? "A" : "B" }}' } });
		await runGateway(gateway.sandbox, twoCampaigns, { items: phones(6) });
		const again = outputJson(await runGateway(gateway.sandbox, twoCampaigns, { items: phones(6) }));
		expect(again.map((json) => [json.campaign, json.status])).toEqual([
			['A', 'alreadySent'],
			['A', 'alreadySent'],
			['A', 'alreadySent'],
			['B', 'alreadySent'],
			['B', 'alreadySent'],
			['B', 'alreadySent'],
		]);
	});
});

describe('the breaker: one refusal that every further message would get stops the run', () => {
	it('the API key refused at item 3 of 100: 3 requests, 97 items "not sent" (Continue On Fail)', async () => {
		gateway.sandbox.failNext('messages', 1, 'key-refused', { skip: 2 });
		const output = outputJson(
			await runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(100), continueOnFail: true }),
		);
		expect(gateway.sandbox.requests).toHaveLength(3);
		expect(output.filter((json) => json.sent === true)).toHaveLength(2);
		expect(output[3].error).toMatch(/^Not sent \(item 3\): the run stopped after item 2 because the gateway refused the API key/);
	});

	it('without Continue On Fail: one error that says the key was refused, and how many were sent and not sent', async () => {
		gateway.sandbox.failNext('messages', 1, 'key-refused', { skip: 2 });
		const error = await rejectionOf(runGateway(gateway.sandbox, campaign('spring', {}, { parallelRequests: 1 }), { items: phones(100) }));
		expect(error.message).toMatch(/\(2 of 100 items sent, 1 refused, 97 not sent: the gateway refused the API key \(HTTP 401\)\)$/);
		expect(error.description).toMatch(/2 of 100 items were sent before the run stopped at item 2/);
	});
});
