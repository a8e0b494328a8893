/**
 * The campaign lock (nodes/MessagingGateway/actions/campaign/lock.ts): one execution of a workflow at a time writes
 * campaign records; another waits for it. Its timing is shortened here (beat 125 ms, lease 750 ms, stale 1250 ms,
 * waits up to 4 s) so that a dead holder's row goes stale within a test, with room for a busy machine's late timers;
 * the harness's deduplication helpers behave as n8n's (test/harness/deduplication.ts).
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { clearDeduplicationRows, deduplicationFaults, deduplicationRows } from '../harness';
import {
	jsonItems,
	LOCK_ROW,
	lockRowBeatAt,
	outputJson,
	receivedBy as receivedByAt,
	rejectionOf,
	runGateway,
	sendText,
	sleep,
	useSandbox,
	waitFor,
} from './support';

jest.mock('../../nodes/MessagingGateway/actions/campaign/lock', () => ({
	...jest.requireActual<object>('../../nodes/MessagingGateway/actions/campaign/lock'),
	LOCK_TIMING: { beatMs: 125, leaseMs: 750, staleMs: 1250, settleMs: 250, graceMs: 375, pollMs: 50, waitMs: 4000 },
}));

const gateway = useSandbox();
beforeEach(() => clearDeduplicationRows());

const HELD_ELSEWHERE = 'Not sent: another execution of this workflow held the campaign lock for the 4 s this run waited (item 0)';

const phoneOf = (i: number) => `551197${String(7_000_000 + i).padStart(7, '0')}`;
/** `count` phones from `first` on (a test whose numbers no earlier test's late requests used starts further on). */
const phones = (count: number, first = 0) => jsonItems(Array.from({ length: count }, (_, i) => ({ phone: phoneOf(first + i) })));
const campaign = (extra: IDataObject = {}): INodeParameters => sendText({ campaign: { name: 'spring' }, ...extra });

/**
 * Until this run holds the lock and 3 of its requests arrived (requests of an earlier test's cancelled run may
 * still arrive: they do not count).
 */
async function sendingStarted(): Promise<void> {
	await waitFor(() => deduplicationRows().has(LOCK_ROW));
	const before = gateway.sandbox.requests.length;
	await waitFor(() => gateway.sandbox.requests.length >= before + 3);
}

const receivedBy = () => receivedByAt(gateway.sandbox);

it('a lock whose holder died (no sign of life for longer than stale) is taken over: the run sends, then releases it', async () => {
	lockRowBeatAt(Date.now() - 1500);
	const output = outputJson(await runGateway(gateway.sandbox, campaign(), { items: phones(5) }));
	expect(output.every((json) => typeof json.messageId === 'string')).toBe(true);
	expect(deduplicationRows().has(LOCK_ROW)).toBe(false);
});

it('a lock with a recent sign of life: the run waits, and sends once the holder has released it', async () => {
	lockRowBeatAt(Date.now() - 100);
	setTimeout(() => (deduplicationRows() as Map<string, unknown>).delete(LOCK_ROW), 300); // the holder's run ends
	const started = Date.now();
	const output = outputJson(await runGateway(gateway.sandbox, campaign(), { items: phones(5) }));
	expect(Date.now() - started).toBeGreaterThanOrEqual(290);
	expect(output.every((json) => typeof json.messageId === 'string')).toBe(true);
});

it('a holder that dies while the run waits (its last sign of life just now): the waiting does not keep its lock alive; the run takes it over and sends', async () => {
	lockRowBeatAt(Date.now() - 100); // its worker dies: no more beats
	const output = outputJson(await runGateway(gateway.sandbox, campaign(), { items: phones(5, 300) }));
	expect(output.every((json) => typeof json.messageId === 'string')).toBe(true);
	expect(deduplicationRows().has(LOCK_ROW)).toBe(false);
});

it('a lock held for longer than the run waits: refused, nothing sent, the error says how long it waited', async () => {
	lockRowBeatAt(Date.now());
	const beat = setInterval(() => lockRowBeatAt(Date.now()), 100); // a holder alive all along
	try {
		const error = await rejectionOf(runGateway(gateway.sandbox, campaign(), { items: phones(5) }));
		expect(error.message).toBe(HELD_ELSEWHERE);
		expect(error.description).toMatch(/if its worker died, its lock lapses 1250 ms after its last sign of life/);
	} finally {
		clearInterval(beat);
	}
	expect(gateway.sandbox.requests).toHaveLength(0);
});

it('Stop ends the wait for the lock at once', async () => {
	lockRowBeatAt(Date.now() + 60_000);
	const controller = new AbortController();
	setTimeout(() => controller.abort(), 100);
	const started = Date.now();
	const error = await rejectionOf(runGateway(gateway.sandbox, campaign(), { items: phones(5), abortSignal: controller.signal }));
	expect(error.message).toMatch(/canceled/);
	expect(Date.now() - started).toBeLessThan(1500);
	expect(gateway.sandbox.requests).toHaveLength(0);
});

it('two executions that find the same stale lock at once: one takes it over, the other waits; each recipient once', async () => {
	lockRowBeatAt(Date.now() - 1500);
	gateway.sandbox.setLatency(20);
	const runs = await Promise.all([
		runGateway(gateway.sandbox, campaign(), { items: phones(30) }),
		runGateway(gateway.sandbox, campaign(), { items: phones(30) }),
	]);
	expect(runs.map((run) => outputJson(run).filter((json) => json.status === 'sent').length).sort()).toEqual([0, 30]);
	expect([...receivedBy().values()]).toEqual(Array(30).fill(1));
});

it('the lock is released after a run that stopped at an error, and after a cancelled run', async () => {
	gateway.sandbox.failNext('messages', 1, '500', { skip: 1 });
	await rejectionOf(runGateway(gateway.sandbox, campaign({ sending: { parallelRequests: 1 } }), { items: phones(5) }));
	expect(deduplicationRows().has(LOCK_ROW)).toBe(false);

	gateway.sandbox.setLatency(50);
	const controller = new AbortController();
	const cancelled = rejectionOf(runGateway(gateway.sandbox, campaign(), { items: phones(100), abortSignal: controller.signal }));
	await waitFor(() => gateway.sandbox.requests.length > 5);
	controller.abort();
	expect((await cancelled).message).toMatch(/^The execution was canceled/);
	expect(deduplicationRows().has(LOCK_ROW)).toBe(false);
});

it('signs of life that cannot be written: the run stops sending once the lease lapsed; a later run sends the rest, none twice', async () => {
	gateway.sandbox.setLatency(30);
	const parameters = campaign({ sending: { parallelRequests: 1, messagesPerSecond: 0 } });
	const run = runGateway(gateway.sandbox, parameters, { items: phones(60, 1000), continueOnFail: true });
	await sendingStarted();
	deduplicationFaults.failScope = ''; // the lock's row: beats fail from now on
	const output = outputJson(await run);
	deduplicationFaults.failScope = undefined;
	const sent = output.filter((json) => typeof json.messageId === 'string').length;
	const stopped = output.filter((json) => /^Not sent \(item \d+\): the run stopped sending because its campaign lock lapsed/.test(String(json.error)));
	expect(sent).toBeLessThan(40);
	expect(sent + stopped.length).toBe(60);
	expect(stopped[0].error).toMatch(/its sign of life could not be written to n8n's database for 750 ms$/);
	// The lapsed lock is not deleted (it may be another's by now): a run again waits until it is stale, then sends.
	await sleep(1300);
	const again = outputJson(await runGateway(gateway.sandbox, campaign(), { items: phones(60, 1000) }));
	const received = receivedBy();
	expect(Math.max(...received.values())).toBe(1);
	again.forEach((json, i) => expect(received.has(phoneOf(1000 + i)) || json.status === 'maybeSent').toBe(true));
});

it('a sign of life newer than its own (another execution took the lock over) stops the run at once', async () => {
	gateway.sandbox.setLatency(30);
	const parameters = campaign({ sending: { parallelRequests: 1, messagesPerSecond: 0 } });
	const run = runGateway(gateway.sandbox, parameters, { items: phones(60), continueOnFail: true });
	await sendingStarted();
	lockRowBeatAt(Date.now() + 60_000);
	const output = outputJson(await run);
	const stopped = output.filter((json) => /the run stopped sending because its campaign lock lapsed: another execution took the campaign lock over$/.test(String(json.error)));
	expect(stopped.length).toBeGreaterThan(10);
	// Its row is left to the other holder.
	expect(deduplicationRows().get(LOCK_ROW)?.data).toBeGreaterThan(Date.now());
});

it('a Remove Duplicates node of the workflow in scope Workflow holds the row in another mode: the error says to give it scope Node', async () => {
	(deduplicationRows() as Map<string, unknown>).set(LOCK_ROW, { mode: 'entries', data: [] });
	const error = await rejectionOf(runGateway(gateway.sandbox, campaign(), { items: phones(3) }));
	expect(error.message).toBe("Not sent: the workflow's deduplication history in scope Workflow belongs to another node (n8n: incompatible setting) (item 0)");
	expect(error.description).toMatch(/Set the Scope of the Remove Duplicates node of this workflow to Node/);
	expect(gateway.sandbox.requests).toHaveLength(0);
});
