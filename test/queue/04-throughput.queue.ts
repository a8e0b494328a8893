/**
 * Two queue-mode workers sending at once from one phone number (issue 37). The sandbox limits sending as the network
 * does (test/sandbox/throughput.ts): at most 80 accepted messages in any 1,000 ms, the excess answered HTTP 400 with
 * code 130429. Two executions of one 240-text workflow (default Sending options, On Error: Continue) are started
 * together, each on its own worker (each worker runs one execution at a time here, so that the two cannot land on
 * one), each with its own 240 recipients. Every recipient must get exactly one message; the refused answers and the
 * time against the bound (480 messages / 80 per second = 6 s) are printed.
 *
 * Before the send pipeline waits out 130429 (issue 37), each worker paces its own run at 80/s, the phone takes 80/s
 * in all, and about half of the messages end as error items: the "every recipient once" assertion below fails
 * today, by design. Nothing here is skipped or made conditional, so CI runs it whatever the pipeline does.
 */
import { setupCluster, type Cluster, type SandboxRequest, type Workflow } from './support/cluster';
import { webhookChain, webhookPath } from './support/workflows';

let cluster: Cluster;

const PER_EXECUTION = 240;
const PER_SECOND = 80;
/** Both executions' messages at the phone's limit. */
const BOUND_MS = ((2 * PER_EXECUTION) / PER_SECOND) * 1000;
/** Valid São Paulo mobile numbers, one series per execution: 55 11 98<series><6 digits>. */
const SERIES = ['5', '6'];
const phonesOf = (series: string) => Array.from({ length: PER_EXECUTION }, (_, i) => `551198${series}${String(i).padStart(6, '0')}`);

/** Webhook → Code (240 recipients of the series in the call's body) → Send, with no Sending options. */
const workflow: { wf: Workflow } = {
	wf: webhookChain(
		'queue two workers one phone',
		[
			{
				name: 'Gateway',
				parameters: { resource: 'message', operation: 'send', messageType: 'text', recipientPhoneNumber: '={{ $json.phone }}', textBody: 'Black Friday' },
				settings: { onError: 'continueRegularOutput' },
			},
		],
		`const series = String($input.first().json.body.series);
return Array.from({ length: ${PER_EXECUTION} }, (_, i) => ({ json: { phone: '551198' + series + String(i).padStart(6, '0') } }));`,
	),
};

beforeAll(async () => {
	cluster = await setupCluster('throughput', { redisDb: 4 });
	// One execution at a time per worker: two started together go to the two workers (n8n warns below 5; fine here).
	for (const worker of cluster.workers) worker.env.N8N_CONCURRENCY_PRODUCTION_LIMIT = '1';
	[workflow.wf] = await cluster.importWorkflows([workflow.wf]);
	await cluster.start();
	await cluster.activate(workflow.wf);
	await cluster.sandbox.control.reset();
});

afterAll(async () => {
	await cluster?.sandbox.control.throughput({});
	await cluster?.teardown();
});

async function start(series: string): Promise<void> {
	const res = await fetch(`${cluster.webhookUrl}webhook/${webhookPath(workflow.wf.name)}`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ series }),
	});
	await res.text();
	expect(res.status).toBe(200);
}

test(`two workers send at once on one phone allowed ${PER_SECOND}/s: every recipient gets exactly one message`, async () => {
	const set = await cluster.sandbox.control.throughput({ perSecond: PER_SECOND });
	expect(set.settings.perSecond).toBe(PER_SECOND);
	await Promise.all(SERIES.map((series) => start(series)));
	const rows = await cluster.waitForExecutions(workflow.wf.id!, 2, { timeoutMs: 240000 });
	const requests = ((await cluster.requests()) as SandboxRequest[]).filter((r) => r.path === '/api/Messages' && r.body?.to);

	// What the gateway saw, printed before any assertion so that a failing run still reports it.
	const accepted = requests.filter((r) => r.status === 200);
	const refused = requests.filter((r) => r.status !== 200);
	const refusedBy: Record<string, number> = {};
	for (const r of refused) {
		const key = `${r.status} ${r.responseBody?.error?.code ?? ''}`.trim();
		refusedBy[key] = (refusedBy[key] ?? 0) + 1;
	}
	const received = new Map<string, number>();
	for (const r of accepted) received.set(r.body.to, (received.get(r.body.to) ?? 0) + 1);
	const recipients = SERIES.flatMap(phonesOf);
	const messages = recipients.length;
	const times = requests.map((r) => Number(r.receivedAt));
	const spanMs = accepted.length ? Math.max(...accepted.map((r) => Number(r.receivedAt))) - Math.min(...times) : 0;
	const runs = await cluster.db.query('SELECT id, "startedAt", "stoppedAt" FROM execution_entity WHERE "workflowId" = $1', [workflow.wf.id]);
	const wallMs = Math.max(...runs.map((r) => new Date(r.stoppedAt).getTime())) - Math.min(...runs.map((r) => new Date(r.startedAt).getTime()));
	const executions = await Promise.all(rows.map(async (row) => await cluster.execution(row.id)));
	const errorItems = executions.flatMap((e) => e.node('Gateway')?.items ?? []).filter((item) => item.json.error !== undefined);
	const workers = rows.map((row) => cluster.workersThatRan(row.id));
	console.log(
		[
			`Two workers, one phone allowed ${PER_SECOND}/s, ${PER_EXECUTION} texts each, default Sending options (ran on ${workers.map((w) => w.join('+') || '?').join(' and ')}):`,
			`  accepted ${accepted.length} of ${messages}; recipients with one message ${[...received.values()].filter((n) => n === 1).length}, with none ${recipients.filter((to) => !received.has(to)).length}, with more than one ${[...received.values()].filter((n) => n > 1).length}`,
			`  error items ${errorItems.length}${errorItems.length ? ` (e.g. "${String(errorItems[0].json.error)}")` : ''}`,
			`  refused answers at the gateway ${refused.length} (${((refused.length / messages) * 100).toFixed(1)} % of the messages) ${JSON.stringify(refusedBy)}`,
			`  time: executions ${(wallMs / 1000).toFixed(2)} s, first send to last accepted ${(spanMs / 1000).toFixed(2)} s, against the bound ${(BOUND_MS / 1000).toFixed(2)} s (${(wallMs / BOUND_MS).toFixed(2)}x, ${(spanMs / BOUND_MS).toFixed(2)}x); targets: within 1.5x, refused under 10 %`,
		].join('\n'),
	);

	// Holds today: both executions ran, each on its own worker, and nothing was sent twice.
	expect(rows.map((row) => row.status)).toEqual(['success', 'success']);
	expect(workers.map((w) => w.length)).toEqual([1, 1]);
	expect(new Set(workers.flat()).size).toBe(2);
	expect(Math.max(0, ...received.values())).toBeLessThanOrEqual(1);
	// The limit was in force all along, and the sandbox counted what the requests show.
	const limits = await cluster.sandbox.control.throughput();
	expect(limits.settings.perSecond).toBe(PER_SECOND);
	expect(limits.counts).toMatchObject({ accepted: accepted.length, refusedThroughput: refusedBy['400 130429'] ?? 0 });

	// EXPECTED TO PASS ONLY AFTER THE SEND PIPELINE CHANGE OF ISSUE 37 (a 130429 is a wait, senders adapt): every
	// recipient got exactly one message. Fails today: each worker paces at 80/s, the phone takes 80/s in all, and about
	// half of the messages end as error items "(#130429) Rate limit hit" (measured 2026-11-28: 280 of 480 sent, 200
	// error items, 200 refused answers, 3.85 s against the 6 s bound). Counts, not lists, so a failure reads in a line.
	expect(recipients.filter((to) => received.get(to) !== 1).length).toBe(0);
	expect(errorItems.length).toBe(0);
});
