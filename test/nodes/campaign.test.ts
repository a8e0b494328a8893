/**
 * Campaigns (Message > Send with a Campaign Name): each message's key is claimed in n8n's deduplication record before
 * it leaves, marked sent when the gateway accepted it, released when the answer says it was not sent, and left
 * claimed when its outcome is unknown. A later execution of the workflow sends only what was not sent. Run against
 * the sandbox, with the harness's deduplication helpers (test/harness/deduplication.ts, n8n's semantics).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CLAIM_CHUNK } from '../../nodes/MessagingGateway/actions/campaigns/ledger';
import { clearDeduplicationRows, deduplicationFaults, deduplicationRows, deduplicationWrites, getLogs } from '../harness';
import { jsonItems, outputJson, rejectionOf, runGateway, sendText, useSandbox } from './support';

const gateway = useSandbox();
const HELD_ELSEWHERE = 'Not sent: another execution of this workflow is sending a campaign now (its last sign of life was under 30 s ago)';

async function waitFor(condition: () => boolean): Promise<void> {
	while (!condition()) await new Promise((resolve) => setTimeout(resolve, 2));
}
beforeEach(() => clearDeduplicationRows());

const phoneOf = (i: number) => `551198${String(8_000_000 + i).padStart(7, '0')}`;
const phones = (count: number) => jsonItems(Array.from({ length: count }, (_, i) => ({ phone: phoneOf(i), orderId: `order-${i}` })));
const campaign = (name: string, extra: IDataObject = {}): INodeParameters => sendText({ campaign: { name, ...extra } });

/** How many messages each recipient received at the sandbox: sends it accepted (a 504-after-accept was accepted too). */
function receivedBy(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of gateway.sandbox.requests) {
		if (request.route !== 'messages' || (request.status !== 200 && request.status !== 504)) continue;
		const to = (request.body as { to: string }).to;
		counts.set(to, (counts.get(to) ?? 0) + 1);
	}
	return counts;
}

describe('a campaign run', () => {
	it('sends each key once, and the output carries campaign and key; a run again sends nothing', async () => {
		const first = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(5) }));
		expect(first.map((json) => [json.campaign, json.key, json.to])).toEqual(
			Array.from({ length: 5 }, (_, i) => ['spring', phoneOf(i), phoneOf(i)]),
		);
		expect(first.every((json) => typeof json.messageId === 'string')).toBe(true);

		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(5) }));
		expect(gateway.sandbox.requests).toHaveLength(5);
		expect(again.map((json) => [json.sent, json.status, json.key])).toEqual(
			Array.from({ length: 5 }, (_, i) => [false, 'alreadySent', phoneOf(i)]),
		);
		expect(again[0].note).toBe('Not sent: already sent in this campaign.');
	});

	it('another campaign, or the same recipient under another Message Key, is sent', async () => {
		await runGateway(gateway.sandbox, campaign('spring'), { items: phones(2) });
		await runGateway(gateway.sandbox, campaign('summer'), { items: phones(2) });
		const byOrder = outputJson(await runGateway(gateway.sandbox, campaign('summer', { messageKey: '={{ $json.orderId }}' }), { items: phones(2) }));
		expect(byOrder.map((json) => json.key)).toEqual(['order-0', 'order-1']);
		expect([...receivedBy().values()]).toEqual([3, 3]);
	});

	it('a key twice in one run is sent once; the second item names the first', async () => {
		const items = jsonItems([{ phone: phoneOf(1) }, { phone: phoneOf(2) }, { phone: phoneOf(1) }]);
		const output = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items }));
		expect(output[2]).toMatchObject({ sent: false, status: 'sameKeyInRun', note: expect.stringContaining('item 0') });
		expect(receivedBy().get(phoneOf(1))).toBe(1);
	});

	it('refused messages (4xx) are released: a later run sends them', async () => {
		const items = phones(2);
		const template: INodeParameters = { ...campaign('spring'), messageType: 'template', templateName: 'no_such_template', templateLanguage: 'pt_BR' };
		const failed = outputJson(await runGateway(gateway.sandbox, template, { items, continueOnFail: true }));
		expect(failed[0].error).toMatch(/132001/);
		// Sent in parallel, the second item either met the same refusal or was stopped by the first's.
		expect(failed[1].error).toMatch(/132001|^Not sent \(item 1\)/);
		const resent = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items }));
		expect(resent.map((json) => [json.campaign, typeof json.messageId])).toEqual([['spring', 'string'], ['spring', 'string']]);
		expect([...receivedBy().values()]).toEqual([1, 1]);
	});

	it('an answer of unknown outcome leaves the key claimed: a later run does not send it and says it may have been sent', async () => {
		gateway.sandbox.failNext('messages', 1, '504-after-accept', { skip: 1 });
		const first = outputJson(await runGateway(gateway.sandbox, campaign('spring', {}), { items: phones(3), continueOnFail: true }));
		// The second request to arrive gets the 504: in parallel, not always item 1's.
		const unknown = first.findIndex((json) => /504/.test(String(json.error)));
		expect(first.filter((json) => json.error !== undefined)).toHaveLength(1);
		expect(unknown).toBeGreaterThanOrEqual(0);

		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3) }));
		expect(again.map((json) => json.status)).toEqual([0, 1, 2].map((i) => (i === unknown ? 'maybeSent' : 'alreadySent')));
		expect(again[unknown].note).toMatch(/may have been sent by an earlier run that stopped mid-send/);
		expect(gateway.sandbox.requests).toHaveLength(3);
		expect([...receivedBy().values()]).toEqual([1, 1, 1]);
	});

	it('a run stopped mid-send (n8n cancelled it), then run again: every recipient once, the window flagged', async () => {
		gateway.sandbox.setLatency(100);
		const controller = new AbortController();
		const watch = setInterval(() => gateway.sandbox.requests.length >= 30 && controller.abort(), 2);
		const stopped = await rejectionOf(
			runGateway(gateway.sandbox, campaign('spring', {}), { items: phones(200), abortSignal: controller.signal }),
		).finally(() => clearInterval(watch));
		expect(stopped.message).toMatch(/^The execution was canceled: \d+ of 200 items were sent$/);
		// n8n keeps no output of a canceled execution: the count goes to n8n's log.
		const sentCount = Number(/(\d+) of 200/.exec(stopped.message)?.[1]);
		expect(getLogs()).toContainEqual(expect.stringContaining(`info Messaging Gateway: the execution was canceled: ${sentCount} of 200 items were sent`));
		await new Promise((resolve) => setTimeout(resolve, 300));

		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(200) }));
		const received = receivedBy();
		expect(Math.max(...received.values())).toBe(1);
		const flagged = again.filter((json) => json.status === 'maybeSent');
		// Only requests in flight at the stop (Parallel Requests, 20) can be of unknown outcome.
		expect(flagged.length).toBeLessThanOrEqual(20);
		// Every recipient either received the message or is flagged (it was aborted in flight and may have arrived).
		for (let i = 0; i < 200; i++) {
			const json = again[i];
			expect(received.has(phoneOf(i)) || json.status === 'maybeSent').toBe(true);
		}
	});

	it('two executions of one campaign at the same time: one sends, the other is refused and sends nothing', async () => {
		gateway.sandbox.setLatency(20);
		const runs = await Promise.allSettled([
			runGateway(gateway.sandbox, campaign('spring'), { items: phones(60) }),
			runGateway(gateway.sandbox, campaign('spring'), { items: phones(60) }),
		]);
		const sent = runs.filter((run) => run.status === 'fulfilled');
		const refused = runs.filter((run): run is PromiseRejectedResult => run.status === 'rejected');
		expect(sent).toHaveLength(1);
		expect(refused).toHaveLength(1);
		expect((refused[0].reason as Error).message).toBe(HELD_ELSEWHERE);
		const received = receivedBy();
		expect(received.size).toBe(60);
		expect(Math.max(...received.values())).toBe(1);
	});

	it('with Continue On Fail, the refused execution gives one error item per campaign item, paired', async () => {
		gateway.sandbox.setLatency(20);
		const first = runGateway(gateway.sandbox, campaign('spring'), { items: phones(40) });
		await waitFor(() => gateway.sandbox.requests.length > 0);
		const second = await runGateway(gateway.sandbox, campaign('spring'), { items: phones(40), continueOnFail: true });
		expect(second.output[0].map((item) => [item.json.error, item.pairedItem])).toEqual(
			Array.from({ length: 40 }, (_, i) => [HELD_ELSEWHERE, { item: i }]),
		);
		await first;
		expect([...receivedBy().values()]).toEqual(Array(40).fill(1));
	});

	it('a second execution in the same process is refused too, also when it runs another campaign of the workflow', async () => {
		gateway.sandbox.setLatency(20);
		const first = runGateway(gateway.sandbox, campaign('spring'), { items: phones(40) });
		await waitFor(() => gateway.sandbox.requests.length > 0);
		const error = await rejectionOf(runGateway(gateway.sandbox, campaign('summer'), { items: phones(40) }));
		expect(error.message).toBe(HELD_ELSEWHERE);
		expect(error.description).toMatch(/its hold lapses 30 s after its last sign of life/);
		await first;
		// Once the first has ended, the hold is released: a run again sends the other campaign.
		await runGateway(gateway.sandbox, campaign('summer'), { items: phones(40) });
		expect([...receivedBy().values()]).toEqual(Array(40).fill(2));
	});

	it('a run without a campaign item takes no hold: it sends while a campaign runs', async () => {
		gateway.sandbox.setLatency(20);
		const first = runGateway(gateway.sandbox, campaign('spring'), { items: phones(40) });
		await waitFor(() => gateway.sandbox.requests.length > 0);
		const plain = outputJson(await runGateway(gateway.sandbox, sendText(), { items: phones(2) }));
		expect(plain.every((json) => typeof json.messageId === 'string')).toBe(true);
		await first;
	});

	it("n8n's Retry On Fail: the second try sends only what the first did not", async () => {
		gateway.sandbox.failNext('messages', 1, 'key-refused', { skip: 2 });
		const { output, tries } = await runGateway(gateway.sandbox, { ...campaign('spring'), sending: { parallelRequests: 1 } }, {
			items: phones(6),
			retryOnFail: { maxTries: 2 },
		});
		expect(tries).toBe(2);
		expect(output[0].map((item) => item.json.status ?? 'sent')).toEqual(['alreadySent', 'alreadySent', 'sent', 'sent', 'sent', 'sent']);
		expect([...receivedBy().values()]).toEqual([1, 1, 1, 1, 1, 1]);
	});

	it('Start Over forgets the input keys: they are sent again', async () => {
		await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3) });
		const over = outputJson(await runGateway(gateway.sandbox, campaign('spring', { startOver: true }), { items: phones(3) }));
		expect(over.every((json) => typeof json.messageId === 'string')).toBe(true);
		expect([...receivedBy().values()]).toEqual([2, 2, 2]);
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3) }));
		expect(again.map((json) => json.status)).toEqual(['alreadySent', 'alreadySent', 'alreadySent']);
	});

	it('writes the record in chunks to the node\'s own row: one write per chunk (its claims with the sent marks pending), two entries per sent key; the hold is released', async () => {
		await runGateway(gateway.sandbox, campaign('spring'), { items: phones(CLAIM_CHUNK * 3) });
		const rows = [...deduplicationRows()];
		expect(rows).toHaveLength(1);
		const [[key, row]] = rows;
		expect(key).toMatch(/\|n:/);
		expect(row.data).toHaveLength(CLAIM_CHUNK * 3 * 2);
		// 3 claim writes carry the marks; what is left is written at the end (at most once more alone): each write
		// rewrites the whole row, so the record's writes are its cost (the hold's writes are counted apart).
		expect(deduplicationWrites.entries.count).toBeLessThanOrEqual(5);
	});

	it('a hold that cannot be taken sends nothing', async () => {
		deduplicationFaults.failWriteAfter = 0;
		const output = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3), continueOnFail: true }));
		expect(output.map((json) => json.error)).toEqual(
			Array(3).fill("Not sent: the campaign's hold could not be taken: Connection terminated unexpectedly (injected by the harness)"),
		);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('a claim that cannot be written sends nothing of its items', async () => {
		deduplicationFaults.failScope = 'n:';
		const output = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3), continueOnFail: true }));
		expect(output.map((json) => json.error)).toEqual(Array(3).fill('Connection terminated unexpectedly (injected by the harness)'));
		expect(gateway.sandbox.requests).toHaveLength(0);
		expect([...deduplicationRows().keys()]).toEqual([]); // the hold was released
	});

	it('sent marks that cannot be written: the run succeeds with a warning, a later run flags them and sends none again', async () => {
		deduplicationFaults.failWriteAfter = 3; // the hold and its first beat, the claim are written; the sent marks at the end are not
		const first = await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3) });
		expect(outputJson(first).every((json) => typeof json.messageId === 'string')).toBe(true);
		expect(first.logs).toContainEqual(expect.stringContaining("warn Messaging Gateway: the campaign record's last marks could not be written"));
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(3) }));
		expect(again.map((json) => json.status)).toEqual(['maybeSent', 'maybeSent', 'maybeSent']);
		expect(gateway.sandbox.requests).toHaveLength(3);
	});

	it('bad input in the Campaign Name names the item and the field', async () => {
		const error = await rejectionOf(
			runGateway(gateway.sandbox, sendText({ campaign: { name: '={{ $json.name }}' } }), {
				items: jsonItems([{ phone: phoneOf(0), name: 'ok' }, { phone: phoneOf(1), name: { a: 1 } }]),
			}),
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe('Campaign Name (item 1): must be text');
	});
});

describe('the breaker: one refusal that every further message would get stops the run', () => {
	const oneAtATime = { sending: { parallelRequests: 1, messagesPerSecond: 0 } };

	it('the API key refused at item 3 of 100: 3 requests, 97 items "not sent" (Continue On Fail)', async () => {
		gateway.sandbox.failNext('messages', 100, 'key-refused', { skip: 2 });
		const output = outputJson(await runGateway(gateway.sandbox, sendText(oneAtATime), { items: phones(100), continueOnFail: true }));
		expect(gateway.sandbox.requests).toHaveLength(3);
		expect(output[2].error).toMatch(/401/);
		const notSent = output.slice(3);
		expect(notSent).toHaveLength(97);
		for (const [offset, json] of notSent.entries()) {
			expect(json.error).toBe(`Not sent (item ${offset + 3}): the run stopped after item 2 because the gateway refused the API key (HTTP 401)`);
		}
	});

	it('without Continue On Fail: one error that says the key was refused and how many were not sent', async () => {
		gateway.sandbox.failNext('messages', 100, 'key-refused', { skip: 2 });
		const error = await rejectionOf(runGateway(gateway.sandbox, sendText(oneAtATime), { items: phones(100) }));
		expect(gateway.sandbox.requests).toHaveLength(3);
		expect(error.message).toMatch(/\(97 items not sent: the gateway refused the API key \(HTTP 401\)\)$/);
		expect(error.description).toMatch(/^.*2 of 100 items were sent before the run stopped at item 2/);
	});

	it('a locked account (network code 131031) stops the run too, with the network\'s reason', async () => {
		gateway.sandbox.failNext('messages', 1, 'account-locked', { skip: 4 });
		const output = outputJson(await runGateway(gateway.sandbox, sendText(oneAtATime), { items: phones(20), continueOnFail: true }));
		expect(gateway.sandbox.requests).toHaveLength(5);
		expect(output[5].error).toBe('Not sent (item 5): the run stopped after item 4 because the business account is locked (code 131031)');
	});

	it('a paused template stops its own items only: the other template\'s items are still sent', async () => {
		const ids: Record<string, string> = {};
		for (const name of ['welcome_message', 'thank_you']) {
			const response = await fetch(`${gateway.sandbox.url}/api/Templates`, {
				method: 'POST',
				headers: { apikey: gateway.sandbox.apiKey, version: '5.0', 'content-type': 'application/json' },
				body: JSON.stringify({ name, language: 'en_US', category: 'UTILITY', components: [{ type: 'BODY', text: 'Hello!' }] }),
			});
			ids[name] = ((await response.json()) as { id: string }).id;
		}
		gateway.sandbox.setTemplateStatus(ids.thank_you, 'PAUSED');
		gateway.sandbox.requests.length = 0;
		const items = jsonItems(Array.from({ length: 10 }, (_, i) => ({ phone: phoneOf(i), template: i % 2 ? 'thank_you' : 'welcome_message' })));
		const parameters: INodeParameters = {
			resource: 'message',
			operation: 'send',
			messageType: 'template',
			recipientPhoneNumber: '={{ $json.phone }}',
			templateName: '={{ $json.template }}',
			templateLanguage: 'en_US',
			...oneAtATime,
		};
		const output = outputJson(await runGateway(gateway.sandbox, parameters, { items, continueOnFail: true }));
		const sentTemplates = gateway.sandbox.requests.map((request) => (request.body as { template: { name: string } }).template.name);
		expect(sentTemplates.filter((name) => name === 'welcome_message')).toHaveLength(5);
		expect(sentTemplates.filter((name) => name === 'thank_you')).toHaveLength(1);
		expect(output[1].error).toMatch(/132015/);
		for (const index of [3, 5, 7, 9]) {
			expect(output[index].error).toBe(
				`Not sent (item ${index}): the run stopped after item 1 because template thank_you (en_US): the template is paused because of its low quality (code 132015)`,
			);
		}
		expect([0, 2, 4, 6, 8].every((index) => typeof output[index].messageId === 'string')).toBe(true);
	});

	it('a campaign whose key was refused: the items not sent are released, and a run again sends them', async () => {
		gateway.sandbox.failNext('messages', 100, 'key-refused', { skip: 2 });
		await runGateway(gateway.sandbox, { ...campaign('spring'), ...oneAtATime }, { items: phones(10), continueOnFail: true });
		gateway.sandbox.reset();
		const again = outputJson(await runGateway(gateway.sandbox, campaign('spring'), { items: phones(10) }));
		expect(again.map((json) => json.status ?? 'sent')).toEqual(['alreadySent', 'alreadySent', ...Array(8).fill('sent')]);
	});
});
