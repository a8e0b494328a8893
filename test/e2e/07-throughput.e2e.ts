/**
 * Sending at the network's pace in a real n8n: n8n's own Retry On Fail (the engine re-runs the whole node with the
 * same input) must not send an accepted message a second time, and stopping a running execution through n8n's REST
 * API stops the sends. Checked at the sandbox gateway's recorded requests.
 */
import { getExecution, listExecutions, publicationOutbox, type Execution } from './support/db';
import { ACTION, n8n, setup, util, type Env, type SandboxRequest, type Workflow } from './support/env';
import { itemsCode, single } from './support/workflows';

let env: Env;

beforeAll(async () => {
	env = await setup('throughput');
});

afterAll(async () => {
	await env?.teardown();
});

const PHONES = ['5511988880011', '5511988880012', '5511988880013', '5511988880014', '5511988880015'];

function expectSuccess(exec: Execution) {
	if (exec.status !== 'success') {
		throw new Error(`Execution ${exec.id} ended "${exec.status}": ${JSON.stringify(exec.error ?? exec.node('Gateway')?.error).slice(0, 1500)}`);
	}
}

const recipientOf = (request: SandboxRequest) => (request.body as { to: string }).to;

test('Retry On Fail (3 tries), the 4th message fails once: one accepted request per recipient, the execution succeeds', async () => {
	const workflow = single(
		'e2e retry on fail sends nothing twice',
		{ resource: 'message', operation: 'send', messageType: 'text', recipientPhoneNumber: '={{ $json.phone }}', textBody: 'Seu pedido saiu' },
		itemsCode(PHONES.map((phone) => ({ phone }))),
	);
	const gateway = workflow.nodes.find((node) => node.name === 'Gateway');
	Object.assign(gateway, { retryOnFail: true, maxTries: 3, waitBetweenTries: 100 });
	const [imported] = await env.importWorkflows([workflow]);

	await env.sandbox.control.reset();
	// A 429 longer than the node waits: refused before it was taken ("not sent"), so a retry may send it.
	await env.sandbox.control.fail({ route: 'messages', count: 1, mode: '429', retryAfterSeconds: 600, skip: 3 });
	const exec = await env.execute(imported);
	expectSuccess(exec);

	const messages = ((await env.requests()) as SandboxRequest[]).filter((request) => request.path === '/api/Messages');
	// The 4th request failed; n8n ran the node again; what the first try sent was not sent again.
	expect(messages.map((request) => request.status).filter((status) => status !== 200)).toEqual([429]);
	expect(messages[3].status).toBe(429);
	const accepted = messages.filter((request) => request.status === 200);
	expect(accepted.map(recipientOf).sort()).toEqual(PHONES);
	expect(messages).toHaveLength(6);
	// The refused one went again in n8n's second try (with the 5th, when the first try stopped before sending it).
	expect(messages.slice(4).map(recipientOf)).toContain(recipientOf(messages[3]));

	// Each output item carries the id of its recipient's one accepted message, in input order.
	const idOf = Object.fromEntries(
		accepted.map((request) => [recipientOf(request), (request.responseBody as { messages: Array<{ id: string }> }).messages[0].id]),
	);
	const items = exec.node('Gateway')!.items.map((item) => item.json);
	expect(items.map((json) => json.to)).toEqual(PHONES);
	expect(items.map((json) => json.messageId)).toEqual(PHONES.map((phone) => idOf[phone]));
});

test('messages to one recipient reach the gateway in item order, each after the one before was answered', async () => {
	const texts = ['1/3 Seu pedido saiu', '2/3 Código de rastreio: BR123', '3/3 Obrigado!'];
	const other = '5511988880019';
	const workflow = single(
		'e2e one recipient in item order',
		{ resource: 'message', operation: 'send', messageType: 'text', recipientPhoneNumber: '={{ $json.phone }}', textBody: '={{ $json.text }}' },
		itemsCode([
			{ phone: PHONES[0], text: texts[0] },
			{ phone: other, text: 'outra pessoa' },
			{ phone: PHONES[0], text: texts[1] },
			{ phone: PHONES[0], text: texts[2] },
		]),
	);
	const [imported] = await env.importWorkflows([workflow]);
	await env.sandbox.control.reset();
	await env.sandbox.control.latency(300);
	const exec = await env.execute(imported);
	expectSuccess(exec);

	const messages = ((await env.requests()) as SandboxRequest[]).filter((request) => request.path === '/api/Messages');
	const toFirst = messages.filter((request) => recipientOf(request) === PHONES[0]);
	expect(toFirst.map((request) => (request.body as { text: { body: string } }).text.body)).toEqual(texts);
	const received = toFirst.map((request) => Number(request.receivedAt));
	// 20 requests may be in flight, but one recipient's wait for the answer before (300 ms; margin for a busy machine).
	expect(received[1] - received[0]).toBeGreaterThanOrEqual(250);
	expect(received[2] - received[1]).toBeGreaterThanOrEqual(250);
	// The other recipient did not wait for them.
	expect(Number(messages.find((request) => recipientOf(request) === other)!.receivedAt)).toBeLessThan(received[1]);
	expect(exec.node('Gateway')!.items.map((item) => item.json.to)).toEqual([PHONES[0], other, PHONES[0], PHONES[0]]);
});

test('a 1,000-message execution stopped through the REST API after 2 s: nothing reaches the gateway later than one latency after the stop, and the execution is canceled', async () => {
	const LATENCY_MS = 100;
	const phones = Array.from({ length: 1000 }, (_, i) => ({ phone: `551198${String(8_000_000 + i).padStart(7, '0')}` }));
	const workflow: Workflow = {
		name: 'e2e stop a send run',
		nodes: [
			{
				name: 'Webhook',
				type: 'n8n-nodes-base.webhook',
				typeVersion: 2,
				position: [0, 0],
				webhookId: 'mg-e2e-cancel',
				parameters: { httpMethod: 'POST', path: 'mg-e2e-cancel', responseMode: 'onReceived', options: {} },
			},
			{ name: 'Input', type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0], parameters: { jsCode: itemsCode(phones) } },
			{
				name: 'Gateway',
				type: ACTION,
				typeVersion: 1,
				position: [440, 0],
				parameters: { resource: 'message', operation: 'send', messageType: 'text', recipientPhoneNumber: '={{ $json.phone }}', textBody: 'Oi' },
			},
		],
		connections: {
			Webhook: { main: [[{ node: 'Input', type: 'main', index: 0 }]] },
			Input: { main: [[{ node: 'Gateway', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
	const [imported] = await env.importWorkflows([workflow]);
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

		const started = await fetch(`${env.inst.baseUrl}/webhook/mg-e2e-cancel`, { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
		expect(started.status).toBe(200);
		await util.sleep(2000);
		const [running] = listExecutions(env.db, imported.id!).filter((row) => row.status === 'running');
		expect(running).toBeDefined();
		await session.request('POST', `/rest/executions/${running.id}/stop`, {});
		// From n8n's answer: how long n8n takes to pass the stop to the run is n8n's (CI once saw a message 20 ms
		// past one latency after the call was sent, on a loaded machine).
		const stoppedAt = Date.now();
		await util.sleep(3000);

		const messages = ((await env.requests()) as SandboxRequest[]).filter((request) => request.path === '/api/Messages');
		const receivedAt = messages.map((request) => (request as unknown as { receivedAt: number }).receivedAt);
		// About 2 s at 80/s were sent; a run that kept going would have sent 240 more in the 3 s after the stop.
		expect(messages.length).toBeGreaterThan(50);
		expect(messages.length).toBeLessThan(400);
		expect(Math.max(...receivedAt)).toBeLessThanOrEqual(stoppedAt + LATENCY_MS);
		await util.waitFor('the execution to end', async () => getExecution(env.db, running.id).status !== 'running', {
			timeoutMs: 30000,
			intervalMs: 250,
		});
		expect(getExecution(env.db, running.id).status).toBe('canceled');
	} finally {
		await env.sandbox.control.latency(0);
		await env.stop();
	}
});
