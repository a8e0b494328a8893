/**
 * Delivery tracking in a running n8n, against the sandbox sending the network's statuses after each send:
 * - the delivery report examples: a send records one data table row per message, the statuses workflow brings each
 *   row to its final status; a free-form message to a number outside the 24-hour window fails with 131047 and the
 *   fallback example sends the approved template once (a re-delivery of the failure sends nothing), noted on the row;
 * - a published trigger also listening in test mode ("Test this trigger"): one delivered message starts the
 *   production execution and the test one; a re-delivery to the production URL starts nothing.
 */
import { join } from 'node:path';

import { getExecution, listExecutions, query } from './support/db';
import { n8n, sampleNotifications, setup, TRIGGER, util, type Env, type Workflow } from './support/env';

let env: Env;
const examples: Record<string, Workflow> = {};
let listener: Workflow;
let session: { request(method: string, path: string, body?: unknown): Promise<any> };

/** A published trigger that keeps incoming messages only (the default), for the test-mode check. */
const listenerWorkflow: Workflow = {
	name: 'e2e trigger in test mode',
	nodes: [
		{ name: 'Gateway Trigger', type: TRIGGER, typeVersion: 1.1, position: [0, 0], parameters: { events: ['messages'] } },
		{ name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
	],
	connections: { 'Gateway Trigger': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
};

/** The ids of examples/delivery-report-send.json, delivery-report-statuses.json and window-fallback.json. */
const EXAMPLE_IDS = new Set(['mgExampleDlvSend', 'mgExampleDlvStat', 'mgExampleWinFbk1']);
/** The customers of the send example, as the gateway gets them. */
const IN_WINDOW = ['5511988887777', '5521977776666'];
const OUTSIDE_WINDOW = '5531966665555';

const [textSample] = sampleNotifications().filter((s) => s.file === 'incoming-text.value.json');

/** An incoming text from `from` with its own message id: the customer writes, which opens the 24-hour window. */
function incomingText(from: string, id: string): any {
	const body = JSON.parse(JSON.stringify(textSample.body));
	body.messages[0].id = id;
	body.messages[0].from = from;
	body.contacts[0].wa_id = from;
	return body;
}

const control = () => env.sandbox.control as typeof env.sandbox.control & { statuses(settings?: object): Promise<any> };

beforeAll(async () => {
	env = await setup('delivery-tracking');
	const files = n8n.readWorkflowFiles(join(__dirname, '..', '..', 'examples')) as Workflow[];
	const wanted = files.filter((wf) => EXAMPLE_IDS.has(String(wf.id)));
	expect(wanted).toHaveLength(EXAMPLE_IDS.size);
	const imported = await env.importWorkflows([...wanted, listenerWorkflow]);
	for (const wf of imported) examples[wf.name] = wf;
	listener = imported.find((wf) => wf.name === listenerWorkflow.name)!;
	for (const wf of [example('statuses'), example('fallback'), listener]) await env.cli(['publish:workflow', `--id=${wf.id}`]);
	await env.start();
	await util.waitFor(
		'the three triggers to register at the sandbox',
		async () => (await env.sandbox.control.state()).webhooks.length === 3,
		{ timeoutMs: 90000, intervalMs: 500 },
	);
	// The statuses a second apart: the send workflow records its rows before the first status arrives.
	await control().statuses({ enabled: true, delayMs: 1000 });
	await n8n.ensureOwner(env.inst);
	session = await n8n.login(env.inst);
});

/**
 * Runs a workflow from its manual trigger in the running n8n, as the editor's "Execute workflow" does: the Data table
 * node needs n8n's data table module, which `n8n execute` does not load.
 */
async function runInEditor(wf: Workflow) {
	const trigger = wf.nodes.find((node) => node.type === 'n8n-nodes-base.manualTrigger')!;
	const started = await session.request('POST', `/rest/workflows/${wf.id}/run`, { triggerToStartFrom: { name: trigger.name } });
	const executionId = Number(started.executionId);
	expect(executionId).toBeGreaterThan(0);
	await util.waitFor('the execution to finish', async () => getExecution(env.db, executionId).finished || getExecution(env.db, executionId).status === 'error', {
		timeoutMs: 60000,
		intervalMs: 300,
	});
	return getExecution(env.db, executionId);
}

afterAll(async () => {
	await env?.teardown();
});

function example(part: string): Workflow {
	const wf = Object.values(examples).find((w) => w.name.toLowerCase().includes(part));
	if (!wf) throw new Error(`No workflow named like "${part}"`);
	return wf;
}

function rows(): Array<Record<string, any>> {
	const [table] = query(env.db, "SELECT id FROM data_table WHERE name = 'Message delivery'");
	if (!table) return [];
	return query(env.db, `SELECT * FROM data_table_user_${String(table.id)} ORDER BY id`);
}

const sentMessages = async () => (await env.requests()).filter((r) => r.path === '/api/Messages' && r.body?.type);

describe('delivery report and 24-hour window fallback', () => {
	let recorded: Array<Record<string, any>>;

	test('a send records one row per message with its id, recipient, campaign and time', async () => {
		// Two customers wrote today; the third never did.
		for (const [i, from] of IN_WINDOW.entries()) {
			const results = await env.sandbox.control.deliver({ notification: incomingText(from, `wamid.E2EWROTE${i}`) });
			expect(results.every((r: any) => r.status === 200)).toBe(true);
		}
		const exec = await runInEditor(example('send and record'));
		if (exec.status !== 'success') throw new Error(`The send ended ${exec.status}: ${JSON.stringify(exec.error ?? exec.data?.resultData).slice(0, 1500)}`);
		const sent = exec.node('Send message')!.items.map((i) => i.json as Record<string, any>);
		expect(sent).toHaveLength(3);
		recorded = rows();
		expect(recorded).toHaveLength(3);
		expect(recorded.map((row) => [row.messageId, row.recipient, row.campaign])).toEqual(
			sent.map((item) => [item.messageId, item.recipient, 'order-follow-up']),
		);
		expect(recorded.map((row) => row.recipient)).toEqual([...IN_WINDOW, OUTSIDE_WINDOW]);
		for (const row of recorded) expect(Date.parse(row.sentAt)).toBeGreaterThan(Date.now() - 120_000);
	});

	test('each row reaches its final status: read inside the window, failed 131047 with the reason outside it', async () => {
		const final = await util.waitFor(
			'every row to reach its final status',
			async () => {
				const now = rows();
				return now.length === 3 && now.every((row) => row.status === 'read' || row.status === 'failed') ? now : null;
			},
			{ timeoutMs: 60000, intervalMs: 500 },
		);
		const byRecipient = Object.fromEntries(final.map((row: Record<string, any>) => [row.recipient, row]));
		for (const recipient of IN_WINDOW) expect(byRecipient[recipient]).toMatchObject({ status: 'read', errorCode: '' });
		expect(byRecipient[OUTSIDE_WINDOW]).toMatchObject({ status: 'failed', errorCode: '131047' });
		expect(byRecipient[OUTSIDE_WINDOW].reason).toMatch(/24 hours/);
		// What the sandbox sent: sent, delivered, read for the two, one failed status for the third.
		const delivered = (await control().statuses()).delivered as Array<{ messageId: string; status: string }>;
		const statusesOf = (messageId: string) => delivered.filter((d) => d.messageId === messageId).map((d) => d.status);
		expect(statusesOf(byRecipient[IN_WINDOW[0]].messageId)).toEqual(['sent', 'delivered', 'read']);
		expect(statusesOf(byRecipient[OUTSIDE_WINDOW].messageId)).toEqual(['failed']);
	});

	test('the failure outside the window gets the approved template once, noted on the row', async () => {
		const failed = () => rows().find((row) => row.recipient === OUTSIDE_WINDOW)!;
		const row = await util.waitFor('the fallback to be noted', async () => (failed().fallback === 'template sent' ? failed() : null), {
			timeoutMs: 60000,
			intervalMs: 500,
		});
		const templates = (await sentMessages()).filter((r) => r.body.type === 'template');
		expect(templates).toHaveLength(1);
		expect(templates[0].body).toMatchObject({ to: OUTSIDE_WINDOW, template: { name: 'hello_world', language: { code: 'en_US' } } });
		expect(row.fallbackMessageId).toBe(templates[0].responseBody.messages[0].id);

		// The network delivers the failure again: no second template.
		const again = {
			messaging_product: 'whatsapp',
			metadata: { display_phone_number: '5511900001111', phone_number_id: env.sandbox.phoneId },
			statuses: [
				{
					id: row.messageId,
					status: 'failed',
					timestamp: String(Math.floor(Date.now() / 1000)),
					recipient_id: OUTSIDE_WINDOW,
					errors: [{ code: 131047, title: 'Re-engagement message', message: 'Re-engagement message' }],
				},
			],
		};
		await env.sandbox.control.deliver({ notification: again });
		await util.sleep(4000);
		expect((await sentMessages()).filter((r) => r.body.type === 'template')).toHaveLength(1);
		// The template itself is not in the window rule: it was delivered and read.
		const delivered = (await control().statuses()).delivered as Array<{ messageId: string; status: string }>;
		expect(delivered.filter((d) => d.messageId === row.fallbackMessageId).map((d) => d.status)).toEqual(['sent', 'delivered', 'read']);
	});

	test('the statuses and fallback executions succeeded', async () => {
		for (const wf of [example('statuses'), example('fallback')]) {
			const runs = listExecutions(env.db, wf.id!);
			expect(runs.length).toBeGreaterThan(0);
			for (const run of runs) {
				const exec = getExecution(env.db, run.id);
				if (exec.status !== 'success') throw new Error(`${wf.name} execution ${run.id}: ${exec.status} ${JSON.stringify(exec.error ?? '').slice(0, 800)}`);
			}
		}
	});
});

describe('a published trigger listening in test mode', () => {
	test('one delivered message starts the production and the test execution; a re-delivery to production starts nothing', async () => {
		await control().statuses({ enabled: false });
		const started = await session.request('POST', `/rest/workflows/${listener.id}/run`, { triggerToStartFrom: { name: 'Gateway Trigger' } });
		expect(started).toMatchObject({ waitingForWebhook: true });
		const testHook = await util.waitFor(
			'the test URL to register at the sandbox',
			async () => ((await env.sandbox.control.state()).webhooks as any[]).find((w) => w.endpoint.includes('/webhook-test/')) ?? null,
			{ timeoutMs: 30000, intervalMs: 300 },
		);
		const before = listExecutions(env.db, listener.id!).length;
		const message = incomingText(IN_WINDOW[0], 'wamid.E2ETESTMODE1');
		const results = (await env.sandbox.control.deliver({ notification: message })) as Array<{ endpoint: string; status: number; body: string }>;
		const answerOf = (part: string) => JSON.parse(results.find((r) => r.endpoint.includes(part) && r.endpoint.includes(listener.nodes[0].webhookId))!.body);
		expect(answerOf('/webhook-test/')).toEqual({ received: true, items: 1, duplicates: 0 });
		expect(answerOf('/webhook/')).toEqual({ received: true, items: 1, duplicates: 0 });
		expect(testHook.endpoint).toContain(listener.nodes[0].webhookId);

		const runs = await util.waitFor(
			'the production and the test execution',
			async () => {
				const fresh = listExecutions(env.db, listener.id!).slice(before);
				return fresh.length >= 2 && fresh.every((r) => r.finished) ? fresh : null;
			},
			{ timeoutMs: 30000, intervalMs: 300 },
		);
		expect(runs.map((r: { id: number }) => getExecution(env.db, r.id).mode).sort()).toEqual(['manual', 'webhook']);
		for (const run of runs) {
			expect(getExecution(env.db, run.id).node('Gateway Trigger')!.items.map((i) => (i.json as any).messageId)).toEqual(['wamid.E2ETESTMODE1']);
		}

		// The same message again, to the production URL only.
		const production = ((await env.sandbox.control.state()).webhooks as any[]).find(
			(w) => w.endpoint.includes('/webhook/') && w.endpoint.includes(listener.nodes[0].webhookId),
		);
		const again = await fetch(production.endpoint, {
			method: 'POST',
			headers: { 'content-type': 'application/json', ...production.headers },
			body: JSON.stringify(message),
		});
		expect(await again.json()).toEqual({ received: true, items: 0, duplicates: 1 });
		await util.sleep(2500);
		expect(listExecutions(env.db, listener.id!).length).toBe(before + 2);
	});
});
