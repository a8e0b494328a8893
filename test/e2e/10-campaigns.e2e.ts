/**
 * Campaigns in a real n8n: a 1,000-message campaign stopped through the REST API after 2 s, then run again. n8n's
 * real deduplication helpers (its `processed_data` table) hold the record; the sandbox must hold each recipient at
 * most once, and every recipient not received must be one the second run flagged "may have been sent" (aborted in
 * flight at the stop), at most Parallel Requests of them.
 */
import { listExecutions, getExecution, publicationOutbox, query } from './support/db';
import { ACTION, n8n, setup, util, type Env, type SandboxRequest, type Workflow } from './support/env';
import { itemsCode } from './support/workflows';

let env: Env;

beforeAll(async () => {
	env = await setup('campaigns');
});

afterAll(async () => {
	await env?.teardown();
});

const LATENCY_MS = 100;
const PARALLEL = 20;
const phones = Array.from({ length: 1000 }, (_, i) => ({ phone: `551198${String(8_000_000 + i).padStart(7, '0')}` }));

function campaignWorkflow(): Workflow {
	return {
		name: 'e2e campaign stopped and run again',
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: 'mg-e2e-campaign',
				parameters: { httpMethod: 'POST', path: 'mg-e2e-campaign', responseMode: 'onReceived', options: {} },
			},
			{ name: 'Input', type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0], parameters: { jsCode: itemsCode(phones) } },
			{
				name: 'Gateway',
				type: ACTION,
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'message',
					operation: 'send',
					messageType: 'text',
					recipientPhoneNumber: '={{ $json.phone }}',
					textBody: 'Oi',
					campaign: { name: 'e2e-black-friday' },
				},
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Input', type: 'main', index: 0 }]] },
			Input: { main: [[{ node: 'Gateway', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

test('a 1,000-message campaign stopped after 2 s, then run again: each recipient at most once, the rest flagged', async () => {
	const [imported] = await env.importWorkflows([campaignWorkflow()]);
	await env.cli(['publish:workflow', `--id=${imported.id}`]);
	await env.start();
	try {
		await util.waitFor(
			'the publication outbox to finish',
			async () => publicationOutbox(env.db).some((row) => row.workflowId === imported.id && row.status === 'completed'),
			{ timeoutMs: 60000, intervalMs: 500 },
		);
		await n8n.ensureOwner(env.inst);
		const session = await n8n.login(env.inst);
		await env.sandbox.control.reset();
		await env.sandbox.control.latency(LATENCY_MS);
		const start = async () => {
			const answer = await fetch(`${env.inst.baseUrl}/webhook/mg-e2e-campaign`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
			expect(answer.status).toBe(200);
		};

		await start();
		await util.sleep(2000);
		const [running] = listExecutions(env.db, imported.id!).filter((row) => row.status === 'running');
		expect(running).toBeDefined();
		await session.request('POST', `/rest/executions/${running.id}/stop`, {});
		await util.waitFor('the stopped execution to end', async () => getExecution(env.db, running.id).status !== 'running', {
			timeoutMs: 30000,
			intervalMs: 250,
		});
		expect(getExecution(env.db, running.id).status).toBe('canceled');
		const sentBeforeStop = ((await env.requests()) as SandboxRequest[]).filter((request) => request.path === '/api/Messages').length;
		expect(sentBeforeStop).toBeGreaterThan(50);
		expect(sentBeforeStop).toBeLessThan(1000);
		// n8n's record, in its own table: the Send node's row. The lock (the workflow-scope row) is released once the node
		// has written its last marks after the Stop; n8n marks the execution canceled before that.
		const contexts = () => (query(env.db, 'SELECT "context" FROM processed_data WHERE "workflowId" = ?', imported.id) as Array<{ context: string }>).map((row) => row.context);
		await util.waitFor('the campaign lock to be released', async () => (contexts().includes('') ? null : true), { timeoutMs: 10000, intervalMs: 250 });
		expect(contexts()).toEqual([expect.stringMatching(/^n:/)]);

		await start();
		await util.waitFor(
			'the second execution to end',
			async () => listExecutions(env.db, imported.id!).some((row) => row.id !== running.id && row.status !== 'running' && row.status !== 'new'),
			{ timeoutMs: 120000, intervalMs: 500 },
		);
		const second = listExecutions(env.db, imported.id!).find((row) => row.id !== running.id)!;
		const rerun = getExecution(env.db, second.id);
		expect(rerun.status).toBe('success');
		const items = rerun.node('Gateway')!.items.map((item) => item.json);
		expect(items).toHaveLength(1000);

		const messages = ((await env.requests()) as SandboxRequest[]).filter((request) => request.path === '/api/Messages');
		const received = new Map<string, number>();
		for (const request of messages) {
			if (request.status === 0) continue; // aborted by the stop before an answer: counted below as flagged
			const to = (request.body as { to: string }).to;
			received.set(to, (received.get(to) ?? 0) + 1);
		}
		expect(Math.max(...received.values())).toBe(1);
		const flagged = items.filter((json) => json.status === 'maybeSent').map((json) => json.to as string);
		expect(flagged.length).toBeLessThanOrEqual(PARALLEL);
		const alreadySent = items.filter((json) => json.status === 'alreadySent').length;
		const sentNow = items.filter((json) => typeof json.messageId === 'string').length;
		expect(alreadySent + sentNow + flagged.length).toBe(1000);
		// Every recipient received the message once, or was in flight at the stop and is flagged, never sent again.
		for (const { phone } of phones) expect(received.has(phone) || flagged.includes(phone)).toBe(true);
		for (const phone of flagged) expect(received.get(phone) ?? 0).toBeLessThanOrEqual(1);
		console.log(`campaign e2e: ${sentBeforeStop} requests before the stop, ${alreadySent} already sent, ${flagged.length} flagged, ${sentNow} sent by the run again`);
	} finally {
		await env.sandbox.control.latency(0);
		await env.stop();
	}
});
