/**
 * Campaigns in queue mode: a worker running a campaign is killed (SIGKILL), or stopped (SIGTERM: n8n waits up to its
 * graceful shutdown timeout, 30 s, then exits), and the workflow is run again; the executions list's Retry of the
 * execution that died is tried through n8n's REST API (n8n marks it "crashed" and keeps no run data of it; its Retry
 * runs the whole workflow again). n8n's deduplication helpers (its `processed_data` table in
 * Postgres) hold the record. Every recipient must have received the message exactly once, except at most the unknown
 * window of docs/campaigns.md, whose items the later run flags "may have been sent" and does not send; none twice.
 * One execution of a workflow at a time sends a campaign (the campaign lock, docs/campaigns.md): two started at once on
 * two workers both end well, each recipient once; a run right after a worker died waits, sending nothing, until the
 * dead holder's lock lapses (30 s after its last sign of life), then sends the rest.
 */
import { setupCluster, util, type Cluster, type N8nProcess, type SandboxRequest, type Workflow } from './support/cluster';
import type { ExecutionRow } from './support/db';
import { itemsCode, webhookChain, webhookPath } from './support/workflows';

/* eslint-disable @typescript-eslint/no-var-requires */
const { startRole } = require('../../scripts/lib/cluster');
const n8n = require('../../scripts/lib/n8n');
/* eslint-enable @typescript-eslint/no-var-requires */

let cluster: Cluster;

const COUNT = 300;
/** The lock of a worker that died is taken over this long after its last sign of life (campaign/lock.ts). */
const STALE_MS = 30_000;
/**
 * docs/campaigns.md "The unknown window": 20 claimed ahead, Parallel Requests in flight, 20 read ahead, fewer than 20
 * marks pending and fewer than 20 in a write under way.
 */
const WINDOW = (parallel: number) => 80 + parallel;
/** Valid São Paulo mobile numbers, one series per workflow: 55 11 98<prefix><6 digits>. */
const phones = (prefix: string, count = COUNT) => Array.from({ length: count }, (_, i) => ({ phone: `551198${prefix}${String(i).padStart(6, '0')}` }));

function campaignWorkflow(name: string, prefix: string, parallel: number, count = COUNT): Workflow {
	const parameters = {
		resource: 'message',
		operation: 'send',
		messageType: 'text',
		recipientPhoneNumber: '={{ $json.phone }}',
		textBody: 'Black Friday',
		sending: { parallelRequests: parallel },
		campaign: { name },
	};
	return webhookChain(name, [{ name: 'Gateway', parameters }], itemsCode(phones(prefix, count)));
}

const workflows = {
	killed: campaignWorkflow('queue campaign killed', '1', 20),
	// 5 at a time at 1 s: 60 s, longer than the workers' graceful shutdown timeout of 30 s.
	terminated: campaignWorkflow('queue campaign terminated', '2', 5),
	retried: campaignWorkflow('queue campaign retried', '3', 20),
	// 100 texts at 1 s, 20 at a time: about 5 s of sending.
	twice: campaignWorkflow('queue campaign twice', '4', 20, 100),
	gone: campaignWorkflow('queue campaign gone', '5', 20),
};

beforeAll(async () => {
	cluster = await setupCluster('campaign', { redisDb: 3 });
	const imported = await cluster.importWorkflows(Object.values(workflows));
	(Object.keys(workflows) as Array<keyof typeof workflows>).forEach((key, i) => (workflows[key] = imported[i]));
	await cluster.start();
	for (const wf of Object.values(workflows)) await cluster.activate(wf);
	await cluster.sandbox.control.reset();
	await cluster.sandbox.control.latency(1000);
});

afterAll(async () => {
	await cluster?.sandbox.control.latency(0);
	await cluster?.teardown();
});

async function start(wf: Workflow): Promise<void> {
	const res = await fetch(`${cluster.webhookUrl}webhook/${webhookPath(wf.name)}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	await res.text();
	expect(res.status).toBe(200);
}

/** The execution of the workflow that is running now, and the worker running it. */
async function running(wf: Workflow): Promise<{ id: number; worker: N8nProcess }> {
	return await util.waitFor(
		`an execution of ${wf.name} running on a worker`,
		async () => {
			const rows = await cluster.db.executions(wf.id!);
			const row = rows.find((r) => r.status === 'running');
			const label = row && cluster.workersThatRan(row.id)[0];
			const worker = label && cluster.workers.find((w) => w.label === label);
			return row && worker ? { id: row.id, worker } : null;
		},
		{ timeoutMs: 60000, intervalMs: 200 },
	);
}

/** Accepted sends per recipient of this workflow's phones. */
async function receivedBy(prefix: string): Promise<Map<string, number>> {
	const requests = (await cluster.requests()) as SandboxRequest[];
	const counts = new Map<string, number>();
	for (const request of requests) {
		if (request.path !== '/api/Messages' || request.status !== 200) continue;
		const to = (request.body as { to: string }).to;
		if (!to.startsWith(`551198${prefix}`)) continue;
		counts.set(to, (counts.get(to) ?? 0) + 1);
	}
	return counts;
}

/** The first execution of the workflow that `which` picks, once it has ended (n8n's status past running and new). */
async function endedExecution(wf: Workflow, what: string, which: (row: ExecutionRow) => boolean): Promise<ExecutionRow> {
	return await util.waitFor(
		what,
		async () => (await cluster.db.executions(wf.id!)).find((r) => which(r) && !['running', 'new'].includes(r.status)) ?? null,
		{ timeoutMs: 240000, intervalMs: 500 },
	);
}

/** Starts the workflow and waits for the new execution (after `lastBefore`) to end. */
async function runAgain(wf: Workflow) {
	const lastBefore = Math.max(0, ...(await cluster.db.executions(wf.id!)).map((r) => r.id));
	await start(wf);
	// Only the new execution is waited for: the one that died may stay "running" in the database for a while.
	return await endedExecution(wf, `the run again of ${wf.name} to end`, (r) => r.id > lastBefore);
}

/**
 * A run right after a worker died: it waits for the dead holder's lock to lapse and sends nothing meanwhile (checked
 * until 20 s after the death, well inside the lock's 30 s), then sends the rest: each recipient once, at most the
 * window flagged.
 */
async function runAgainWhileLocked(wf: Workflow, prefix: string, diedAt: number, parallel: number) {
	// Redis may hand a job queued at once to the dead worker's last blocking read (n8n then fails it as stalled).
	await util.sleep(2000);
	const before = (await receivedBy(prefix)).size;
	const ending = runAgain(wf);
	await util.sleep(Math.max(0, diedAt + STALE_MS - 10_000 - Date.now()));
	expect((await receivedBy(prefix)).size).toBe(before);
	const row = await ending;
	return await checkCampaignRun(row.id, prefix, parallel);
}

/** Runs the workflow again until its run ends, then checks each recipient once or flagged. */
async function runAgainAndCheck(wf: Workflow, prefix: string, parallel: number) {
	const row = await runAgain(wf);
	return await checkCampaignRun(row.id, prefix, parallel);
}

/** The execution sent the campaign's rest: each recipient received it once, or is flagged (at most the window). */
async function checkCampaignRun(id: number, prefix: string, parallel: number) {
	const last = await cluster.execution(id);
	expect(last.status).toBe('success');
	const items = last.node('Gateway')!.items.map((item) => item.json);
	const flagged = items.filter((json) => json.status === 'maybeSent').map((json) => json.key as string);
	const received = await receivedBy(prefix);
	expect(Math.max(...received.values())).toBe(1);
	expect(flagged.length).toBeLessThanOrEqual(WINDOW(parallel));
	const byRecipient = new Map(items.map((json) => [json.key as string, json]));
	const unaccounted = phones(prefix)
		.filter(({ phone }) => !received.has(phone) && !flagged.includes(phone))
		.map(({ phone }) => ({ phone, status: byRecipient.get(phone)?.status, note: byRecipient.get(phone)?.note }));
	expect(unaccounted).toEqual([]);
	return { flagged: flagged.length, received: received.size, items };
}

async function restart(worker: N8nProcess): Promise<void> {
	await util.waitFor(`${worker.label} to exit`, async () => worker.proc?.exited === true, { timeoutMs: 60000, intervalMs: 200 });
	await startRole(worker);
}

test('a worker killed (SIGKILL) mid-campaign; a run again at once waits for its lock to lapse: every recipient once, at most the window flagged', async () => {
	await start(workflows.killed);
	const { worker } = await running(workflows.killed);
	await util.sleep(3500);
	process.kill(-worker.proc.child.pid, 'SIGKILL');
	const killedAt = Date.now();
	const sentBeforeKill = (await receivedBy('1')).size;
	expect(sentBeforeKill).toBeLessThan(COUNT);
	const restarting = restart(worker);
	const result = await runAgainWhileLocked(workflows.killed, '1', killedAt, 20);
	await restarting;
	console.log(`SIGKILL: ${sentBeforeKill} sent before the kill; a run again 2 s later waited, then sent the rest: ${result.flagged} flagged, ${result.received} recipients received`);
});

test('a worker stopped (SIGTERM) mid-campaign, past its graceful shutdown; a run again meanwhile waits: every recipient once, at most the window flagged', async () => {
	await start(workflows.terminated);
	const { worker } = await running(workflows.terminated);
	await util.sleep(3500);
	process.kill(-worker.proc.child.pid, 'SIGTERM');
	// The stopping worker goes on sending up to its graceful shutdown timeout: a run meanwhile (on the other worker)
	// waits for its lock, then sends the rest.
	await util.sleep(2000);
	const ending = runAgain(workflows.terminated);
	await util.waitFor(`${worker.label} to exit`, async () => worker.proc?.exited === true, { timeoutMs: 60000, intervalMs: 200 });
	const sentByTheStoppingWorker = (await receivedBy('2')).size;
	await restart(worker);
	const result = await checkCampaignRun((await ending).id, '2', 5);
	console.log(`SIGTERM: ${sentByTheStoppingWorker} sent by the stopping worker; the run again waited, then: ${result.flagged} flagged, ${result.received} recipients received`);
});

test("the executions list's Retry of the execution that died runs the workflow from its start: it sends only the rest", async () => {
	await start(workflows.retried);
	const { id, worker } = await running(workflows.retried);
	await util.sleep(3500);
	process.kill(-worker.proc.child.pid, 'SIGKILL');
	await restart(worker);
	const died = await endedExecution(workflows.retried, 'the killed execution to be marked ended', (r) => r.id === id);
	expect(died.status).toBe('crashed');
	await n8nLogin();
	await session!.request('POST', `/rest/executions/${id}/retry`, { loadWorkflow: false });
	// n8n keeps no run data of a crashed execution: its Retry runs the whole workflow again, as a new execution.
	const retry = await endedExecution(workflows.retried, 'the Retry to end', (r) => r.mode === 'retry');
	const result = await checkCampaignRun(retry.id, '3', 20);
	console.log(`Retry of the crashed execution ${id}: ${result.flagged} flagged, ${result.received} recipients received`);
	// A run again after it sends nothing more.
	const again = await runAgainAndCheck(workflows.retried, '3', 20);
	expect(again.items.filter((json) => typeof json.messageId === 'string')).toEqual([]);
});

test('two executions of one campaign started at the same time: both end well, one after the other, each recipient once', async () => {
	await Promise.all([start(workflows.twice), start(workflows.twice)]);
	const rows = await cluster.waitForExecutions(workflows.twice.id!, 2, { timeoutMs: 120000 });
	const executions = await Promise.all(rows.map(async (row) => await cluster.execution(row.id)));
	expect(executions.map((execution) => execution.status)).toEqual(['success', 'success']);
	const outputs = executions.map((execution) => execution.node('Gateway')!.items.map((item) => item.json));
	// The one that took the lock first sent the campaign; the other waited for it, then found every message done.
	const sentBy = outputs.map((items) => items.filter((json) => json.status === 'sent').length).sort((a, b) => a - b);
	expect(sentBy).toEqual([0, 100]);
	const waited = outputs.find((items) => !items.some((json) => json.status === 'sent'))!;
	// Said from the record's marks or, once the first run completed the campaign, from its completion.
	for (const json of waited) expect(['alreadySent', 'completed']).toContain(json.status);
	const received = await receivedBy('4');
	expect(received.size).toBe(100);
	expect(Math.max(...received.values())).toBe(1);
	console.log(`Two at once: ran on ${rows.map((row) => cluster.workersThatRan(row.id).join('+') || '?').join(' and ')}; both ended well, 100 recipients once`);
});

test("a worker killed that does not come back: n8n fails its execution, the Retry of it sends nothing; a run again sends the rest", async () => {
	await start(workflows.gone);
	const { id, worker } = await running(workflows.gone);
	await util.sleep(3500);
	process.kill(-worker.proc.child.pid, 'SIGKILL');
	const died = await endedExecution(workflows.gone, 'n8n to end the execution of the dead worker', (r) => r.id === id);
	const ended = await cluster.execution(id);
	const sentByTheDeadWorker = (await receivedBy('5')).size;
	await n8nLogin();
	let retryAnswer: string;
	try {
		retryAnswer = JSON.stringify(await session!.request('POST', `/rest/executions/${id}/retry`, { loadWorkflow: false })).slice(0, 300);
	} catch (error) {
		retryAnswer = `refused: ${(error as Error).message.slice(0, 300)}`;
	}
	await util.sleep(5000);
	const retries = (await cluster.db.executions(workflows.gone.id!)).filter((r) => r.mode === 'retry');
	console.log(
		`Worker gone: execution ${id} ${died.status} (${JSON.stringify(ended.data?.resultData?.error?.message ?? null)}); ` +
			`its Retry: ${retryAnswer}; retry executions ${JSON.stringify(retries.map((r) => r.status))}; ${sentByTheDeadWorker} sent before`,
	);
	// n8n 2.41.1 fails the Retry of a stalled execution at once: it sent nothing. A run again on the living worker sends the rest.
	expect(died.status).toBe('error');
	expect(retries.map((r) => r.status)).toEqual(['error']);
	expect((await receivedBy('5')).size).toBe(sentByTheDeadWorker);
	const result = await runAgainAndCheck(workflows.gone, '5', 20);
	console.log(`Worker gone, a run again: ${result.flagged} flagged, ${result.received} recipients received`);
	await restart(worker);
});

let session: { request(method: string, path: string, body?: unknown): Promise<any> } | undefined;
async function n8nLogin() {
	await n8n.ensureOwner(cluster.main);
	session = await n8n.login(cluster.main);
}
