/**
 * The action node in queue mode: main, two workers and a webhook processor sharing Postgres and Redis. Each workflow
 * starts with n8n's Webhook node, so a call to the webhook processor enqueues a production execution that a worker
 * runs. Checks read the sandbox's recorded requests and the executions from Postgres; which worker ran an execution
 * comes from the workers' logs (`Worker started execution N`).
 */
import { expectSuccess, setupCluster, type Cluster, type SandboxRequest, type Workflow } from './support/cluster';
import { itemsCode, PNG, webhookChain, webhookPath } from './support/workflows';

let cluster: Cluster;

const SENDS = 50;
const sendText = { resource: 'message', operation: 'send', messageType: 'text', recipientPhoneNumber: '={{ $json.body.to }}', textBody: '={{ $json.body.text }}' };

const RETRY_RECIPIENTS = ['5511970000001', '5511970000002', '5511970000003', '5511970000004', '5511970000005'];
const APPROVER = '5511988887701';
const LATE_APPROVER = '5511988887702';

function sendAndWait(to: string, options: Record<string, unknown>) {
	return {
		resource: 'message',
		operation: 'sendAndWait',
		recipientPhoneNumber: to,
		message: 'Approve the refund of R$ 120,00 for order #12345?',
		responseType: 'approval',
		options,
	};
}

const workflows: Record<string, Workflow> = {
	send: webhookChain('queue send', [{ name: 'Gateway', parameters: sendText }]),
	image: webhookChain('queue image from binary', [
		{
			name: 'Gateway',
			parameters: { resource: 'message', operation: 'send', messageType: 'image', recipientPhoneNumber: '5511988887777', mediaSource: 'binary', binaryPropertyName: 'data' },
		},
	]),
	personItems: webhookChain(
		'queue person items',
		[{ name: 'Gateway', parameters: { resource: 'personData', operation: 'upload', source: 'items', format: 'csv', mappingMode: 'auto' } }],
		itemsCode([
			{ FirstName: 'Ana', Email: 'ana@example.com', Phone: '5511911110001', Tier: 'gold' },
			{ FirstName: 'Bruno', Email: 'bruno@example.com', Phone: '5511911110002', Tier: 'silver' },
			{ FirstName: 'Carla', Email: 'carla@example.com', Phone: '5511911110003', Tier: 'gold' },
		]),
	),
	retry: webhookChain(
		'queue retry on fail',
		[
			{
				name: 'Gateway',
				parameters: { ...sendText, recipientPhoneNumber: '={{ $json.to }}', textBody: '={{ $json.text }}' },
				settings: { retryOnFail: true, maxTries: 3, waitBetweenTries: 1000 },
			},
		],
		itemsCode(RETRY_RECIPIENTS.map((to, i) => ({ to, text: `retry-safe message ${i + 1}` }))),
	),
	approve: webhookChain('queue send and wait approve', [{ name: 'Ask', parameters: sendAndWait(APPROVER, {}) }]),
	timeLimit: webhookChain('queue send and wait time limit', [
		// 0.25 minutes: the main's wait tracker (it looks every 60 s) resumes it on a worker.
		{ name: 'Ask', parameters: sendAndWait(LATE_APPROVER, { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 0.25, resumeUnit: 'minutes' } } }) },
	]),
	personBinary: webhookChain('queue person binary', [
		{ name: 'Gateway', parameters: { resource: 'personData', operation: 'upload', source: 'binary', format: 'csv', binaryPropertyName: 'data', validateFile: true } },
	]),
};

beforeAll(async () => {
	cluster = await setupCluster('actions', { redisDb: 1 });
	const imported = await cluster.importWorkflows(Object.values(workflows));
	Object.keys(workflows).forEach((k, i) => (workflows[k] = imported[i]));
	await cluster.start();
	for (const wf of Object.values(workflows)) await cluster.activate(wf);
	await cluster.sandbox.control.reset();
});

afterAll(async () => {
	await cluster?.teardown();
});

/** POST to a workflow's production webhook at the webhook processor. */
async function callWebhook(wf: Workflow, body: string | Buffer, contentType = 'application/json'): Promise<number> {
	const res = await fetch(`${cluster.webhookUrl}webhook/${webhookPath(wf.name)}`, { method: 'POST', headers: { 'content-type': contentType }, body });
	await res.text();
	return res.status;
}

/** Calls the webhook once and returns its one execution, ended, read from Postgres. */
async function runOnce(wf: Workflow, body: string | Buffer, contentType?: string) {
	const before = (await cluster.db.executions(wf.id!)).length;
	expect(await callWebhook(wf, body, contentType)).toBe(200);
	const rows = await cluster.waitForExecutions(wf.id!, before + 1);
	expect(rows).toHaveLength(before + 1);
	return cluster.execution(rows[rows.length - 1].id);
}

const messages = (requests: SandboxRequest[]) => requests.filter((r) => r.method === 'POST' && r.path === '/api/Messages');

/**
 * The sandbox is not reset between tests (the time-limited Send and Wait runs in the background from the first
 * test to the last): each test reads the requests made after its own mark.
 */
async function requestsSince(mark: number): Promise<SandboxRequest[]> {
	return (await cluster.requests()).slice(mark);
}
const mark = async () => (await cluster.requests()).length;

/** Calls a Send and Wait workflow; resolves the execution once it waits, and the links of the message it sent. */
async function startWaiting(wf: Workflow, to: string) {
	expect(await callWebhook(wf, '{}')).toBe(200);
	const [row] = await cluster.waitForExecutions(wf.id!, 1, { ended: (r) => r.status === 'waiting' });
	const sent = messages(await cluster.requests()).filter((r) => r.body.to === to);
	expect(sent).toHaveLength(1);
	const links = [...JSON.stringify(sent[0].body).matchAll(/https?:\/\/[^\s"\\)]+/g)].map((m) => m[0]);
	return { id: row.id, links };
}

/** The execution that waits for its time limit: started by the first test, checked by the last. */
let timeLimited: number;

test('Send and Wait waits, and the approve link served by the webhook processor resumes it on a worker', async () => {
	timeLimited = (await startWaiting(workflows.timeLimit, LATE_APPROVER)).id;
	const { id, links } = await startWaiting(workflows.approve, APPROVER);
	expect(cluster.workersThatRan(id)).toHaveLength(1);
	const approve = links.find((l) => /approved=true/.test(l));
	// The link points at the webhook processors (N8N_WEBHOOK_URL); the main serves no webhooks in this set-up.
	expect(approve?.startsWith(`${cluster.webhookUrl}webhook-waiting/${id}`)).toBe(true);
	expect((await fetch(approve!)).status).toBe(200);
	const [row] = await cluster.waitForExecutions(workflows.approve.id!, 1);
	const exec = await cluster.execution(row.id);
	expectSuccess(exec);
	expect(exec.node('Ask')!.items[0].json).toMatchObject({ data: { approved: true } });
	// Started on a worker, and resumed on a worker (any of the two).
	expect(cluster.workersThatRan(id)).toHaveLength(2);
});

test(`${SENDS} executions, each sending one message, run on the workers and each message is sent once`, async () => {
	const start = await mark();
	const recipients = Array.from({ length: SENDS }, (_, i) => `55119${String(80000000 + i)}`);
	const statuses = await Promise.all(recipients.map((to, i) => callWebhook(workflows.send, JSON.stringify({ to, text: `queue message ${i}` }))));
	expect(statuses.every((s) => s === 200)).toBe(true);

	const rows = await cluster.waitForExecutions(workflows.send.id!, SENDS);
	expect(rows).toHaveLength(SENDS);
	expect(rows.map((r) => r.status)).toEqual(Array(SENDS).fill('success'));
	// Every execution was started by exactly one worker, and both workers took some.
	const ranBy = rows.map((r) => cluster.workersThatRan(r.id));
	expect(ranBy.filter((w) => w.length !== 1)).toEqual([]);
	expect(new Set(ranBy.flat()).size).toBe(2);

	const sent = messages(await requestsSince(start)).filter((r) => recipients.includes(r.body.to));
	expect(sent).toHaveLength(SENDS);
	expect(sent.every((r) => r.status === 200 && r.headers.apikey === cluster.sandbox.apiKey)).toBe(true);
	expect(sent.map((r) => r.body.to).sort()).toEqual([...recipients].sort());
	// Each execution's output is its own message's answer.
	const exec = await cluster.execution(rows[0].id);
	const out = exec.node('Gateway')!.items[0].json;
	const request = sent.find((r) => r.body.to === exec.node('Webhook')!.items[0].json.body.to)!;
	expect(out.messageId).toBe(request.responseBody.messages[0].id);
});

test('an image received by the webhook processor is uploaded by the worker (binary data in the database)', async () => {
	const start = await mark();
	const exec = await runOnce(workflows.image, PNG, 'image/png');
	expectSuccess(exec);
	expect(cluster.workersThatRan(exec.id)).toHaveLength(1);
	// The webhook processor stored the file; the execution holds only a reference to it in the binary data store.
	const stored = exec.node('Webhook')!.items[0].binary!.data;
	expect(stored.data).not.toBe(PNG.toString('base64'));
	expect(String(stored.id)).toMatch(/^database:/);
	const requests = await requestsSince(start);
	const uploads = requests.filter((r) => r.path.startsWith('/api/Medias'));
	expect(uploads).toHaveLength(1);
	expect(uploads[0].status).toBe(200);
	expect(uploads[0].body.files[0]).toMatchObject({ field: 'File', contentType: 'image/png', size: PNG.length });
	const [message] = messages(requests).filter((r) => r.body.type === 'image');
	expect(message.body.image.id).toBe(uploads[0].responseBody.id);
});

describe('person file', () => {
	const uploads = async (start: number) => (await requestsSince(start)).filter((r) => r.path === '/DataInserterProfiles/api/profile');

	test('from items, built and sent by a worker', async () => {
		const start = await mark();
		const exec = await runOnce(workflows.personItems, '{}');
		expectSuccess(exec);
		expect(cluster.workersThatRan(exec.id)).toHaveLength(1);
		const [req] = await uploads(start);
		expect(req.status).toBe(200);
		expect(req.body.records).toBe(3);
		expect(JSON.stringify(exec.node('Gateway')!.items)).toContain(req.responseBody.response.fileId);
	});

	test('from a CSV file received by the webhook processor', async () => {
		const start = await mark();
		const csv = 'FirstName;Email;Phone\nAna;ana@example.com;5511911110001\nBruno;bruno@example.com;5511911110002\n';
		const exec = await runOnce(workflows.personBinary, csv, 'text/csv');
		expectSuccess(exec);
		expect(String(exec.node('Webhook')!.items[0].binary!.data.id)).toMatch(/^database:/);
		const [req] = await uploads(start);
		expect(req.status).toBe(200);
		expect(req.body.records).toBe(2);
		expect(JSON.stringify(exec.node('Gateway')!.items)).toContain(req.responseBody.response.fileId);
	});
});

test('Retry On Fail on a worker sends nothing twice: the gateway fails the 4th message once, the retry sends only that one', async () => {
	const start = await mark();
	// A 429 longer than the node waits is "not sent" (a 500 is of unknown outcome and never sent again).
	await cluster.sandbox.control.fail({ route: 'messages', count: 1, mode: '429', retryAfterSeconds: 600, skip: 3 });
	const exec = await runOnce(workflows.retry, '{}');
	expectSuccess(exec);
	expect(cluster.workersThatRan(exec.id)).toHaveLength(1);
	const sent = messages(await requestsSince(start));
	const byRecipient = new Map<string, number[]>(RETRY_RECIPIENTS.map((to) => [to, []]));
	for (const r of sent) byRecipient.get(r.body.to)?.push(r.status as number);
	// Exactly one accepted request per recipient; the one that failed was sent again once, nothing else was.
	expect([...byRecipient.values()].map((statuses) => statuses.filter((s) => s === 200).length)).toEqual([1, 1, 1, 1, 1]);
	expect(sent.filter((r) => r.status === 429)).toHaveLength(1);
	expect(sent).toHaveLength(RETRY_RECIPIENTS.length + 1);
	// The output pairs each item with its own accepted message.
	const out = exec.node('Gateway')!.items.map((i) => i.json.messageId);
	const accepted = RETRY_RECIPIENTS.map((to) => sent.find((r) => r.body.to === to && r.status === 200)!.responseBody.messages[0].id);
	expect(out).toEqual(accepted);
});

test('Send and Wait: the time limit resumes the waiting execution on a worker without an answer', async () => {
	const [row] = await cluster.waitForExecutions(workflows.timeLimit.id!, 1, { timeoutMs: 150000 });
	expect(row.id).toBe(timeLimited);
	const exec = await cluster.execution(row.id);
	expectSuccess(exec);
	expect(exec.node('Ask')!.items[0].json.data).toBeUndefined();
	expect(cluster.workersThatRan(row.id)).toHaveLength(2);
	// The question was sent once, not again on resumption.
	expect(messages(await cluster.requests()).filter((r) => r.body.to === LATE_APPROVER)).toHaveLength(1);
});
