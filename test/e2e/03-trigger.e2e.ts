/**
 * The trigger in a running n8n: published with the CLI while n8n is stopped, then n8n starts and registers the
 * webhook at the sandbox. Each sample notification of the spec is delivered with the registered headers and must
 * start an execution with the expected items; a delivery without the secret header starts none; deactivating the
 * workflow through n8n's REST API (owner login) removes the registration.
 */
import { listExecutions, getExecution, publicationOutbox } from './support/db';
import { n8n, sampleNotifications, setup, TRIGGER, util, type Env, type Workflow } from './support/env';

let env: Env;
let wf: Workflow;
let endpoint: string;

const triggerWorkflow: Workflow = {
	name: 'e2e trigger',
	nodes: [
		{
			name: 'Gateway Trigger',
			type: TRIGGER,
			typeVersion: 1,
			position: [0, 0],
			parameters: {
				events: ['messages', 'message_template_status_update'],
				metaVersion: 'LATEST',
				options: { statusUpdates: 'all' },
			},
		},
		{ name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
	],
	connections: { 'Gateway Trigger': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
};

beforeAll(async () => {
	env = await setup('trigger');
	[wf] = await env.importWorkflows([triggerWorkflow]);
	await env.cli(['publish:workflow', `--id=${wf.id}`]);
	await env.start();
	const webhookId = wf.nodes[0].webhookId;
	endpoint = `${env.inst.baseUrl}/webhook/${webhookId}/webhook`;
});

afterAll(async () => {
	await env?.teardown();
});

async function registeredWebhooks(): Promise<any[]> {
	return (await env.sandbox.control.state()).webhooks;
}

test('activation completes and registers the webhook at the gateway with a secret header', async () => {
	const outbox = await util.waitFor(
		'the publication outbox to finish',
		async () => {
			const rows = publicationOutbox(env.db).filter((r) => r.workflowId === wf.id);
			return rows.some((r) => r.status === 'completed' || r.status === 'failed') ? rows : null;
		},
		{ timeoutMs: 60000, intervalMs: 500 },
	);
	expect(outbox.map((r: any) => r.status)).toContain('completed');
	const [webhook] = await util.waitFor('the registration at the sandbox', async () => {
		const list = await registeredWebhooks();
		return list.length ? list : null;
	});
	expect(webhook.endpoint).toBe(endpoint);
	expect(webhook.types).toEqual(expect.arrayContaining(['messages', 'message_template_status_update']));
	// The node's own secret header: one header with a long random value.
	const values = Object.values(webhook.headers as Record<string, string>);
	expect(values.some((v) => v.length >= 32)).toBe(true);
	const creation = (await env.requests()).find((r) => r.method === 'POST' && r.path.startsWith('/api/Webhooks'))!;
	expect(creation.headers.apikey).toBe(env.sandbox.apiKey);
	expect(creation.headers.version).toBe('4.0');
});

/** What the trigger must output for a sample, derived from the sample itself. */
function expectedItems(body: any): Array<Record<string, unknown>> {
	const values = Array.isArray(body.entry)
		? body.entry.flatMap((e: any) => (e.changes ?? []).map((c: any) => c.value))
		: [body];
	const items: Array<Record<string, unknown>> = [];
	for (const v of values) {
		for (const m of v.messages ?? []) items.push({ event: 'message', messageId: m.id, from: m.from, type: m.type });
		for (const s of v.statuses ?? []) items.push({ event: 'status', messageId: s.id, status: s.status });
		if (v.message_template_id !== undefined) {
			items.push({ event: 'template_status', templateId: String(v.message_template_id), status: v.event });
		}
	}
	return items;
}

describe('each sample notification starts an execution with the expected items', () => {
	const samples = sampleNotifications();
	test.each(samples.map((s) => [s.file, s.body]))('%s', async (_file, body) => {
		const before = listExecutions(env.db, wf.id!).length;
		const results = await env.sandbox.control.deliver({ notification: body });
		expect(results).toHaveLength(1);
		expect(results[0].status).toBe(200);
		const row = await util.waitFor(
			'the execution',
			async () => {
				const rows = listExecutions(env.db, wf.id!);
				const last = rows[rows.length - 1];
				return rows.length > before && last.finished ? last : null;
			},
			{ timeoutMs: 30000, intervalMs: 300 },
		);
		const exec = getExecution(env.db, row.id);
		expect(exec.status).toBe('success');
		expect(exec.mode).toBe('webhook');
		const items = exec.node('Gateway Trigger')!.items.map((i) => i.json);
		const expected = expectedItems(body);
		expect(items).toHaveLength(expected.length);
		expected.forEach((e, i) => expect(items[i]).toMatchObject(e));
		// The next node got the same items.
		expect(exec.node('Received')!.items).toHaveLength(expected.length);
	});
});

test('a delivery without the secret header is refused and starts no execution', async () => {
	const [sample] = sampleNotifications().filter((s) => s.file.startsWith('incoming-text.value'));
	const before = listExecutions(env.db, wf.id!).length;
	const results = await env.sandbox.control.deliver({ notification: sample.body, omitCustomHeaders: true });
	expect(results).toHaveLength(1);
	expect(results[0].status).toBe(401);
	// A forged notification with a wrong secret as well.
	const [webhook] = await registeredWebhooks();
	const forged = Object.fromEntries(Object.keys(webhook.headers).map((k) => [k, 'x'.repeat(43)]));
	const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', ...forged }, body: JSON.stringify(sample.body) });
	expect(res.status).toBe(401);
	await util.sleep(2000);
	expect(listExecutions(env.db, wf.id!).length).toBe(before);
});

test('deactivating through the REST API (owner login) removes the registration', async () => {
	await n8n.ensureOwner(env.inst);
	const session = await n8n.login(env.inst);
	expect(await registeredWebhooks()).toHaveLength(1);
	await session.request('POST', `/rest/workflows/${wf.id}/deactivate`, {});
	await util.waitFor('the registration to be removed', async () => (await registeredWebhooks()).length === 0, { timeoutMs: 30000 });
	const del = (await env.requests()).find((r) => r.method === 'DELETE');
	expect(del?.path).toMatch(/^\/api\/Webhooks\//);
	expect(del?.headers.apikey).toBe(env.sandbox.apiKey);
	// n8n no longer serves the production webhook.
	const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
	expect(res.status).toBe(404);
});
