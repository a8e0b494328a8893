/**
 * Send and Wait for Response in a running n8n: the execution sends the question with its links and waits; the test
 * opens the approve link found in the message the sandbox received, and the execution resumes with the answer.
 */
import { getExecution, listExecutions } from './support/db';
import { ACTION, setup, util, type Env, type Workflow } from './support/env';

let env: Env;

beforeAll(async () => {
	env = await setup('send-and-wait');
	await env.start();
});

afterAll(async () => {
	await env?.teardown();
});

function approvalWorkflow(name: string, waitParameters: Record<string, unknown>): Workflow {
	return {
		name,
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{
				name: 'Ask',
				type: ACTION,
				typeVersion: 1,
				position: [240, 0],
				parameters: {
					resource: 'message',
					operation: 'sendAndWait',
					recipientPhoneNumber: '5511988887777',
					message: 'Approve the refund of R$ 120,00 for order #12345?',
					...waitParameters,
				},
			},
			{ name: 'After', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [480, 0], parameters: {} },
		],
		connections: {
			Start: { main: [[{ node: 'Ask', type: 'main', index: 0 }]] },
			Ask: { main: [[{ node: 'After', type: 'main', index: 0 }]] },
		},
	};
}

/** Starts `n8n execute --id` (it may only return once the execution has finished) and waits for the waiting row. */
async function startWaitingExecution(wf: Workflow) {
	const before = listExecutions(env.db, wf.id!).length;
	let cliOutput: string | undefined;
	const cli = env.cli(['execute', `--id=${wf.id}`]).then(
		(out: string) => (cliOutput = out),
		(e: Error) => (cliOutput = e.message),
	);
	const row = await util.waitFor(
		'the execution to wait',
		async () => {
			const rows = listExecutions(env.db, wf.id!);
			const last = rows[rows.length - 1];
			if (rows.length > before && last.status === 'waiting') return last;
			// The CLI ended and nothing waits: show what it said.
			if (cliOutput !== undefined && rows.length === before) {
				throw Object.assign(new Error(`n8n execute ended without an execution:\n${cliOutput.slice(-3000)}`), { fatal: true });
			}
			return null;
		},
		{ timeoutMs: 90000, intervalMs: 500 },
	);
	return { row, cli };
}

/** Links in the text the sandbox received, by their query. */
async function linksInSentMessage(): Promise<string[]> {
	const sent = (await env.requests()).filter((r) => r.path === '/api/Messages');
	expect(sent).toHaveLength(1);
	expect(sent[0].body.to).toBe('5511988887777');
	const text = JSON.stringify(sent[0].body);
	expect(text).toContain('Approve the refund');
	return [...text.matchAll(/https?:\/\/[^\s"\\)]+/g)].map((m) => m[0]);
}

async function waitFinished(id: number) {
	return util.waitFor(
		'the execution to resume and finish',
		async () => {
			const e = getExecution(env.db, id);
			return e.finished || e.status === 'error' ? e : null;
		},
		{ timeoutMs: 60000, intervalMs: 500 },
	);
}

test('approval: the execution waits, the approve link resumes it with approved = true', async () => {
	const [wf] = await env.importWorkflows([approvalWorkflow('e2e send and wait approval', { responseType: 'approval' })]);
	await env.sandbox.control.reset();
	const { row, cli } = await startWaitingExecution(wf);
	const links = await linksInSentMessage();
	const approve = links.find((l) => l.includes('/webhook-waiting/') && /approved=true/.test(l));
	expect(approve).toBeDefined();
	expect(approve).toContain(String(row.id));

	const page = await fetch(approve!);
	expect(page.status).toBe(200);
	const exec = await waitFinished(row.id);
	expect(exec.status).toBe('success');
	expect(exec.node('Ask')!.items[0].json).toMatchObject({ data: { approved: true } });
	expect(exec.node('After')!.items[0].json).toMatchObject({ data: { approved: true } });
	await cli;
});

test('double approval: the decline link resumes it with approved = false', async () => {
	const [wf] = await env.importWorkflows([
		approvalWorkflow('e2e send and wait decline', {
			responseType: 'approval',
			approvalOptions: { values: { approvalType: 'double', approveLabel: 'Yes', disapproveLabel: 'No' } },
		}),
	]);
	await env.sandbox.control.reset();
	const { row, cli } = await startWaitingExecution(wf);
	const links = (await linksInSentMessage()).filter((l) => l.includes('/webhook-waiting/'));
	expect(links.length).toBeGreaterThanOrEqual(2);
	const decline = links.find((l) => /approved=false/.test(l));
	expect(decline).toBeDefined();
	expect((await fetch(decline!)).status).toBe(200);
	const exec = await waitFinished(row.id);
	expect(exec.status).toBe('success');
	expect(exec.node('Ask')!.items[0].json).toMatchObject({ data: { approved: false } });
	await cli;
});

test('free text: the form link takes an answer and the execution resumes with it', async () => {
	const [wf] = await env.importWorkflows([approvalWorkflow('e2e send and wait free text', { responseType: 'freeText' })]);
	await env.sandbox.control.reset();
	const { row, cli } = await startWaitingExecution(wf);
	const link = (await linksInSentMessage()).find((l) => l.includes('/webhook-waiting/'));
	expect(link).toBeDefined();
	const form = await fetch(link!);
	expect(form.status).toBe(200);
	expect(await form.text()).toContain('<form');
	const answer = await fetch(link!, {
		method: 'POST',
		headers: { 'content-type': 'application/x-www-form-urlencoded' },
		body: new URLSearchParams({ response: 'Refund only half, please' }).toString(),
	});
	expect(answer.status).toBe(200);
	const exec = await waitFinished(row.id);
	expect(exec.status).toBe('success');
	expect(exec.node('Ask')!.items[0].json).toMatchObject({ data: { text: 'Refund only half, please' } });
	await cli;
});
