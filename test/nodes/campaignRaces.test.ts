/**
 * The campaign lock's races (nodes/MessagingGateway/actions/campaign/lock.ts) at node level: a takeover's DELETE that
 * lands late, two takers of a dead holder's lock, a record write that lands after another execution took over, two
 * overlapping executions of one workflow with a Message Key (a Stop during the wait: test/nodes/campaignLock.test.ts).
 * Sends are counted at the sandbox (accepted requests by recipient). The harness's deduplication helpers behave as n8n's
 * (test/harness/deduplication.ts) and hold a statement back on demand (holdNextDelete, holdNextWrite).
 *
 * The timing is shortened, with a beat longer than the settle: with a beat shorter than the settle, the holder's beat
 * re-inserts its row within the taker's settle and hides the late delete. Assertions bound no real time from above
 * (beyond the run's wait): a busy machine's late timers shift the races, never what they must not do.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { clearDeduplicationRows, deduplicationFaults, deduplicationWrites, holdNextDelete, holdNextWrite } from '../harness';
import {
	jsonItems,
	lockRowBeatAt,
	lockStamp,
	outputJson,
	receivedBy as receivedByAt,
	runGateway,
	sendText,
	sleep,
	useSandbox,
	waitFor,
} from './support';

jest.mock('../../nodes/MessagingGateway/actions/campaign/lock', () => ({
	...jest.requireActual<object>('../../nodes/MessagingGateway/actions/campaign/lock'),
	LOCK_TIMING: { beatMs: 400, leaseMs: 1200, staleMs: 2000, settleMs: 240, graceMs: 600, pollMs: 50, waitMs: 15_000 },
}));

const STALE = 2000;
jest.setTimeout(30_000);
const trace = (...args: unknown[]) => process.env.RACE_TRACE && console.log(Date.now() % 100000, ...args);

const gateway = useSandbox();
beforeEach(() => clearDeduplicationRows());


/** Each test its own numbers (`first`), so that a late request of an earlier test's run cannot count. */
const phoneOf = (i: number) => `551196${String(6_000_000 + i).padStart(7, '0')}`;
const phones = (count: number, first: number) =>
	jsonItems(Array.from({ length: count }, (_, i) => ({ phone: phoneOf(first + i), orderId: `order-${first + i}` })));
const slowly: IDataObject = { parallelRequests: 1, messagesPerSecond: 0 };
const campaign = (extra: IDataObject = {}, sending: IDataObject = {}): INodeParameters =>
	sendText({ campaign: { name: 'races', ...extra }, sending } as INodeParameters);
/** A workflow started by a webhook that sends one message per event, keyed by its order. */
const perEvent = (sending: IDataObject = {}) => campaign({ input: 'someMessages', messageKey: '={{ $json.orderId }}' }, sending);

const receivedBy = () => receivedByAt(gateway.sandbox);

const twice = () => [...receivedBy()].filter(([, n]) => n > 1).map(([to]) => to);
const accepted = () => [...receivedBy().values()].reduce((all, n) => all + n, 0);

/** Until `count` more messages were accepted than when it was called. */
async function acceptedMore(count: number): Promise<void> {
	const before = accepted();
	await waitFor(() => accepted() >= before + count);
}

/**
 * After the races, a run again of the whole list: nothing is sent twice, and every recipient got its message or is
 * flagged `maybeSent`, by this run or by the earlier run that completed the campaign (a completed campaign answers
 * `completed` for every key after that: docs/campaigns.md).
 */
async function runAgainSendsTheRest(count: number, first: number, parameters: INodeParameters, earlier: IDataObject[][]): Promise<void> {
	const again = outputJson(await runGateway(gateway.sandbox, parameters, { items: phones(count, first), continueOnFail: true }));
	expect(twice()).toEqual([]);
	const received = receivedBy();
	const flagged = (i: number) => again[i].status === 'maybeSent' || earlier.some((output) => output[i]?.status === 'maybeSent');
	const missing = again.filter((json, i) => !received.has(phoneOf(first + i)) && !flagged(i));
	expect(missing).toEqual([]);
}

describe('a takeover whose DELETE lands late', () => {
	it("B's delete of a dead holder's row lands after A took the lock over and sends: no recipient gets two messages", async () => {
		lockRowBeatAt(Date.now() - STALE - 500);
		gateway.sandbox.setLatency(20);
		const parameters = campaign({}, slowly);
		const lateDelete = holdNextDelete('');
		const runB = runGateway(gateway.sandbox, parameters, { items: phones(40, 0), continueOnFail: true });
		await lateDelete.reached;
		await sleep(600);
		const runA = runGateway(gateway.sandbox, parameters, { items: phones(40, 0), continueOnFail: true });
		await acceptedMore(5); // A took the lock over and sends
		lateDelete.release();
		expect(await lateDelete.landed).toBe(1); // A's row is gone: B takes the lock as if it were free
		const [outputB, outputA] = (await Promise.all([runB, runA])).map(outputJson);
		expect(twice()).toEqual([]);
		// Each item of each run was sent once, skipped, or not sent with an error: none is lost silently.
		for (const output of [outputA, outputB]) expect(output).toHaveLength(40);
		await runAgainSendsTheRest(40, 0, parameters, [outputA, outputB]);
	});

	it('the same with a third execution waiting: it may find the row absent the moment the late delete lands; none twice', async () => {
		lockRowBeatAt(Date.now() - STALE - 500);
		gateway.sandbox.setLatency(20);
		const parameters = campaign({}, { parallelRequests: 4, messagesPerSecond: 0 });
		const lateDelete = holdNextDelete('');
		const runB = runGateway(gateway.sandbox, parameters, { items: phones(60, 100), continueOnFail: true });
		await lateDelete.reached;
		await sleep(600);
		const runA = runGateway(gateway.sandbox, parameters, { items: phones(60, 100), continueOnFail: true });
		await acceptedMore(3);
		const runC = runGateway(gateway.sandbox, parameters, { items: phones(60, 100), continueOnFail: true });
		await sleep(100); // C waits for A
		lateDelete.release();
		await lateDelete.landed;
		const outputs = (await Promise.all([runA, runB, runC])).map(outputJson);
		expect(twice()).toEqual([]);
		await runAgainSendsTheRest(60, 100, parameters, outputs);
	});
});

describe("two takers of a dead holder's lock", () => {
	it.each([0, 15, 120, 300])('the second starts %i ms after the first: one sends, none twice', async (offset) => {
		const first = 200 + offset * 10;
		lockRowBeatAt(Date.now() - STALE - 500);
		gateway.sandbox.setLatency(10);
		const parameters = campaign({}, { parallelRequests: 4, messagesPerSecond: 0 });
		const runs = [runGateway(gateway.sandbox, parameters, { items: phones(30, first), continueOnFail: true })];
		await sleep(offset);
		runs.push(runGateway(gateway.sandbox, parameters, { items: phones(30, first), continueOnFail: true }));
		const outputs = (await Promise.all(runs)).map(outputJson);
		expect(twice()).toEqual([]);
		// The one that waited finds everything sent (alreadySent), or sends what the first left.
		const sent = outputs.map((output) => output.filter((json) => json.status === 'sent').length);
		expect(sent[0] + sent[1]).toBe(30);
		expect(receivedBy().size).toBe(30);
		expect(lockStamp()).toBeUndefined();
	});
});

describe('two executions that start at once on a free lock', () => {
	// n8n stores a take's largest value, `now - STALE`, when it creates the row: until its holder's first sign of life
	// lands, the row looks like a dead holder's to another execution (queue mode, two workers, reproduced in CI).
	it("the second reads the first's new row before the first's sign of life lands: it waits for the first, which sends every message", async () => {
		gateway.sandbox.setLatency(50); // A sends for longer than a beat (30 messages, 2 at a time)
		const parameters = campaign({}, { parallelRequests: 2, messagesPerSecond: 0 });
		const firstBeat = holdNextWrite(''); // the INSERT is not held; the holder's first beat is an UPDATE
		const runA = runGateway(gateway.sandbox, parameters, { items: phones(30, 700), continueOnFail: true });
		await firstBeat.reached;
		const writesBefore = deduplicationWrites.count;
		const runB = runGateway(gateway.sandbox, parameters, { items: phones(30, 700), continueOnFail: true });
		await waitFor(() => deduplicationWrites.count > writesBefore); // B's take read A's row, found it old, wrote
		firstBeat.release();
		const [outputA, outputB] = (await Promise.all([runA, runB])).map(outputJson);
		// Before: B deleted A's row and took the lock; A stopped sending half way, and B answered maybeSent for all.
		expect(outputA.map((json) => json.status)).toEqual(Array(30).fill('sent'));
		for (const json of outputB) expect(['alreadySent', 'completed']).toContain(json.status);
		expect(twice()).toEqual([]);
		expect(lockStamp()).toBeUndefined();
		expect(await firstBeat.landed).toBe(1); // on A's row: B did not delete it
	});
});

describe('a record write that lands after another execution took the lock over (a late write)', () => {
	// A write held until after the taker's first claims lands later than the lock allows for (docs/campaigns.md, "What
	// this rests on"): it can erase the taker's marks, and a run again then sends those messages a second time.
	it('released at the takeover (before the taker writes anything): none twice, a run again sends none twice', async () => {
		const first = 400;
		gateway.sandbox.setLatency(20);
		const parameters = perEvent({ parallelRequests: 1, messagesPerSecond: 0 });
		const runA = runGateway(gateway.sandbox, parameters, { items: phones(60, first), continueOnFail: true });
		await waitFor(() => lockStamp() !== undefined);
		await acceptedMore(3);
		trace('A sends');
		// A's next record write (an UPDATE of the Send node's row) is held after its read.
		const late = holdNextWrite('n:');
		await late.reached;
		trace('held', lockStamp());
		deduplicationFaults.failScope = ''; // A's signs of life fail from now on: it lapses at its lease, and beats no more
		const lastBeat = Date.now();
		await sleep(1600);
		expect(lockStamp()).toBeLessThanOrEqual(lastBeat);
		deduplicationFaults.failScope = undefined;
		const deletesBefore = deduplicationWrites.deletes;
		trace('B starts', lockStamp());
		const runB = runGateway(gateway.sandbox, parameters, { items: phones(60, first), continueOnFail: true });
		// B's takeover: its delete landed and its row is in; its first claim is still BEAT + SETTLE away. A's write lands now.
		await waitFor(() => deduplicationWrites.deletes > deletesBefore && lockStamp() !== undefined);
		trace('release', lockStamp());
		late.release();
		trace('landed', await late.landed);
		const [outputA, outputB] = (await Promise.all([runA, runB])).map(outputJson);
		expect(twice()).toEqual([]);
		expect(outputA.filter((json) => /campaign lock lapsed/.test(String(json.error))).length).toBeGreaterThan(0);
		expect(outputB.filter((json) => json.status === 'sent').length).toBeGreaterThan(0);
		await runAgainSendsTheRest(60, first, parameters, [outputA, outputB]);
		expect(twice()).toEqual([]);
	});
});

describe('two overlapping executions with a Message Key (a webhook workflow, one message per event)', () => {
	it('the second waits for the first, then sends: both send, none twice', async () => {
		gateway.sandbox.setLatency(150);
		const first = runGateway(gateway.sandbox, perEvent(), { items: phones(1, 600) });
		await waitFor(() => lockStamp() !== undefined);
		const started = Date.now();
		const second = runGateway(gateway.sandbox, perEvent(), { items: phones(1, 601) });
		const [one, two] = (await Promise.all([first, second])).map(outputJson);
		expect([one[0].status, two[0].status]).toEqual(['sent', 'sent']);
		expect(Date.now() - started).toBeGreaterThanOrEqual(100); // it waited for the first one's send
		expect([...receivedBy()].sort()).toEqual([
			[phoneOf(600), 1],
			[phoneOf(601), 1],
		]);
		expect(lockStamp()).toBeUndefined();
	});

	it('the same event delivered twice at once: sent once, the other says alreadySent', async () => {
		gateway.sandbox.setLatency(100);
		const outputs = (await Promise.all([1, 2].map(() => runGateway(gateway.sandbox, perEvent(), { items: phones(1, 610) })))).map(outputJson);
		expect(outputs.map((output) => output[0].status).sort()).toEqual(['alreadySent', 'sent']);
		expect([...receivedBy()]).toEqual([[phoneOf(610), 1]]);
	});

	it('five events at once: each sent once, in turn', async () => {
		gateway.sandbox.setLatency(50);
		const outputs = (await Promise.all([0, 1, 2, 3, 4].map((i) => runGateway(gateway.sandbox, perEvent(), { items: phones(1, 620 + i) })))).map(outputJson);
		expect(outputs.map((output) => output[0].status)).toEqual(Array(5).fill('sent'));
		expect([...receivedBy().values()]).toEqual(Array(5).fill(1));
	});
});
