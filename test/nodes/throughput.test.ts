/**
 * The network's throughput answers (issue 37): a message the network refused for the phone's throughput (400 with
 * 130429, or a gateway's 429) or for the pair rate of one recipient (400 with 131056) was not sent, so the run waits
 * and sends it again, slower, within the item's Timeout; the run's hint says how fast the phone took them. Against the
 * sandbox with its network limits on (test/sandbox/throughput.ts).
 */
import type { RecordedRequest } from '../sandbox';
import { outputJson, runGateway, sendText, useSandbox } from './support';

const gateway = useSandbox();

const phones = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { phone: `55119888${String(70000 + i)}` } }));

const recipientOf = (request: RecordedRequest) => (request.body as { to: string }).to;

/** Accepted sends by recipient. */
function acceptedBy(): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of gateway.sandbox.requests) {
		if (request.path === '/api/Messages' && request.status === 200) counts.set(recipientOf(request), (counts.get(recipientOf(request)) ?? 0) + 1);
	}
	return counts;
}

const fast = (extra: Record<string, unknown> = {}) => sendText({ sending: { messagesPerSecond: 1000, parallelRequests: 20, ...extra } });

describe("the phone's throughput (130429)", () => {
	it('30 messages at 1,000 per second to a phone that takes 10: every one sent once, after waits, and a hint that says the pace', async () => {
		gateway.sandbox.setThroughput({ perSecond: 10 });
		const result = await runGateway(gateway.sandbox, fast(), { items: phones(30) });
		const json = outputJson(result);
		expect(json).toHaveLength(30);
		expect(json.every((item) => typeof item.messageId === 'string')).toBe(true);
		expect(json.map((item) => item.to)).toEqual(phones(30).map((item) => item.json.phone));
		const accepted = acceptedBy();
		expect(accepted.size).toBe(30);
		expect(Math.max(...accepted.values())).toBe(1);
		const refused = gateway.sandbox.throughput.counts.refusedThroughput;
		expect(refused).toBeGreaterThan(0);
		const hint = result.hints.map((item) => item.message).join(' ');
		expect(hint).toMatch(new RegExp(`throughput limit answered ${refused} times? \\(code 130429 or HTTP 429\\)`));
		expect(hint).toMatch(/Set Sending > Messages per Second near that/);
	});

	it("a gateway that answers 429 with a Retry-After: the messages wait it out and go again, each sent once", async () => {
		gateway.sandbox.setThroughput({ perSecond: 10, mode: '429', retryAfterSeconds: 1 });
		const result = await runGateway(gateway.sandbox, fast(), { items: phones(15) });
		expect(outputJson(result).every((item) => typeof item.messageId === 'string')).toBe(true);
		expect(gateway.sandbox.requests.some((request) => request.status === 429)).toBe(true);
		expect([...acceptedBy().values()]).toEqual(Array(15).fill(1));
	});

	it('a message that cannot go again within its Timeout is not sent: its error says why and what to change, and the others go on (Continue On Fail)', async () => {
		gateway.sandbox.setThroughput({ perSecond: 2 });
		const items = phones(8);
		const result = await runGateway(gateway.sandbox, fast({ timeout: 1 }), { items, continueOnFail: true });
		const output = result.output[0];
		const failed = output.filter((item) => item.json.error !== undefined);
		expect(failed.length).toBeGreaterThan(0);
		expect(failed[0].json.error).toMatch(/^Not sent \(item \d+\): The phone number's message throughput was reached; the gateway refused it \d+ times? in [\d.]+ s, and its Timeout \(1 s\) ends before it may go again$/);
		expect(failed[0].json.description).toMatch(/Sending > Messages per Second .* Nothing was sent for this item\.$/);
		// A failed item's recipient got nothing; a sent item's got its message once.
		const accepted = acceptedBy();
		for (const item of output) {
			const phone = items[(item.pairedItem as { item: number }).item].json.phone;
			expect(accepted.get(phone) ?? 0).toBe(item.json.error === undefined ? 1 : 0);
		}
	});
});

describe('the pair rate of one recipient (131056)', () => {
	it('three messages to one recipient, one every 300 ms at most: each sent once, in item order, with the hint for Interval per Recipient', async () => {
		gateway.sandbox.setThroughput({ pairIntervalMs: 300 });
		const items = [1, 2, 3].map((n) => ({ json: { phone: '5511988870001', text: `${n}/3` } }));
		const result = await runGateway(gateway.sandbox, { ...fast(), textBody: '={{ $json.text }}' }, { items });
		expect(outputJson(result).every((item) => typeof item.messageId === 'string')).toBe(true);
		const accepted = gateway.sandbox.requests.filter((request) => request.status === 200);
		expect(accepted.map((request) => (request.body as { text: { body: string } }).text.body)).toEqual(['1/3', '2/3', '3/3']);
		expect(gateway.sandbox.throughput.counts.refusedPair).toBeGreaterThan(0);
		expect(result.hints.map((item) => item.message).join(' ')).toMatch(/messaged too often \(code 131056.*Sending > Interval per Recipient spaces them/);
	});

	it('with Interval per Recipient set to the network pair rate, nothing is refused and no hint is left', async () => {
		gateway.sandbox.setThroughput({ pairIntervalMs: 300 });
		const items = [1, 2, 3].map(() => ({ json: { phone: '5511988870002' } }));
		const result = await runGateway(gateway.sandbox, fast({ recipientIntervalMs: 350 }), { items });
		expect(outputJson(result).every((item) => typeof item.messageId === 'string')).toBe(true);
		expect(gateway.sandbox.throughput.counts.refusedPair).toBe(0);
		expect(result.hints).toEqual([]);
	});
});
