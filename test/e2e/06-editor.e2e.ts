/**
 * The editor in headless Chromium (Debian's chromium driven by playwright-core): sign in as the owner, find the
 * node by searching "whatsapp" (its own description, "Send a message" first among the actions), add it, switch
 * through every message type and check that the right fields show (and the others' do not), send a text and read
 * the output table (ids first), and open the Human in the Loop tool n8n makes of the node (one Message field, n8n's). Screenshots go to
 * test-artifacts/screenshots/.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ACTION, context, n8n, setup, type Env } from './support/env';

const ctx = context();
const shots = join(ctx.artifacts, 'screenshots');

/** Message type (display name) → fields (parameter names) that must show. */
const FIELDS: Record<string, string[]> = {
	Text: ['textBody'],
	Template: ['templateName', 'templateLanguage'],
	'Interactive Buttons': ['buttonsBody', 'buttonsFooter'],
	'Interactive List': ['listHeader', 'listBody', 'listFooter', 'listButtonLabel'],
	Contacts: ['contactsInputMode'],
	Location: ['latitude', 'longitude', 'locationName', 'locationAddress'],
	Image: ['mediaSource', 'binaryPropertyName', 'mediaCaption'],
	Audio: ['mediaSource', 'binaryPropertyName'],
	Video: ['mediaSource', 'binaryPropertyName', 'mediaCaption'],
	Document: ['mediaSource', 'binaryPropertyName', 'mediaCaption', 'documentFilename'],
	Sticker: ['mediaSource', 'binaryPropertyName'],
	Reaction: ['reactionMessageId', 'reactionEmoji'],
};
/** Collections render without a parameter-input test id: check their labels. */
const LABELS: Record<string, string[]> = {
	Template: ['Body Parameters', 'URL Button Parameters'],
	'Interactive Buttons': ['Reply Buttons'],
	'Interactive List': ['Sections'],
	Contacts: ['Contact Cards'],
};
const ALL_FIELDS = [...new Set(Object.values(FIELDS).flat())];

const describeBrowser = ctx.browserSkipped ? describe.skip : describe;

describeBrowser('editor', () => {
	let env: Env;
	let browser: any;
	let page: any;
	let step = 0;
	let ndvOpen = false;
	let workflowId: string;
	let hitlWorkflowId: string;

	const shot = async (name: string) => {
		step++;
		await page.screenshot({ path: join(shots, `${String(step).padStart(2, '0')}-${name}.png`) }).catch(() => undefined);
	};

	beforeAll(async () => {
		if (!ctx.chromium || !ctx.playwright) throw new Error(`No browser: ${ctx.browserUnavailable ?? 'unknown reason'}`);
		rmSync(shots, { recursive: true, force: true });
		mkdirSync(shots, { recursive: true });
		env = await setup('editor');
		// Start from a workflow with a Manual Trigger: on an empty canvas the node creator offers triggers only.
		const [wf] = await env.importWorkflows([
			{
				name: 'e2e editor',
				nodes: [{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} }],
				connections: {},
			},
		]);
		workflowId = wf.id!;
		// The review tool n8n makes of a node with a send-and-wait operation, as an AI Agent's tool would use it.
		const [hitl] = await env.importWorkflows([
			{
				name: 'e2e editor human review',
				nodes: [
					{
						name: 'Ask a person',
						type: `${ACTION}HitlTool`,
						typeVersion: 1,
						position: [0, 0],
						parameters: {},
						credentials: { messagingGatewayApi: { id: n8n.CREDENTIAL_ID, name: n8n.CREDENTIAL_NAME } },
					},
				],
				connections: {},
			},
		]);
		hitlWorkflowId = hitl.id!;
		await env.start();
		await n8n.ensureOwner(env.inst);
		// eslint-disable-next-line @typescript-eslint/no-var-requires
		const { chromium } = require(ctx.playwright);
		browser = await chromium.launch({
			executablePath: ctx.chromium,
			headless: true,
			args: [
				'--no-sandbox',
				'--disable-gpu',
				'--no-first-run',
				'--disable-background-networking',
				'--disable-component-update',
				'--disable-sync',
			], // launch() gives every run a fresh profile folder of its own
		});
		page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
		page.setDefaultTimeout(30000);
	});

	afterAll(async () => {
		await browser?.close().catch(() => undefined);
		await env?.teardown();
	});

	test('sign in as the owner', async () => {
		await page.goto(`${env.inst.baseUrl}/signin`);
		await page.locator('input[type="email"], input[name="emailOrLdapLoginId"], input[name="email"]').first().fill(n8n.OWNER.email);
		await page.locator('input[type="password"]').first().fill(n8n.OWNER.password);
		await shot('signin');
		await page.locator('input[type="password"]').first().press('Enter');
		await page.waitForURL((url: URL) => !url.pathname.includes('signin'), { timeout: 30000 });
		await shot('signed-in');
	});

	test('add the Messaging Gateway node with "Send a message"', async () => {
		await page.goto(`${env.inst.baseUrl}/workflow/${workflowId}`);
		await page.getByText('Start', { exact: true }).first().waitFor({ state: 'visible' });
		await shot('workflow');
		// The "+" after the trigger opens the node creator for regular nodes.
		const plus = page.locator('[data-test-id="canvas-handle-plus"], [data-test-id="canvas-plus-button"]').first();
		if (await plus.count()) await plus.click();
		else await page.keyboard.press('Tab');
		const search = page.locator('[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"], #node-creator-search-bar').first();
		await search.fill('whatsapp');
		const item = page.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Messaging Gateway$/ }).first();
		await item.waitFor({ state: 'visible' });
		await shot('node-creator-search');
		// n8n lists the action node and the trigger as one entry, described with the trigger's description: it must
		// say what the node does, not only when a workflow starts.
		await page.getByText(/WhatsApp through the messaging gateway: send every message type/).first().waitFor({ state: 'visible', timeout: 10000 });
		expect(await page.getByText(/^Starts the workflow when/).count()).toBe(0);
		await item.click();
		// The action list (actions render as items of their own, under a heading per resource).
		const actions = page.locator('[data-test-id="node-creator-action-item"]:visible, [data-test-id="node-creator-item-name"]:visible');
		await actions.filter({ hasText: /^\s*Send a message\s*$/ }).first().waitFor({ state: 'visible' });
		await shot('node-creator-actions');
		// The search results slide out while the action list slides in: read the list once the search results are gone.
		const readLabels = async () => (await actions.allInnerTexts()).map((text: string) => text.trim().split('\n')[0].trim());
		let labels = await readLabels();
		for (let tries = 0; tries < 50 && labels.some((label: string) => /WhatsApp|Messaging Gateway/.test(label)); tries++) {
			await page.waitForTimeout(200);
			labels = await readLabels();
		}
		// Message first, Send first: the most used actions open the list.
		expect(labels.slice(0, 3)).toEqual(['Send a message', 'Send a message and wait for response', 'Mark a message as read']);
		await actions.filter({ hasText: /^\s*Send a message\s*$/ }).first().click();
		await page.locator('[data-test-id="parameter-input-messageType"]').waitFor({ state: 'visible' });
		ndvOpen = true;
		await shot('ndv-send');
	});

	for (const [type, fields] of Object.entries(FIELDS)) {
		test(`message type "${type}" shows its fields`, async () => {
			if (!ndvOpen) throw new Error('The node was not added; see the test before');
			await page.locator('[data-test-id="parameter-input-messageType"]').click();
			// Options show a headline and a description; match the headline exactly.
			await page
				.locator('[data-test-id="parameter-input-item"]:visible')
				.filter({ has: page.locator('.option-headline', { hasText: new RegExp(`^\\s*${type}\\s*$`) }) })
				.first()
				.click();
			for (const field of fields) {
				await page.locator(`[data-test-id="parameter-input-${field}"]`).first().waitFor({ state: 'visible', timeout: 10000 });
			}
			for (const label of LABELS[type] ?? []) {
				await page.getByText(label, { exact: true }).first().waitFor({ state: 'visible', timeout: 10000 });
			}
			for (const other of ALL_FIELDS.filter((f) => !fields.includes(f))) {
				expect(await page.locator(`[data-test-id="parameter-input-${other}"]`).count()).toBe(0);
			}
			await shot(`type-${type.toLowerCase().replace(/\s+/g, '-')}`);
		});
	}

	test('template From Template: the Template ID is asked, the name and language to type are hidden', async () => {
		if (!ndvOpen) throw new Error('The node was not added; see the test before');
		const choose = async (parameter: string, option: string) => {
			await page.locator(`[data-test-id="parameter-input-${parameter}"]`).click();
			await page
				.locator('[data-test-id="parameter-input-item"]:visible')
				.filter({ has: page.locator('.option-headline', { hasText: new RegExp(`^\\s*${option}\\s*$`) }) })
				.first()
				.click();
		};
		await choose('messageType', 'Template');
		await page.locator('[data-test-id="parameter-input-templateName"]').first().waitFor({ state: 'visible', timeout: 10000 });
		await choose('templateParameterSource', 'From Template');
		await page.locator('[data-test-id="parameter-input-templateId"]').first().waitFor({ state: 'visible', timeout: 10000 });
		await page.locator('[data-test-id="parameter-input-templateName"]').first().waitFor({ state: 'detached', timeout: 10000 });
		expect(await page.locator('[data-test-id="parameter-input-templateLanguage"]').count()).toBe(0);
		await shot('template-from-template');
	});

	/** Picks an option of an options parameter by its headline. */
	const choose = async (parameter: string, headline: string) => {
		await page.locator(`[data-test-id="parameter-input-${parameter}"]`).click();
		await page
			.locator('[data-test-id="parameter-input-item"]:visible')
			.filter({ has: page.locator('.option-headline', { hasText: new RegExp(`^\\s*${headline}\\s*$`) }) })
			.first()
			.click();
	};

	test('a sent text shows messageId, waId and to first in the output table', async () => {
		if (!ndvOpen) throw new Error('The node was not added; see the test before');
		await choose('messageType', 'Text');
		await page.locator('[data-test-id="parameter-input-recipientPhoneNumber"] input').first().fill('+55 11 98888-7777');
		await page.locator('[data-test-id="parameter-input-textBody"] textarea').first().fill('Hello from the editor check');
		await shot('send-filled');
		await page.locator('[data-test-id="node-execute-button"]').first().click();
		// The output shows as a table (n8n's default for a node's output); the input panel has no table (no input).
		const headers = page.locator('th').filter({ visible: true });
		try {
			await headers.filter({ hasText: 'messageId' }).first().waitFor({ state: 'visible', timeout: 90000 });
		} finally {
			await shot('send-output-table');
		}
		const names = (await headers.allInnerTexts()).map((text: string) => text.trim()).filter(Boolean);
		expect(names.slice(0, 3)).toEqual(['messageId', 'waId', 'to']);
		const sent = (await env.requests()).filter((r) => r.method === 'POST' && /messages/i.test(r.path));
		expect(sent.at(-1)?.body?.text?.body).toBe('Hello from the editor check');
	});

	test('the Human in the Loop tool shows one Message field, with n8n\'s text about the tool call', async () => {
		// A page of its own, signed in as the first: the first workflow has unsaved changes.
		const reviewContext = await browser.newContext({ viewport: { width: 1440, height: 900 }, storageState: await page.context().storageState() });
		const review = await reviewContext.newPage();
		review.setDefaultTimeout(30000);
		try {
			await review.goto(`${env.inst.baseUrl}/workflow/${hitlWorkflowId}`);
			const node = review.getByText('Ask a person', { exact: true }).first();
			await node.waitFor({ state: 'visible' });
			await review.locator('[data-test-id="canvas-node"]', { hasText: 'Ask a person' }).first().dblclick();
			const message = review.locator('[data-test-id="parameter-input-message"]');
			await message.first().waitFor({ state: 'visible' });
			await review.screenshot({ path: join(shots, `${String(++step).padStart(2, '0')}-human-review-tool.png`) }).catch(() => undefined);
			expect(await message.count()).toBe(1);
			const ndv = review.locator('[data-test-id="ndv"]').first();
			expect(await ndv.getByText('Message', { exact: true }).count()).toBe(1);
			expect(await ndv.textContent()).toMatch(/\$tool\.name/);
			expect(await review.locator('[data-test-id="parameter-input-responseType"]').count()).toBe(0);
			await review.locator('[data-test-id="parameter-input-recipientPhoneNumber"]').first().waitFor({ state: 'visible' });
		} finally {
			await review.screenshot({ path: join(shots, `${String(++step).padStart(2, '0')}-human-review-end.png`) }).catch(() => undefined);
			await reviewContext.close().catch(() => undefined);
		}
	});
});

if (ctx.browserSkipped) {
	test.skip(`editor check skipped: ${ctx.browserSkipped}`, () => undefined);
}
