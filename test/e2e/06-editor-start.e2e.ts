/**
 * The editor as `npm start` leaves it (issue 36), in headless Chromium: the examples imported and the two it publishes
 * (scripts/lib/examples.js), the sandbox's statuses off until chosen.
 *
 * - The trigger's panel says how to produce a test event (`npm run sandbox -- deliver --text hi`), which starts the
 *   listening trigger; it shows no https notice against the local sandbox, and "Execute step" with a gateway that is
 *   not local says the https rule (n8n's webhook URL here is http).
 * - With statuses on, a first campaign run before the send example: every execution of the status workflow succeeds
 *   (it creates the data table); then the delivery report records its rows, and the failures get their reason and
 *   hint; the data table's view shows no cell as "Empty" beside "Null".
 * - A Stop while statuses flow: the count of messages sent is kept with the execution (its custom data); how many left
 *   after the click is printed, not bounded: n8n reads its database before it aborts the execution, and under status
 *   load that read waits (docs/campaigns.md, A Stop while n8n is busy). A wrong API key is called a wrong API key,
 *   points at the credential's Test, and says how many were sent.
 *
 * Screenshots in test-artifacts/screenshots/start-*.png.
 */
import { spawn } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import { getExecution, listExecutions, query } from './support/db';
import { ACTION, context, n8n, setup, TRIGGER, util, type Env, type Workflow } from './support/env';
import { itemsCode } from './support/workflows';

/* eslint-disable @typescript-eslint/no-var-requires */
const examplesLib = require('../../scripts/lib/examples');
const { REPO_ROOT } = require('../../scripts/lib/util');
/* eslint-enable @typescript-eslint/no-var-requires */

const ctx = context();
const shots = join(ctx.artifacts, 'screenshots');
const describeBrowser = ctx.browserSkipped ? describe.skip : describe;
/** The checks the Send pipeline's rewrite is to make true (issue 36, points 1 and 3). */

const VIEWPORT = { width: 1440, height: 900 };
const FIRST_LOAD_MS = 120_000;

/** Brazilian mobile numbers of an area code that never wrote: the sandbox fails a free-form message to them (131047). */
const phones = (count: number, area: string) => Array.from({ length: count }, (_, i) => ({ phone: `55${area}98${String(1_000_000 + i).padStart(7, '0')}` }));

/** Manual Trigger → Code (the phones) → Message > Send of a text to each, with the given credential and options. */
function campaignWorkflow(name: string, count: number, area: string, options: Record<string, unknown> = {}): Workflow {
	return {
		name,
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ name: 'Recipients', type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0], parameters: { jsCode: itemsCode(phones(count, area)) } },
			{
				name: 'Send',
				type: ACTION,
				typeVersion: 1,
				position: [440, 0],
				parameters: { resource: 'message', operation: 'send', recipientPhoneNumber: '={{ $json.phone }}', messageType: 'text', textBody: 'Hi', ...options },
			},
		],
		connections: {
			Start: { main: [[{ node: 'Recipients', type: 'main', index: 0 }]] },
			Recipients: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
		},
		settings: { executionOrder: 'v1' },
	};
}

function triggerWorkflow(name: string): Workflow {
	return {
		name,
		nodes: [
			{ name: 'Gateway Trigger', type: TRIGGER, typeVersion: 1.1, position: [0, 0], parameters: { events: ['messages'] } },
			{ name: 'Received', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		],
		connections: { 'Gateway Trigger': { main: [[{ node: 'Received', type: 'main', index: 0 }]] } },
		settings: { executionOrder: 'v1' },
	};
}

describeBrowser('the editor after npm start', () => {
	let env: Env;
	let browser: any;
	let page: any;
	let step = 0;
	const ids: Record<string, string> = {};
	let statusWorkflowId: string;
	let sendExampleId: string;

	const shotOf = (target: any) => async (name: string) => {
		await target.screenshot({ path: join(shots, `start-${String(++step).padStart(2, '0')}-${name}.png`) }).catch(() => undefined);
	};
	/** The sandbox's status switch (scripts/lib/sandbox.js); without settings, what it delivered and who wrote. */
	const statuses = (settings?: object) => (env.sandbox.control as any).statuses(settings);

	/** A credential of its own, imported as n8n's CLI imports credentials. */
	const importCredential = async (id: string, name: string, data: Record<string, string>) => {
		const file = join(env.userFolder, `credential-${id}.json`);
		writeFileSync(file, JSON.stringify([{ id, name, type: 'messagingGatewayApi', data }]), { mode: 0o600 });
		await env.cli(['import:credentials', `--input=${file}`]);
	};

	/** Imports a workflow whose package nodes use the given credential (importWorkflows gives them the sandbox's). */
	const importWithCredential = async (wf: Workflow, credential: { id: string; name: string }) => {
		const prepared = n8n.prepareWorkflow(wf, 0);
		for (const node of prepared.nodes) if (String(node.type).startsWith('n8n-nodes-messaging-gateway.')) node.credentials = { messagingGatewayApi: credential };
		const dir = join(env.userFolder, `import-${prepared.id}`);
		mkdirSync(dir, { recursive: true });
		writeFileSync(join(dir, 'workflow.json'), JSON.stringify(prepared));
		await env.cli(['import:workflow', '--separate', `--input=${dir}`]);
		return prepared.id as string;
	};

	/** Opens a workflow in its own signed-in page, once its canvas shows. */
	const openWorkflow = async (id: string) => {
		const context = await browser.newContext({ viewport: VIEWPORT, storageState: await page.context().storageState() });
		const editor = await context.newPage();
		editor.setDefaultTimeout(30000);
		editor.setDefaultNavigationTimeout(FIRST_LOAD_MS);
		await editor.goto(`${env.inst.baseUrl}/workflow/${id}`);
		await editor.locator('[data-test-id="canvas-node"]').first().waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
		return { context, editor };
	};

	const finished = (workflowId: string) => listExecutions(env.db, workflowId).filter((row) => !['new', 'running', 'waiting'].includes(row.status));

	beforeAll(async () => {
		if (!ctx.chromium || !ctx.playwright) throw new Error(`No browser: ${ctx.browserUnavailable ?? 'unknown reason'}`);
		mkdirSync(shots, { recursive: true });
		env = await setup('editor-start');
		// As npm start: every example imported, the two of scripts/lib/examples.js published.
		const { imported, published } = await examplesLib.importAndPublish(env.inst);
		expect(published.map((wf: Workflow) => wf.name).sort()).toEqual(['Messaging Gateway: auto-reply bot', 'Messaging Gateway: delivery report, statuses']);
		statusWorkflowId = imported.find((wf: Workflow) => /delivery report, statuses/.test(wf.name)).id;
		sendExampleId = imported.find((wf: Workflow) => /send and record/.test(wf.name)).id;

		await importCredential('mgWrongKey0001', 'Messaging Gateway wrong key', { apiKey: 'sandbox-api-kye', phoneId: env.sandbox.phoneId, baseUrl: env.sandbox.url });
		await importCredential('mgRemoteGw0001', 'Messaging Gateway elsewhere', { apiKey: 'a-key', phoneId: '104857600000001', baseUrl: 'https://gateway.example.invalid' });
		const [trigger, firstCampaign, bigCampaign] = await env.importWorkflows([
			triggerWorkflow('e2e trigger panel'),
			campaignWorkflow('e2e first campaign', 30, '11', { campaign: { name: 'first-campaign' } }),
			campaignWorkflow('e2e campaign stopped', 1000, '21', { campaign: { name: 'stopped-campaign' } }),
		]);
		ids.trigger = trigger.id!;
		ids.firstCampaign = firstCampaign.id!;
		ids.bigCampaign = bigCampaign.id!;
		ids.remoteTrigger = await importWithCredential(triggerWorkflow('e2e trigger remote gateway'), { id: 'mgRemoteGw0001', name: 'Messaging Gateway elsewhere' });
		ids.wrongKey = await importWithCredential(campaignWorkflow('e2e wrong key', 50, '31'), { id: 'mgWrongKey0001', name: 'Messaging Gateway wrong key' });

		await env.start();
		await util.waitFor('the two published triggers to register', async () => (await env.sandbox.control.state()).webhooks.length === 2, {
			timeoutMs: 90000,
			intervalMs: 500,
		});
		await n8n.ensureOwner(env.inst);
		const { chromium } = require(ctx.playwright);
		browser = await chromium.launch({
			executablePath: ctx.chromium,
			headless: true,
			args: ['--no-sandbox', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
		});
		page = await browser.newPage({ viewport: VIEWPORT });
		page.setDefaultTimeout(30000);
		page.setDefaultNavigationTimeout(FIRST_LOAD_MS);
		await page.goto(`${env.inst.baseUrl}/signin`);
		await page.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]').first().fill(n8n.OWNER.email);
		await page.locator('input[type="password"]').first().fill(n8n.OWNER.password);
		await page.locator('input[type="password"]').first().press('Enter');
		await page.waitForURL((url: URL) => !url.pathname.includes('signin'), { timeout: 60000 });
	});

	afterAll(async () => {
		await browser?.close().catch(() => undefined);
		await env?.teardown();
	});

	describe('the trigger panel (point 7)', () => {
		test('says how to produce a test event, with no https notice against the local sandbox; deliver starts it', async () => {
			const { context: triggerContext, editor } = await openWorkflow(ids.trigger);
			const editorShot = shotOf(editor);
			try {
				await editor.locator('[data-test-id="canvas-node"][data-node-name="Gateway Trigger"]').first().dblclick();
				const ndv = editor.locator('[data-test-id="ndv"]').first();
				await ndv.getByText(/npm run sandbox -- deliver --text hi/).first().waitFor({ state: 'visible' });
				await editor.locator('[data-test-id="trigger-header"]').getByText('Send a WhatsApp message to the phone of your credential').waitFor({ state: 'visible' });
				expect(await ndv.innerText()).not.toMatch(/WEBHOOK_URL|only calls https/);
				await editorShot('trigger-panel');
				await editor.locator('[data-test-id="trigger-execute-button"]').first().click();
				await editor.locator('[data-test-id="trigger-listening"]').waitFor({ state: 'visible', timeout: 60000 });
				await util.waitFor('the test webhook at the sandbox', async () => ((await env.sandbox.control.state()).webhooks as any[]).some((w) => w.endpoint.includes('/webhook-test/')), {
					timeoutMs: 30000,
					intervalMs: 300,
				});
				await editorShot('trigger-listening');
				// The command the notice names, as a user runs it in a terminal.
				const output = await runDeliver(['--url', env.sandbox.url, '--text', 'hi', '--wait', '0']);
				expect(output).toMatch(/Delivered: 200 .*webhook-test/);
				await editor.getByText('hi', { exact: true }).first().waitFor({ state: 'visible', timeout: 60000 });
				await editorShot('trigger-event');
			} finally {
				await editorShot('trigger-end');
				await triggerContext.close().catch(() => undefined);
			}
		});

		test('Execute step with a gateway that is not local, n8n on http: the https rule is said then, not before', async () => {
			const { context: remoteContext, editor } = await openWorkflow(ids.remoteTrigger);
			const editorShot = shotOf(editor);
			try {
				await editor.locator('[data-test-id="canvas-node"][data-node-name="Gateway Trigger"]').first().dblclick();
				const ndv = editor.locator('[data-test-id="ndv"]').first();
				await ndv.getByText(/npm run sandbox -- deliver --text hi/).first().waitFor({ state: 'visible' });
				expect(await ndv.innerText()).not.toMatch(/only delivers to https/);
				await editor.locator('[data-test-id="trigger-execute-button"]').first().click();
				await editor.getByText(/only delivers to https addresses/).first().waitFor({ state: 'visible', timeout: 60000 });
				await editorShot('trigger-remote-https');
			} finally {
				await remoteContext.close().catch(() => undefined);
			}
		});
	});

	describe('the examples npm start publishes, in any order (point 2)', () => {
		beforeAll(async () => {
			await statuses({ enabled: true, delayMs: 300 });
		});
		afterAll(async () => {
			await statuses({ enabled: false });
		});

		test('a first campaign before the send example: every status execution succeeds and the table is created', async () => {
			const { context: campaignContext, editor } = await openWorkflow(ids.firstCampaign);
			const editorShot = shotOf(editor);
			try {
				const statusRunsBefore = listExecutions(env.db, statusWorkflowId).length;
				await editor.locator('[data-test-id="execute-workflow-button"]').first().click();
				const [run] = await util.waitFor('the campaign to end', async () => (finished(ids.firstCampaign).length ? finished(ids.firstCampaign) : null), {
					timeoutMs: 120000,
					intervalMs: 500,
				});
				expect(getExecution(env.db, run.id).status).toBe('success');
				await editorShot('first-campaign');
				// Every text fails (the numbers never wrote): one status execution each, none failed.
				const runs = await util.waitFor(
					'the 30 status executions',
					async () => {
						const fresh = listExecutions(env.db, statusWorkflowId).slice(statusRunsBefore);
						return fresh.length >= 30 && fresh.every((row) => !['new', 'running', 'waiting'].includes(row.status)) ? fresh : null;
					},
					{ timeoutMs: 180000, intervalMs: 1000 },
				);
				expect(runs.map((row: { status: string }) => row.status)).toEqual(runs.map(() => 'success'));
				expect(query(env.db, "SELECT id FROM data_table WHERE name = 'Message delivery'")).toHaveLength(1);
			} finally {
				await campaignContext.close().catch(() => undefined);
			}
		});

		test('then the delivery report: a row per message, each failure with its reason and hint, no "Empty" beside "Null"', async () => {
			const { context: reportContext, editor } = await openWorkflow(sendExampleId);
			const editorShot = shotOf(editor);
			try {
				const before = finished(sendExampleId).length;
				await editor.locator('[data-test-id="execute-workflow-button"]').first().click();
				const run = await util.waitFor('the send example to end', async () => finished(sendExampleId)[before] ?? null, { timeoutMs: 120000, intervalMs: 500 });
				expect(getExecution(env.db, run.id).status).toBe('success');
				const [table] = query(env.db, "SELECT id FROM data_table WHERE name = 'Message delivery'");
				// The customers who never wrote (the trigger check above wrote from one of the example's numbers).
				const wrote = new Set(Object.keys(((await statuses()) as { lastWrote: Record<string, number> }).lastWrote));
				const rows = await util.waitFor(
					'the rows of the customers who never wrote to fail, with the fallback sent',
					async () => {
						const now = query(env.db, `SELECT * FROM data_table_user_${String(table.id)} ORDER BY id`);
						const outside = now.filter((row) => !wrote.has(String(row.recipient)));
						return now.length === 3 && outside.length > 0 && outside.every((row) => row.status === 'failed' && row.fallback === 'template sent') ? outside : null;
					},
					{ timeoutMs: 120000, intervalMs: 1000 },
				);
				for (const row of rows) expect(row).toMatchObject({ errorCode: '131047', reason: expect.stringMatching(/24 hours/), hint: expect.stringMatching(/template/i) });

				// The table as a user opens it, wide enough that the grid draws every column (it draws only those in view).
				await editor.setViewportSize({ width: 3200, height: 900 });
				await editor.goto(`${env.inst.baseUrl}/home/datatables`);
				await editor.locator('[data-test-id="data-table-card"]', { hasText: 'Message delivery' }).first().click();
				const grid = editor.locator('[data-test-id="data-table-grid"]').first();
				try {
					await grid.getByText(/Send an approved template instead/).first().waitFor({ state: 'visible', timeout: 60000 });
				} finally {
					await editorShot('delivery-table');
				}
				const emptyCells = await grid.locator('.n8n-empty-value').allInnerTexts();
				expect(emptyCells.map((text: string) => text.trim()).filter((text: string) => text !== 'Null')).toEqual([]);
			} finally {
				await reportContext.close().catch(() => undefined);
			}
		});
	});

	describe('a Stop while statuses flow (point 1)', () => {
		const LATENCY_MS = 500;
		let sentAfterClick: number[] = [];
		let stoppedId: number;

		test('a campaign stopped 2 s after Execute, statuses on: the execution is canceled, nothing is sent twice', async () => {
			await statuses({ enabled: true, delayMs: 300 });
			await env.sandbox.control.latency(LATENCY_MS);
			const { context: stopContext, editor } = await openWorkflow(ids.bigCampaign);
			const editorShot = shotOf(editor);
			try {
				await editor.locator('[data-test-id="execute-workflow-button"]').first().click();
				await util.sleep(2000);
				const clickedAt = Date.now();
				await editor.locator('[data-test-id="stop-execution-button"]').first().click();
				await editorShot('stop-clicked');
				const run = await util.waitFor('the campaign to end', async () => finished(ids.bigCampaign)[0] ?? null, { timeoutMs: 180000, intervalMs: 500 });
				stoppedId = run.id;
				await editorShot('stopped');
				expect(getExecution(env.db, run.id).status).toBe('canceled');
				await util.sleep(LATENCY_MS * 2);
				const sent = (await env.requests()).filter((r) => r.path === '/api/Messages' && r.body?.text?.body === 'Hi' && String(r.body?.to).startsWith('552198'));
				sentAfterClick = sent.filter((r) => Number(r.receivedAt) > clickedAt).map((r) => Number(r.receivedAt) - clickedAt);
				const recipients = sent.map((r) => r.body.to);
				expect(new Set(recipients).size).toBe(recipients.length);
				console.log(`stop e2e: ${sent.length} sent, ${sentAfterClick.length} after the click (ms after it: ${sentAfterClick.join(', ')})`);
			} finally {
				await env.sandbox.control.latency(0);
				await statuses({ enabled: false });
				await stopContext.close().catch(() => undefined);
			}
		});

		test('... the count sent is kept with the stopped execution (its custom data)', async () => {
			const session = await n8n.login(env.inst);
			const execution = await session.request('GET', `/rest/executions/${stoppedId}`);
			expect(execution.customData).toEqual(expect.objectContaining({ messagesSent: expect.stringMatching(/^\d+ of 1000$/) }));
		});
	});

	describe('a wrong API key (point 3)', () => {
		let description = '';
		let message = '';

		test('50 texts with a mistyped key: the run stops, and the error is not about an expired access token', async () => {
			const { context: keyContext, editor } = await openWorkflow(ids.wrongKey);
			const editorShot = shotOf(editor);
			try {
				await editor.locator('[data-test-id="execute-workflow-button"]').first().click();
				const [run] = await util.waitFor('the run to end', async () => (finished(ids.wrongKey).length ? finished(ids.wrongKey) : null), { timeoutMs: 120000, intervalMs: 500 });
				const execution = getExecution(env.db, run.id);
				expect(execution.status).toBe('error');
				const error = execution.node('Send')!.error!;
				message = String(error.message);
				description = String(error.description ?? '');
				expect(message).toMatch(/401/);
				expect(`${message} ${description}`).not.toMatch(/access token|renew/i);
				await editor.locator('[data-test-id="canvas-node"][data-node-name="Send"]').first().dblclick();
				await editor.getByText(/401/).first().waitFor({ state: 'visible', timeout: 30000 });
				await editorShot('wrong-key');
				// The gateway was asked at most Parallel Requests times, and all were refused.
				const tried = (await env.requests()).filter((r) => r.path === '/api/Messages' && String(r.body?.to).startsWith('553198'));
				expect(tried.length).toBeLessThanOrEqual(20);
				expect(tried.every((r) => r.status === 401)).toBe(true);
			} finally {
				await keyContext.close().catch(() => undefined);
			}
		});

		test('... the error says it is the credential\'s API key, points at its Test button, and how many of the 50 were sent', async () => {
			expect(`${message} ${description}`).toMatch(/API Key/);
			expect(description).toMatch(/Test/);
			expect(`${message} ${description}`).toMatch(/0 of 50/);
		});
	});
});

/** `npm run sandbox -- deliver ...` as a terminal runs it (ts-node, without npm in between); its output. */
function runDeliver(args: string[]): Promise<string> {
	return new Promise((resolve, reject) => {
		const child = spawn(process.execPath, [join(REPO_ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', join(REPO_ROOT, 'test', 'sandbox', 'cli.ts'), 'deliver', ...args], {
			cwd: REPO_ROOT,
			env: { ...process.env, SANDBOX_PORT: '' },
		});
		let output = '';
		child.stdout.on('data', (chunk) => (output += chunk));
		child.stderr.on('data', (chunk) => (output += chunk));
		child.on('error', reject);
		child.on('exit', (code) => (code === 0 ? resolve(output) : reject(new Error(`deliver exited ${code}: ${output}`))));
	});
}

if (ctx.browserSkipped) {
	test.skip(`editor check skipped: ${ctx.browserSkipped}`, () => undefined);
}
