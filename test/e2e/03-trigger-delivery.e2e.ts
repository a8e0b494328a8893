/**
 * The trigger (typeVersion 1.1) in a running n8n, for what at-least-once delivery and a readable workflow file ask of
 * it: the same notification delivered twice (one after the other, at once, and after an n8n restart) starts one
 * execution; the gateway is answered with a JSON acknowledgement; another phone's notification starts nothing; the
 * workflow read back through REST and `export:workflow` holds no value accepted as the secret; mark-as-read on receipt.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { listExecutions, getExecution, publicationOutbox } from './support/db';
import { n8n, sampleNotifications, setup, TRIGGER, util, type Env, type Workflow } from './support/env';

let env: Env;
let wf: Workflow;
let endpoint: string;

const triggerWorkflow: Workflow = {
	name: 'e2e trigger delivery',
	nodes: [
		{
			name: 'Gateway Trigger',
			type: TRIGGER,
			typeVersion: 1.1,
			position: [0, 0],
			parameters: { events: ['messages'], metaVersion: 'LATEST', options: { markAsRead: true } },
		},
		{ name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
	],
	connections: { 'Gateway Trigger': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
};

const [textSample] = sampleNotifications().filter((s) => s.file === 'incoming-text.value.json');

/** The text sample with its own message id, so that each test has a message the trigger has not seen. */
function textMessage(id: string, phoneId?: string): any {
	const body = JSON.parse(JSON.stringify(textSample.body));
	body.messages[0].id = id;
	if (phoneId !== undefined) body.metadata.phone_number_id = phoneId;
	return body;
}

const executions = () => listExecutions(env.db, wf.id!);

/** Waits until every execution has finished and no new one has appeared for a while; returns them. */
async function settledExecutions(quietMs = 2500) {
	let last = -1;
	let stableSince = Date.now();
	for (;;) {
		const rows = executions();
		if (rows.length !== last) {
			last = rows.length;
			stableSince = Date.now();
		} else if (Date.now() - stableSince >= quietMs && rows.every((r) => r.status !== 'running' && r.status !== 'new')) {
			return rows;
		}
		await util.sleep(250);
	}
}

const messageIdsOf = (rows: Array<{ id: number }>) =>
	rows.flatMap((row) => getExecution(env.db, row.id).node('Gateway Trigger')!.items.map((i) => (i.json as any).messageId));

beforeAll(async () => {
	env = await setup('trigger-delivery');
	[wf] = await env.importWorkflows([triggerWorkflow]);
	await env.cli(['publish:workflow', `--id=${wf.id}`]);
	await env.start();
	endpoint = `${env.inst.baseUrl}/webhook/${wf.nodes[0].webhookId}/webhook`;
	await util.waitFor(
		'the publication outbox to finish',
		async () => publicationOutbox(env.db).some((r) => r.workflowId === wf.id && r.status === 'completed'),
		{ timeoutMs: 60000, intervalMs: 500 },
	);
	await util.waitFor('the registration at the sandbox', async () => (await env.sandbox.control.state()).webhooks.length === 1);
});

afterAll(async () => {
	await env?.teardown();
});

test('the same notification delivered twice starts one execution; both deliveries get the JSON acknowledgement', async () => {
	const body = textMessage('wamid.E2E.TWICE');
	const first = await env.sandbox.control.deliver({ notification: body });
	const second = await env.sandbox.control.deliver({ notification: body });
	expect([first[0].status, JSON.parse(first[0].body)]).toEqual([200, { received: true, items: 1, duplicates: 0 }]);
	expect([second[0].status, JSON.parse(second[0].body)]).toEqual([200, { received: true, items: 0, duplicates: 1 }]);
	const rows = await settledExecutions();
	expect(messageIdsOf(rows).filter((id) => id === 'wamid.E2E.TWICE')).toHaveLength(1);
});

test('two concurrent deliveries of one notification start one execution', async () => {
	const before = executions().length;
	const body = textMessage('wamid.E2E.CONCURRENT');
	const results = await Promise.all([1, 2, 3].map(() => env.sandbox.control.deliver({ notification: body })));
	expect(results.map((r: any) => r[0].status)).toEqual([200, 200, 200]);
	expect(results.map((r: any) => JSON.parse(r[0].body).items).sort()).toEqual([0, 0, 1]);
	const rows = (await settledExecutions()).slice(before);
	expect(messageIdsOf(rows)).toEqual(['wamid.E2E.CONCURRENT']);
});

test("another phone's notification is acknowledged and starts nothing", async () => {
	const before = executions().length;
	const [result] = await env.sandbox.control.deliver({ notification: textMessage('wamid.E2E.OTHERPHONE', '104857600000999') });
	expect([result.status, JSON.parse(result.body)]).toEqual([200, { received: true, items: 0, duplicates: 0 }]);
	expect((await settledExecutions()).length).toBe(before);
});

test('mark as read on receipt: one mark-as-read request per new incoming message, none for the duplicate', async () => {
	const reads = (await env.requests()).filter((r: any) => r.method === 'POST' && r.path === '/api/Messages');
	expect(reads.map((r: any) => r.body)).toEqual(
		['wamid.E2E.TWICE', 'wamid.E2E.CONCURRENT'].map((id) => ({ messaging_product: 'whatsapp', status: 'read', message_id: id })),
	);
	expect(reads.every((r: any) => r.status === 200 && r.headers.apikey === env.sandbox.apiKey)).toBe(true);
});

test('the workflow read back through REST and export:workflow holds no value accepted as the secret', async () => {
	await n8n.ensureOwner(env.inst);
	const session = await n8n.login(env.inst);
	const viaRest = await session.request('GET', `/rest/workflows/${wf.id}`);
	const exportFile = join(env.userFolder, 'export.json');
	await env.cli(['export:workflow', `--id=${wf.id}`, `--output=${exportFile}`]);
	const exported = JSON.parse(readFileSync(exportFile, 'utf8'));
	const exportedWorkflow = Array.isArray(exported) ? exported[0] : exported;
	// The trigger's static data is there (registration and duplicate guard), but no secret.
	expect(JSON.stringify(exportedWorkflow.staticData)).toContain('secretVerifier');
	// The duplicate guard's record was saved by n8n, as hashes: no message id.
	expect(JSON.stringify(exportedWorkflow.staticData)).toContain('seenEvents');
	expect(JSON.stringify(exportedWorkflow.staticData)).not.toContain('wamid.E2E');

	const [registration] = (await env.sandbox.control.state()).webhooks;
	const secretHeader = Object.keys(registration.headers).find((name) => name.toLowerCase() === 'x-gateway-webhook-secret')!;
	const secret = registration.headers[secretHeader];
	const everything = JSON.stringify([viaRest, exportedWorkflow]);
	expect(everything).not.toContain(secret);
	expect(everything).not.toContain(env.sandbox.apiKey);

	const values = new Set<string>();
	const collect = (value: unknown) => {
		if (typeof value === 'string') values.add(value);
		else if (Array.isArray(value)) value.forEach(collect);
		else if (value && typeof value === 'object') {
			for (const [key, entry] of Object.entries(value)) {
				values.add(key);
				collect(entry);
			}
		}
	};
	collect(viaRest.staticData);
	collect(exportedWorkflow.staticData);
	collect(exportedWorkflow.nodes);
	// Header values are printable ASCII: that covers every value a secret could be.
	const candidates = [...values].filter((v) => /^[\x20-\x7e]+$/.test(v));
	expect(candidates.length).toBeGreaterThan(3);

	const before = executions().length;
	const body = JSON.stringify(textMessage('wamid.E2E.FORGED'));
	for (const value of candidates) {
		const res = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', [secretHeader]: value }, body });
		expect([value, res.status]).toEqual([value, 401]);
	}
	expect((await settledExecutions(1500)).length).toBe(before);
	// The derived secret itself is accepted: the refusals above are about the values, not the request.
	const real = await fetch(endpoint, { method: 'POST', headers: { 'content-type': 'application/json', [secretHeader]: secret }, body });
	expect(real.status).toBe(200);
	expect(await real.json()).toEqual({ received: true, items: 1, duplicates: 0 });
});

test('after an n8n restart, a notification seen before still starts nothing', async () => {
	await settledExecutions();
	await env.stop();
	await env.start();
	const before = executions().length;
	const [again] = await util.waitFor('n8n to serve the webhook again', async () => {
		const result = await env.sandbox.control.deliver({ notification: textMessage('wamid.E2E.TWICE') });
		return result[0]?.status === 200 ? result : null;
	});
	expect(JSON.parse(again.body)).toEqual({ received: true, items: 0, duplicates: 1 });
	const [fresh] = await env.sandbox.control.deliver({ notification: textMessage('wamid.E2E.AFTER-RESTART') });
	expect(JSON.parse(fresh.body)).toEqual({ received: true, items: 1, duplicates: 0 });
	const rows = (await settledExecutions()).slice(before);
	expect(messageIdsOf(rows)).toEqual(['wamid.E2E.AFTER-RESTART']);
});
