/**
 * Delivery tracking in a running n8n, against the sandbox sending the network's statuses after each send:
 * - the delivery report examples, published as `npm start` publishes them (one status consumer, failed statuses only):
 *   a status that comes before the data table exists creates it and succeeds; a send records one row per message;
 *   the failure of a free-form message outside the 24-hour window (131047) brings its row to failed with the reason
 *   and the hint, and gets the approved template once (a re-delivery of the failure sends nothing), noted on the row;
 *   the statuses not chosen start nothing; no column holds an empty text (nothing is null, never "");
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

/** The ids of examples/delivery-report-send.json and delivery-report-statuses.json. */
const EXAMPLE_IDS = new Set(['mgExampleDlvSend', 'mgExampleDlvStat']);
/** The customers of the send example, as the gateway gets them. */
const IN_WINDOW = ['5511988887777', '5521977776666'];
const OUTSIDE_WINDOW = '5531966665555';
/** A number that never wrote, sent to before the data table exists. */
const EARLY = '5541955554444';

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
	for (const wf of [example('statuses'), listener]) await env.cli(['publish:workflow', `--id=${wf.id}`]);
	await env.start();
	await util.waitFor(
		'the two triggers to register at the sandbox',
		async () => (await env.sandbox.control.state()).webhooks.length === 2,
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

describe('delivery report: the one status consumer, failed statuses only', () => {
	let recorded: Array<Record<string, any>>;

	test('a failure that comes before the data table exists creates the table and succeeds', async () => {
		expect(rows()).toEqual([]);
		// Something else sends a text to a number that never wrote: the network fails it (131047).
		const sent = await fetch(`${env.sandbox.url}/api/Messages`, {
			method: 'POST',
			headers: { apikey: env.sandbox.apiKey, version: '5.0', 'content-type': 'application/json' },
			body: JSON.stringify({ messaging_product: 'whatsapp', recipient_type: 'individual', to: EARLY, type: 'text', text: { body: 'Hi' } }),
		});
		expect(sent.status).toBe(200);
		const runs = await util.waitFor(
			'the status execution',
			async () => {
				const done = listExecutions(env.db, example('statuses').id!).filter((row) => !['new', 'running'].includes(row.status));
				return done.length > 0 ? done : null;
			},
			{ timeoutMs: 60000, intervalMs: 500 },
		);
		expect(runs.map((run: { id: number }) => getExecution(env.db, run.id).status)).toEqual(['success']);
		expect(query(env.db, "SELECT name FROM data_table WHERE name = 'Message delivery'")).toHaveLength(1);
		expect(rows()).toEqual([]);
	});

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

	test('the failure gets its status, code, reason and hint on the row; the statuses not chosen start nothing', async () => {
		const failed = await util.waitFor(
			'the failed row',
			async () => rows().find((row) => row.recipient === OUTSIDE_WINDOW && row.status === 'failed') ?? null,
			{ timeoutMs: 60000, intervalMs: 500 },
		);
		expect(failed).toMatchObject({ status: 'failed', statusRank: 4, errorCode: '131047' });
		expect(failed.reason).toMatch(/24 hours/);
		expect(failed.hint).toMatch(/template/i);
		// Wait for the in-window messages' statuses: sent, delivered and read reached the trigger and started nothing.
		const delivered = await util.waitFor(
			'the read statuses of the two messages in the window',
			async () => {
				const all = (await control().statuses()).delivered as Array<{ messageId: string; status: string; results: Array<{ endpoint: string; body: string }> }>;
				const reads = all.filter((d) => d.status === 'read' && recorded.some((row) => row.messageId === d.messageId));
				return reads.length === IN_WINDOW.length ? all : null;
			},
			{ timeoutMs: 60000, intervalMs: 500 },
		);
		const statusHook = example('statuses').nodes.find((node) => node.type === TRIGGER)!.webhookId;
		for (const recipient of IN_WINDOW) {
			const { messageId } = recorded.find((row) => row.recipient === recipient)!;
			const answers = delivered
				.filter((d: any) => d.messageId === messageId)
				.map((d: any) => [d.status, JSON.parse(d.results.find((r: any) => r.endpoint.includes(statusHook)).body)]);
			expect(answers).toEqual([
				['sent', { received: true, items: 0, duplicates: 0 }],
				['delivered', { received: true, items: 0, duplicates: 0 }],
				['read', { received: true, items: 0, duplicates: 0 }],
			]);
		}
		// The rows of the messages in the window keep their first status, and no column holds "" (nothing is null).
		const now = rows();
		for (const recipient of IN_WINDOW) expect(now.find((row) => row.recipient === recipient)).toMatchObject({ status: 'accepted', statusRank: 0, errorCode: null, reason: null, hint: null });
		for (const row of now) for (const [column, value] of Object.entries(row)) expect([column, value]).not.toEqual([column, '']);
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

	test('every execution of the status workflow succeeded, one per failed status', async () => {
		const events: string[] = [];
		for (const run of listExecutions(env.db, example('statuses').id!)) {
			const exec = getExecution(env.db, run.id);
			if (exec.status !== 'success') throw new Error(`execution ${run.id}: ${exec.status} ${JSON.stringify(exec.error ?? '').slice(0, 800)}`);
			for (const item of exec.node('Messaging Gateway Trigger')!.items) events.push(`${item.json.event} ${item.json.status ?? item.json.from}`);
		}
		// The early failure and the send's failure: the re-delivered failure was held back by the trigger's duplicate
		// guard, and the sent, delivered and read statuses (of the texts and of the template) are not chosen. The two
		// incoming messages of the customers who wrote reach every trigger for messages (the workflow skips them).
		expect(events.sort()).toEqual(['message 5511988887777', 'message 5521977776666', 'status failed', 'status failed']);
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
