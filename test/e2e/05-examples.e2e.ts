/**
 * The workflows in examples/ work as shipped: imported as they are (the credential is attached on import, as
 * `npm start` does), run against the sandbox, and checked by what the gateway received.
 */
import { join } from 'node:path';

import { getExecution, listExecutions, publicationOutbox, type Execution } from './support/db';
import { n8n, sampleNotifications, setup, util, type Env, type Workflow } from './support/env';

let env: Env;
const byName: Record<string, Workflow> = {};

beforeAll(async () => {
	env = await setup('examples');
	const files = n8n.readWorkflowFiles(join(__dirname, '..', '..', 'examples'));
	const imported: Workflow[] = await env.importWorkflows(files);
	for (const wf of imported) byName[wf.name] = wf;
});

afterAll(async () => {
	await env?.teardown();
});

function example(part: string): Workflow {
	const wf = Object.values(byName).find((w) => w.name.toLowerCase().includes(part));
	if (!wf) throw new Error(`No example workflow named like "${part}" (have: ${Object.keys(byName).join(', ')})`);
	return wf;
}

function expectSuccess(exec: Execution) {
	if (exec.status !== 'success') throw new Error(`Execution ${exec.id} ended "${exec.status}": ${JSON.stringify(exec.error ?? exec.data?.resultData).slice(0, 1500)}`);
}

async function runManual(part: string) {
	await env.sandbox.control.reset();
	const exec = await env.execute(example(part));
	expectSuccess(exec);
	return { exec, requests: await env.requests() };
}

test('template campaign: one template message per row', async () => {
	const { requests } = await runManual('campaign');
	const sent = requests.filter((r) => r.path === '/api/Messages');
	expect(sent).toHaveLength(3);
	for (const r of sent) {
		expect(r.status).toBe(200);
		expect(r.body.type).toBe('template');
		expect(r.body.template.name).toBe('order_update');
	}
	// Rows are sent in parallel, so they reach the gateway in any order; each row's values go to its own recipient.
	expect(sent.map((r) => r.body.to).sort()).toEqual(['5511988887777', '5521977776666', '5531966665555']);
	const first = sent.find((r) => r.body.to === '5511988887777')!;
	expect(first.body.template.components.find((c: any) => c.type === 'body').parameters.map((p: any) => p.text)).toEqual(['Ana Souza', '#1001']);
});

test('person upload: one CSV file with every person', async () => {
	const { exec, requests } = await runManual('person');
	const [upload] = requests.filter((r) => r.path === '/DataInserterProfiles/api/profile');
	expect(upload.status).toBe(200);
	expect(upload.headers['content-type']).toContain('application/csv');
	expect(upload.body.records).toBe(3);
	const fileId = (upload.responseBody as any).response.fileId;
	expect(JSON.stringify(exec.node('Upload person file')!.items)).toContain(fileId);
});

test('media from a binary: upload, then a document message with the new id', async () => {
	const { requests } = await runManual('downloaded file');
	const upload = requests.find((r) => r.path.startsWith('/api/Medias'))!;
	expect(upload.status).toBe(200);
	expect(upload.body.files[0]).toMatchObject({ fileName: 'invoice-1001.pdf', contentType: 'application/pdf' });
	const [message] = requests.filter((r) => r.path === '/api/Messages');
	expect(message.body.document).toEqual({ id: (upload.responseBody as any).id, caption: 'Your invoice #1001', filename: 'invoice-1001.pdf' });
});

describe('with n8n running', () => {
	beforeAll(async () => {
		await env.cli(['publish:workflow', `--id=${example('auto-reply').id}`]);
		await env.start();
		await util.waitFor('the auto-reply bot to be published', async () =>
			publicationOutbox(env.db).some((r) => r.workflowId === example('auto-reply').id && r.status === 'completed'),
		{ timeoutMs: 60000, intervalMs: 500 });
		await util.waitFor('its webhook registration', async () => (await env.sandbox.control.state()).webhooks.length === 1, { timeoutMs: 30000 });
	});

	test('auto-reply bot: an incoming text gets a reply and is marked as read', async () => {
		const wf = example('auto-reply');
		const sample = sampleNotifications().find((s) => s.file === 'incoming-text.value.json')!.body;
		const incoming = sample.messages[0];
		const before = listExecutions(env.db, wf.id!).length;
		const [result] = await env.sandbox.control.deliver({ notification: sample });
		expect(result.status).toBe(200);
		const row = await util.waitFor('the bot execution', async () => {
			const rows = listExecutions(env.db, wf.id!);
			return rows.length > before && rows[rows.length - 1].finished ? rows[rows.length - 1] : null;
		}, { timeoutMs: 30000, intervalMs: 300 });
		expectSuccess(getExecution(env.db, row.id));
		const sent = (await env.requests()).filter((r) => r.path === '/api/Messages');
		const reply = sent.find((r) => r.body.type === 'text')!;
		expect(reply.body.to).toBe(incoming.from);
		expect(reply.body.text.body).toContain(incoming.text.body);
		const read = sent.find((r) => r.body.status === 'read')!;
		expect(read.body.message_id).toBe(incoming.id);
	});

	test('refund approval: waits, resumes on Approve, tells the result', async () => {
		const wf = example('approval');
		const before = listExecutions(env.db, wf.id!).length;
		const cli = env.cli(['execute', `--id=${wf.id}`]).catch((e: Error) => e.message);
		const row = await util.waitFor('the waiting execution', async () => {
			const rows = listExecutions(env.db, wf.id!);
			return rows.length > before && rows[rows.length - 1].status === 'waiting' ? rows[rows.length - 1] : null;
		}, { timeoutMs: 90000, intervalMs: 500 });
		const question = (await env.requests()).filter((r) => r.path === '/api/Messages').pop()!;
		const links = [...JSON.stringify(question.body).matchAll(/https?:\/\/[^\s"\\)]+/g)].map((m) => m[0]);
		const approve = links.find((l) => /approved=true/.test(l))!;
		expect(approve).toBeDefined();
		expect((await fetch(approve)).status).toBe(200);
		await util.waitFor('the execution to finish', async () => getExecution(env.db, row.id).finished, { timeoutMs: 60000, intervalMs: 500 });
		expectSuccess(getExecution(env.db, row.id));
		const result = (await env.requests()).filter((r) => r.path === '/api/Messages').pop()!;
		expect(result.body.text.body).toContain('approved');
		await cli;
	});
});
