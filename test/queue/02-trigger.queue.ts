/**
 * The trigger in queue mode: main, two workers and two webhook processors sharing Postgres and Redis. The main
 * activates the workflow (REST, as the owner) and registers the webhook at the sandbox; the gateway's deliveries go
 * to the webhook processors (N8N_WEBHOOK_URL is the first one; a load balancer would spread them, so some checks post
 * to the second one directly with the registered headers) and the executions run on the workers.
 */
import { randomBytes } from 'node:crypto';

import { setupCluster, TRIGGER, util, type Cluster, type SandboxRequest, type Workflow } from './support/cluster';

let cluster: Cluster;
let wf: Workflow;
/** The registered address, at the first webhook processor, and the same path at the second. */
let endpoint: string;
let secondEndpoint: string;

/**
 * The burst: 200 deliveries, 40 in flight at a time (20 at each webhook processor), as a gateway's delivery workers
 * would send them. 200 at once exhausted the processors' database pools on a loaded 2-core machine (connection
 * timeouts after 60 s in n8n itself): n8n then fails the request before the trigger runs, or fails to start the
 * execution after the trigger answered (docs/trigger.md, the limits of static data), which no node can prevent.
 */
const DELIVERIES = 200;
const IN_FLIGHT = 40;

const triggerWorkflow: Workflow = {
	name: 'queue trigger',
	nodes: [
		{ name: 'Gateway Trigger', type: TRIGGER, typeVersion: 1, position: [0, 0], parameters: { events: ['messages'] } },
		{ name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
	],
	connections: { 'Gateway Trigger': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
};

beforeAll(async () => {
	cluster = await setupCluster('trigger', { webhookProcessors: 2, redisDb: 2 });
	[wf] = await cluster.importWorkflows([triggerWorkflow]);
	await cluster.start();
	const path = `webhook/${wf.nodes[0].webhookId}/webhook`;
	endpoint = `${cluster.webhookUrl}${path}`;
	secondEndpoint = `${cluster.webhooks[1].baseUrl}/${path}`;
});

afterAll(async () => {
	await cluster?.teardown();
});

/** An incoming text message for the sandbox's phone, with a fresh message id unless given. */
function incomingText(text: string, id = `wamid.QUEUE${randomBytes(10).toString('hex').toUpperCase()}`) {
	return {
		messaging_product: 'whatsapp',
		metadata: { display_phone_number: '5511900001111', phone_number_id: cluster.sandbox.phoneId },
		contacts: [{ profile: { name: 'Ana Souza' }, wa_id: '5511988887777' }],
		messages: [{ from: '5511988887777', id, timestamp: String(Math.floor(Date.now() / 1000)), type: 'text', text: { body: text } }],
	};
}

const registrations = async (): Promise<any[]> => (await cluster.sandbox.control.state()).webhooks;
const creations = (requests: SandboxRequest[]) => requests.filter((r) => r.method === 'POST' && r.path.startsWith('/api/Webhooks'));

/** Through the sandbox, to the registered address (the first webhook processor); the receiver's status. */
async function deliver(notification: object, options: Record<string, unknown> = {}): Promise<number> {
	const results = await cluster.sandbox.control.deliver({ notification, ...options });
	expect(results).toHaveLength(1);
	return results[0].status;
}

/**
 * The gateway's request made here, with the registered headers: to the second webhook processor (what a load balancer
 * would do), or to the first. Unlike the sandbox's delivery it does not give up after 15 s, so that a loaded machine
 * slows a burst down without turning it into failures.
 */
async function deliverDirectly(notification: object, url = secondEndpoint): Promise<number> {
	return (await deliverDirectlyWithBody(notification, url)).status;
}

async function deliverDirectlyWithBody(notification: object, url: string): Promise<{ status: number; body: string }> {
	const [registration] = await registrations();
	const res = await fetch(url, {
		method: 'POST',
		headers: { 'content-type': 'application/json', ...registration.headers },
		body: JSON.stringify(notification),
	});
	return { status: res.status, body: await res.text() };
}

/** Each distinct text with how often it occurs, most frequent first. */
function countsOf(texts: string[]): Array<[string, number]> {
	const counts = new Map<string, number>();
	for (const text of texts) counts.set(text, (counts.get(text) ?? 0) + 1);
	return [...counts].sort((a, b) => b[1] - a[1]);
}

/** Message ids the executions of the workflow received, one entry per item, once they have all ended. */
async function receivedIds(expectedExecutions: number): Promise<string[]> {
	const rows = await cluster.waitForExecutions(wf.id!, expectedExecutions);
	const ids: string[] = [];
	for (const row of rows) {
		const exec = await cluster.execution(row.id);
		expect(exec.status).toBe('success');
		ids.push(...exec.node('Gateway Trigger')!.items.map((i) => String(i.json.messageId)));
	}
	return ids;
}

const executionCount = async () => (await cluster.db.executions(wf.id!)).length;

test('activation on the main registers the webhook once, at the webhook processors, with two workers running', async () => {
	await cluster.activate(wf);
	const [registration] = await util.waitFor('the registration at the sandbox', async () => ((await registrations()).length ? registrations() : null), { timeoutMs: 60000 });
	expect(registration.endpoint).toBe(endpoint);
	await util.sleep(3000); // time for a second registration, from any process, to show up
	expect(await registrations()).toHaveLength(1);
	expect(creations(await cluster.requests())).toHaveLength(1);
});

test('a delivery to the webhook processor starts one execution, on a worker', async () => {
	const message = incomingText('hello from the queue');
	expect(await deliver(message)).toBe(200);
	expect(await receivedIds(1)).toEqual([message.messages[0].id]);
	const [row] = await cluster.db.executions(wf.id!);
	expect(row.mode).toBe('webhook');
	expect(cluster.workersThatRan(row.id)).toHaveLength(1);
});

test('forged deliveries start nothing, at either webhook processor', async () => {
	const before = await executionCount();
	expect(await deliver(incomingText('forged'), { omitCustomHeaders: true })).toBe(401);
	const [registration] = await registrations();
	const wrong = Object.fromEntries(Object.keys(registration.headers).map((k) => [k, 'x'.repeat(43)]));
	for (const url of [endpoint, secondEndpoint]) {
		const res = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', ...wrong }, body: JSON.stringify(incomingText('forged')) });
		expect(res.status).toBe(401);
	}
	await util.sleep(3000);
	expect(await executionCount()).toBe(before);
});

/** The README's trigger section: a busy process writes its seen events at most every 10 s; after a quiet spell at once. */
const QUIET_SPELL_MS = 11000;

test('the same notification delivered to each of the two webhook processors starts one execution', async () => {
	await util.sleep(QUIET_SPELL_MS);
	const before = await executionCount();
	const message = incomingText('delivered twice');
	expect(await deliver(message)).toBe(200);
	await cluster.waitForExecutions(wf.id!, before + 1);
	// The gateway delivers it again; this time the load balancer sends it to the other webhook processor.
	expect(await deliverDirectly(message)).toBe(200);
	await util.sleep(5000);
	expect(await executionCount()).toBe(before + 1);
});

test(`${DELIVERIES} deliveries, ${IN_FLIGHT} at a time over both webhook processors: none lost, none doubled`, async () => {
	const before = await executionCount();
	const messages = Array.from({ length: DELIVERIES }, (_, i) => incomingText(`burst ${i}`));
	// As the gateway does (at-least-once), a delivery answered with an error is delivered again, to the same processor.
	let redelivered = 0;
	const answers: string[] = [];
	const deliverUntilAccepted = async (message: object, url: string) => {
		for (let attempt = 1; ; attempt++) {
			const { status, body } = await deliverDirectlyWithBody(message, url);
			if (status !== 200) answers.push(`${status} ${body.slice(0, 200)}`);
			if (status === 200 || attempt === 3) return status;
			redelivered++;
			await util.sleep(2000);
		}
	};
	const statuses: number[] = [];
	let next = 0;
	const deliveryWorker = async () => {
		for (let i = next++; i < DELIVERIES; i = next++) {
			statuses[i] = await deliverUntilAccepted(messages[i], i % 2 ? secondEndpoint : endpoint);
		}
	};
	await Promise.all(Array.from({ length: IN_FLIGHT }, deliveryWorker));
	if (redelivered) {
		process.stdout.write(`${redelivered} of ${DELIVERIES} deliveries were answered with an error and delivered again:\n`);
		for (const [answer, count] of countsOf(answers)) process.stdout.write(`  ${count} x ${answer}\n`);
	}
	expect(statuses.filter((s) => s !== 200)).toEqual([]);
	const sent = new Set(messages.map((m) => m.messages[0].id));
	const burst = (await receivedIds(before + DELIVERIES)).filter((id) => sent.has(id));
	expect(burst.sort()).toEqual([...sent].sort());
	expect(await executionCount()).toBe(before + DELIVERIES);
	const rows = (await cluster.db.executions(wf.id!)).slice(-DELIVERIES);
	expect(new Set(rows.flatMap((r) => cluster.workersThatRan(r.id))).size).toBe(2);
});

describe('after a restart of every process', () => {
	let creationsBefore: number;
	let remembered: ReturnType<typeof incomingText>;

	beforeAll(async () => {
		await util.sleep(QUIET_SPELL_MS); // so that the process writes this event at once (README, trigger section)
		remembered = incomingText('before the restart');
		const before = await executionCount();
		expect(await deliver(remembered)).toBe(200);
		await cluster.waitForExecutions(wf.id!, before + 1);
		creationsBefore = creations(await cluster.requests()).length;
		await cluster.stop();
		await cluster.start();
	});

	test('the registration is kept: still one, at the same address, none created again', async () => {
		await util.sleep(3000);
		const list = await registrations();
		expect(list).toHaveLength(1);
		expect(list[0].endpoint).toBe(endpoint);
		expect(creations(await cluster.requests())).toHaveLength(creationsBefore);
	});

	test('a delivery starts one execution, on a worker', async () => {
		const before = await executionCount();
		const message = incomingText('after the restart');
		expect(await deliverDirectly(message)).toBe(200);
		const rows = await cluster.waitForExecutions(wf.id!, before + 1);
		expect(rows).toHaveLength(before + 1);
		const exec = await cluster.execution(rows[rows.length - 1].id);
		expect(exec.node('Gateway Trigger')!.items.map((i) => i.json.messageId)).toEqual([message.messages[0].id]);
		expect(cluster.workersThatRan(exec.id)).toHaveLength(1);
	});

	test('a notification that started an execution before the restart starts nothing when delivered again', async () => {
		const before = await executionCount();
		expect(await deliver(remembered)).toBe(200);
		await util.sleep(5000);
		expect(await executionCount()).toBe(before);
	});
});

test('deactivation through the main REST API removes the registration; the webhook processors stop serving it', async () => {
	const [registration] = await registrations();
	await cluster.deactivate(wf);
	await util.waitFor('the registration to be removed', async () => (await registrations()).length === 0, { timeoutMs: 60000 });
	const deletions = (await cluster.requests()).filter((r) => r.method === 'DELETE');
	expect(deletions.map((r) => r.path)).toEqual([expect.stringMatching(new RegExp(`^/api/Webhooks/${registration.id}`))]);
	expect(deletions[0].headers.apikey).toBe(cluster.sandbox.apiKey);
	for (const url of [endpoint, secondEndpoint]) {
		const res = await util.waitFor(`${url} to stop answering`, async () => {
			const r = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
			return r.status === 404 ? r : null;
		}, { timeoutMs: 30000 });
		expect(res.status).toBe(404);
	}
});
