/**
 * The editor in headless Chromium (Debian's chromium driven by playwright-core): sign in as the owner, find the
 * node by searching "whatsapp" (its own description, "Send a message" first among the actions), add it, switch
 * through every message type and check that the right fields show (and the others' do not), send a text and read
 * the output table (ids first), open the Human in the Loop tool n8n makes of the node (one Message field, n8n's), and
 * open Send and Wait with each response type (its fields, and only its own options in the "Add option" menu), and
 * type a template's Body Text: one Body Examples field per placeholder appears, and what is filled in is sent; a Body
 * Text pasted whole (n8n makes it an expression) and a Template ID the gateway does not have each get a notice that
 * says so; the Sending group's add menu shows whole names and its description the defaults.
 * Screenshots go to test-artifacts/screenshots/.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { ACTION, context, n8n, setup, util, type Env } from './support/env';
import { chain } from './support/workflows';

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

const VIEWPORT = { width: 1440, height: 900 };
/** The editor's first load fetches megabytes of scripts: on a loaded CI machine that alone can take a minute. */
const FIRST_LOAD_MS = 120_000;

function withTimeouts(page: any) {
	page.setDefaultTimeout(30000);
	page.setDefaultNavigationTimeout(FIRST_LOAD_MS);
	return page;
}

describeBrowser('editor', () => {
	let env: Env;
	let browser: any;
	let page: any;
	let step = 0;
	let ndvOpen = false;
	let workflowId: string;
	let emptyWorkflowId: string;
	let fromTemplateWorkflowId: string;
	let hitlWorkflowId: string;
	let sendAndWaitWorkflowId: string;
	let templateWorkflowId: string;
	let missingTemplateWorkflowId: string;
	let pasteTemplateWorkflowId: string;

	/** A numbered screenshot of `target` (a page or a part of one); a failed screenshot does not fail the check. */
	const shotOf = (target: any) => async (name: string) => {
		await target.screenshot({ path: join(shots, `${String(++step).padStart(2, '0')}-${name}.png`) }).catch(() => undefined);
	};
	const shot = async (name: string) => await shotOf(page)(name);

	/**
	 * A page of its own in a new browser context, signed in as the first page's user: the first page's workflow has
	 * unsaved changes, and a second editor of one workflow would make it read-only.
	 */
	const signedInPage = async () => {
		const context = await browser.newContext({ viewport: VIEWPORT, storageState: await page.context().storageState() });
		return { context, page: withTimeouts(await context.newPage()) };
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
		// An empty workflow: its node creator offers triggers.
		const [empty] = await env.importWorkflows([{ name: 'e2e editor empty', nodes: [], connections: {} }]);
		emptyWorkflowId = empty.id!;
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
					},
				],
				connections: {},
			},
		]);
		hitlWorkflowId = hitl.id!;
		// Send and Wait with each response type, as a user left them: approval labels set, two form texts set.
		const sendAndWait = (name: string, y: number, parameters: Record<string, unknown>) => ({
			name,
			type: ACTION,
			typeVersion: 1,
			position: [240, y],
			parameters: { resource: 'message', operation: 'sendAndWait', recipientPhoneNumber: '5511988887777', ...parameters },
		});
		const [waiting] = await env.importWorkflows([
			{
				name: 'e2e editor send and wait',
				nodes: [
					{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
					sendAndWait('Ask for approval', -120, {
						message: 'Refund order #12345?',
						responseType: 'approval',
						approvalOptions: { values: { approvalType: 'double', approveLabel: 'Refund', disapproveLabel: 'Keep' } },
					}),
					sendAndWait('Ask for an answer', 120, {
						message: 'Why was the order returned?',
						responseType: 'freeText',
						options: { messageButtonLabel: 'Reply', responseFormTitle: 'Return reason' },
					}),
				],
				connections: {},
			},
		]);
		sendAndWaitWorkflowId = waiting.id!;
		const [template] = await env.importWorkflows([
			chain('e2e editor template create', [
				{
					name: 'Create template',
					typeVersion: 1.1,
					parameters: { resource: 'template', operation: 'create', name: 'order_shipped', language: 'en_US', category: 'UTILITY' },
				},
			]),
		]);
		templateWorkflowId = template.id!;
		// A template whose URL button example is long: its field label in Values to Send must not widen the panel.
		const created = await fetch(`${env.sandbox.url}/api/Templates`, {
			method: 'POST',
			headers: { apikey: env.sandbox.apiKey, version: '5.0', 'content-type': 'application/json' },
			body: JSON.stringify({
				name: 'e2e_long_example',
				language: 'en_US',
				category: 'UTILITY',
				components: [
					{ type: 'BODY', text: 'Hi {{1}}, your order shipped', example: { body_text: [['Ana']] } },
					{
						type: 'BUTTONS',
						buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example/{{1}}', example: ['https://shop.example/orders/2026/11/25/tracking?id=1234567890abcdef'] }],
					},
				],
			}),
		});
		const longTemplateId = ((await created.json()) as { id: string }).id;
		const [fromTemplate] = await env.importWorkflows([
			chain('e2e editor template message from id', [
				{
					name: 'Send template',
					typeVersion: 1.1,
					parameters: { resource: 'message', operation: 'send', recipientPhoneNumber: '5511988887777', messageType: 'template', templateParameterSource: 'fromTemplate', templateId: longTemplateId },
				},
			]),
		]);
		fromTemplateWorkflowId = fromTemplate.id!;
		// A Template ID the gateway does not have (a typo): the panel must say so (issue 30).
		const [missingTemplate] = await env.importWorkflows([
			chain('e2e editor template message missing id', [
				{
					name: 'Send template',
					typeVersion: 1.1,
					parameters: { resource: 'message', operation: 'send', recipientPhoneNumber: '5511988887777', messageType: 'template', templateParameterSource: 'fromTemplate', templateId: '99999' },
				},
			]),
		]);
		missingTemplateWorkflowId = missingTemplate.id!;
		// Template > Create with an empty Body Text, for the paste (the other template workflow gets typed into).
		const [pasteTemplate] = await env.importWorkflows([
			chain('e2e editor template paste', [
				{
					name: 'Create template',
					typeVersion: 1.1,
					parameters: { resource: 'template', operation: 'create', name: 'order_ready', language: 'en_US', category: 'UTILITY' },
				},
			]),
		]);
		pasteTemplateWorkflowId = pasteTemplate.id!;
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
		page = withTimeouts(await browser.newPage({ viewport: VIEWPORT }));
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
		await page.getByText('Start', { exact: true }).first().waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
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

	test('the node creator offers the trigger only "On messages", the one event the gateway delivers', async () => {
		const { context: creatorContext, page: creator } = await signedInPage();
		const creatorShot = shotOf(creator);
		try {
			await creator.goto(`${env.inst.baseUrl}/workflow/${emptyWorkflowId}`);
			const add = creator.locator('[data-test-id="canvas-add-button"]').first();
			await add.waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
			await add.click();
			const search = creator.locator('[data-test-id="node-creator-search-bar"] input, input[data-test-id="node-creator-search-bar"], #node-creator-search-bar').first();
			await search.fill('whatsapp');
			await creator.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Messaging Gateway/ }).first().click();
			const events = creator.locator('[data-test-id="node-creator-action-item"]:visible, [data-test-id="node-creator-item-name"]:visible');
			await events.filter({ hasText: /^\s*On messages\s*$/ }).first().waitFor({ state: 'visible' });
			await creatorShot('node-creator-trigger-events');
			const labels = ((await events.allInnerTexts()) as string[]).map((text) => text.trim().split('\n')[0].trim());
			expect(labels.filter((label) => /^On /.test(label))).toEqual(['On messages']);
			expect(await creator.getByText(/not delivered yet/i).count()).toBe(0);
		} finally {
			await creatorShot('node-creator-trigger-end');
			await creatorContext.close().catch(() => undefined);
		}
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
		// Where the ID comes from, said under the field.
		await page.getByText(/Where to find it: the id field in the output of Template > Create/).first().waitFor({ state: 'visible', timeout: 10000 });
		await shot('template-from-template');
	});

	test('one options group for the pace of a run: Sending (with the batch options), no Batching group', async () => {
		if (!ndvOpen) throw new Error('The node was not added; see the test before');
		// A collection's "Add ... Option" is the placeholder of a select, not text: read both from the panel.
		await page.waitForFunction(() => (globalThis as any).document.querySelector('[data-test-id="ndv"]')?.innerText.includes('Sending'), undefined, { timeout: 10000 });
		const words = await page.evaluate(() => {
			const ndv = (globalThis as any).document.querySelector('[data-test-id="ndv"]');
			const placeholders = [...ndv.querySelectorAll('[placeholder]')].map((element: any) => element.getAttribute('placeholder'));
			return `${ndv.innerText}\n${placeholders.join('\n')}`;
		});
		expect(words).toContain('Add Sending Option');
		expect(words).not.toMatch(/Batching/);
		await shot('sending-options');
		// The add menu lists every option with its whole name (n8n cut "Minimum Interval per Recipi..." short).
		const add = page.locator('[data-test-id="ndv"] [placeholder="Add Sending Option"]').first();
		await add.scrollIntoViewIfNeeded();
		await add.click();
		const items = page.locator('.el-select-dropdown__item:visible, [data-test-id="parameter-input-item"]:visible');
		await items.first().waitFor({ state: 'visible', timeout: 10000 });
		const names = ((await items.allInnerTexts()) as string[]).map((text) => text.trim().split('\n')[0].trim());
		expect(names).toEqual(
			expect.arrayContaining(['Batch Interval (Ms)', 'Interval per Recipient (Ms)', 'Items per Batch', 'Messages per Second', 'Parallel Requests', 'Timeout (Seconds)']),
		);
		const cut = await items.evaluateAll((elements: any[]) => elements.filter((element) => element.scrollWidth > element.clientWidth + 1).map((element) => element.innerText.trim()));
		expect(cut).toEqual([]);
		await shot('sending-options-menu');
		await page.keyboard.press('Escape');
		// The group's description, n8n's tooltip on its label, says the defaults and how the options combine.
		const label = page.locator('[data-test-id="ndv"] [data-test-id="input-label"]', { hasText: /^\s*Sending/ }).first();
		await label.hover();
		// n8n's label shows its info icon on hover, and the description as the icon's tooltip.
		await label.locator('[class*="infoIcon"]').first().hover();
		await page.getByText(/By default 20 at a time, at most 80 per second, no batches\..*the slower one decides/).first().waitFor({ state: 'visible', timeout: 10000 });
		await shot('sending-options-description');
	});

	test('Values to Send stays inside the panel when a placeholder\'s example is a long URL', async () => {
		const { context: mapperContext, page: editor } = await signedInPage();
		const editorShot = shotOf(editor);
		try {
			await editor.goto(`${env.inst.baseUrl}/workflow/${fromTemplateWorkflowId}`);
			const node = editor.locator('[data-test-id="canvas-node"][data-node-name="Send template"]').first();
			await node.waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
			await node.dblclick();
			await editor.getByText(/Button 1 "Track" URL \{\{1\}\}/).first().waitFor({ state: 'visible', timeout: 30000 });
			await editorShot('values-to-send-long-example');
			// Any element of the panel that scrolls sideways because its content is wider than it.
			const overflowing = await editor.evaluate(() => {
				const browser = globalThis as any;
				return [...browser.document.querySelectorAll('[data-test-id="ndv"] *')]
					.filter((element: any) => {
						const overflowX = browser.getComputedStyle(element).overflowX;
						return (overflowX === 'auto' || overflowX === 'scroll') && element.scrollWidth > element.clientWidth + 1;
					})
					.map((element: any) => `${element.tagName}.${element.className} ${element.scrollWidth}>${element.clientWidth}`);
			});
			expect(overflowing).toEqual([]);
		} finally {
			await mapperContext.close().catch(() => undefined);
		}
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
		const { context: reviewContext, page: review } = await signedInPage();
		const reviewShot = shotOf(review);
		try {
			await review.goto(`${env.inst.baseUrl}/workflow/${hitlWorkflowId}`);
			const node = review.getByText('Ask a person', { exact: true }).first();
			await node.waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
			await review.locator('[data-test-id="canvas-node"]', { hasText: 'Ask a person' }).first().dblclick();
			const message = review.locator('[data-test-id="parameter-input-message"]');
			await message.first().waitFor({ state: 'visible' });
			await reviewShot('human-review-tool');
			expect(await message.count()).toBe(1);
			const ndv = review.locator('[data-test-id="ndv"]').first();
			expect(await ndv.getByText('Message', { exact: true }).count()).toBe(1);
			expect(await ndv.textContent()).toMatch(/\$tool\.name/);
			expect(await review.locator('[data-test-id="parameter-input-responseType"]').count()).toBe(0);
			await review.locator('[data-test-id="parameter-input-recipientPhoneNumber"]').first().waitFor({ state: 'visible' });
		} finally {
			await reviewShot('human-review-end');
			await reviewContext.close().catch(() => undefined);
		}
	});

	describe('Send and Wait for Response', () => {
		// A page of its own, on a workflow no other page has open.
		let reviewContext: any;
		let panel: any;
		const panelShot = async (name: string) => await shotOf(panel)(name);
		const input = (parameter: string) => panel.locator(`[data-test-id="parameter-input-${parameter}"]`);
		const valueOf = async (parameter: string) => input(parameter).locator('input, textarea').first().inputValue();
		/** Opens a node of the workflow from the canvas and waits for its Message field. */
		const openNode = async (name: string) => {
			const ndv = panel.locator('[data-test-id="ndv"]');
			if (await ndv.isVisible()) {
				await panel.locator('[data-test-id="ndv-close-button"]').first().click();
				await ndv.waitFor({ state: 'hidden' });
			}
			await panel.locator(`[data-test-id="canvas-node"][data-node-name="${name}"]`).first().dblclick();
			await input('message').first().waitFor({ state: 'visible' });
		};
		/** Opens the Options collection's "Add option" menu (n8n's select, its list in a popper) and reads its entries. */
		const addOptionEntries = async () => {
			const add = panel.locator('[data-test-id="ndv"] [data-test-id="collection-parameter-add"]');
			await add.scrollIntoViewIfNeeded();
			await add.locator('input').first().click();
			const entries = panel.locator('[data-test-id="collection-parameter-option"]:visible');
			await entries.first().waitFor({ state: 'visible' });
			return { entries, labels: ((await entries.allInnerTexts()) as string[]).map((text) => text.trim()).sort() };
		};
		const closeMenu = async () => {
			await panel.keyboard.press('Escape');
			await panel.locator('[data-test-id="collection-parameter-option"]:visible').first().waitFor({ state: 'hidden' });
		};
		const FREE_TEXT_OPTIONS = ['messageButtonLabel', 'responseFormButtonLabel', 'responseFormDescription', 'responseFormTitle'];

		beforeAll(async () => {
			({ context: reviewContext, page: panel } = await signedInPage());
			await panel.goto(`${env.inst.baseUrl}/workflow/${sendAndWaitWorkflowId}`);
			await panel.locator('[data-test-id="canvas-node"][data-node-name="Ask for approval"]').first().waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
		});

		afterAll(async () => {
			await reviewContext?.close().catch(() => undefined);
		});

		test('Approval: the question, the approval choices and only the approval options', async () => {
			await openNode('Ask for approval');
			try {
				expect(await valueOf('responseType')).toBe('Approval');
				await panel.locator('[data-test-id="fixed-collection-approvalOptions"]').waitFor({ state: 'visible' });
				expect(await valueOf('message')).toBe('Refund order #12345?');
				expect(await valueOf('approvalType')).toBe('Approve and Decline');
				expect(await valueOf('approveLabel')).toBe('Refund');
				expect(await valueOf('disapproveLabel')).toBe('Keep');
				for (const other of [...FREE_TEXT_OPTIONS, 'messageType', 'textBody']) expect(await input(other).count()).toBe(0);
				const { entries, labels } = await addOptionEntries();
				await panelShot('send-and-wait-approval-options');
				expect(labels).toEqual(['Ask for Confirmation', 'Limit Wait Time']);
				// Picking an entry adds its field to the panel.
				await entries.filter({ hasText: /^\s*Ask for Confirmation\s*$/ }).first().click();
				await input('confirmationPage').first().waitFor({ state: 'visible' });
				// "Approve Only" has no decline label.
				await input('approvalType').click();
				await panel
					.locator('.el-select-dropdown__item:visible, [data-test-id="parameter-input-item"]:visible')
					.filter({ hasText: /^\s*Approve Only\s*$/ })
					.first()
					.click();
				await input('disapproveLabel').first().waitFor({ state: 'detached' });
				expect(await valueOf('approveLabel')).toBe('Refund');
			} finally {
				await panelShot('send-and-wait-approval');
			}
		});

		test('Free Text: the question and the form texts, no approval choices and no confirmation page', async () => {
			await openNode('Ask for an answer');
			try {
				expect(await valueOf('responseType')).toBe('Free Text');
				expect(await valueOf('message')).toBe('Why was the order returned?');
				expect(await valueOf('messageButtonLabel')).toBe('Reply');
				expect(await valueOf('responseFormTitle')).toBe('Return reason');
				expect(await panel.locator('[data-test-id="fixed-collection-approvalOptions"]').count()).toBe(0);
				for (const other of ['approvalType', 'approveLabel', 'disapproveLabel', 'confirmationPage']) expect(await input(other).count()).toBe(0);
				const { labels } = await addOptionEntries();
				await panelShot('send-and-wait-free-text-options');
				expect(labels).toEqual(['Limit Wait Time', 'Response Form Button Label', 'Response Form Description']);
				await closeMenu();
			} finally {
				await panelShot('send-and-wait-free-text');
			}
		});
	});

	test('Template > Create: typing the Body Text gives one Body Examples field per placeholder, sent in order', async () => {
		const { context: templateContext, page: editor } = await signedInPage();
		const editorShot = shotOf(editor);
		try {
			await editor.goto(`${env.inst.baseUrl}/workflow/${templateWorkflowId}`);
			const node = editor.locator('[data-test-id="canvas-node"][data-node-name="Create template"]').first();
			await node.waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
			await node.dblclick();
			const body = editor.locator('[data-test-id="parameter-input-bodyText"] textarea').first();
			await body.waitFor({ state: 'visible' });
			const mapper = editor.locator('[data-test-id="resource-mapper-container"]');
			// Typed as a user types it (a whole text pasted into an empty field that holds {{ }} becomes an expression).
			await body.click();
			await body.pressSequentially('Hi {{1}}, order {{2}} has shipped');
			const example = (n: number) => mapper.locator(`[data-test-id="parameter-input-${n}"] input`).first();
			await example(2).waitFor({ state: 'visible' });
			// A label's text also holds its Fixed / Expression switch: read the first line.
			const labels = ((await mapper.locator('[data-test-id="input-label"]').allInnerTexts()) as string[]).map((text) => text.trim().split('\n')[0].trim());
			expect(labels.filter((label) => label.startsWith('Example for'))).toEqual(['Example for {{1}}', 'Example for {{2}}']);
			expect(await mapper.innerText()).toMatch(/^\s*Body Examples/);
			await example(1).fill('Ana');
			await example(2).fill('#42');
			await example(2).scrollIntoViewIfNeeded();
			await editorShot('template-body-examples');
			const before = (await env.requests()).length;
			await editor.locator('[data-test-id="node-execute-button"]').first().click();
			const created = await util.waitFor(
				'the template create request at the sandbox',
				async () => (await env.requests()).slice(before).find((r) => r.method === 'POST' && /\/api\/Templates$/i.test(r.path)),
				{ timeoutMs: 90000, intervalMs: 500 },
			);
			expect(created.body.components).toEqual([
				{ type: 'BODY', format: 'TEXT', text: 'Hi {{1}}, order {{2}} has shipped', example: { body_text: [['Ana', '#42']] } },
			]);
		} finally {
			await editorShot('template-body-examples-sent');
			await templateContext.close().catch(() => undefined);
		}
	});

	test('Template > Create: a Body Text pasted with {{1}} (n8n makes it an expression) gets the run-time error\'s words', async () => {
		const { context: pasteContext, page: editor } = await signedInPage();
		const editorShot = shotOf(editor);
		try {
			await editor.goto(`${env.inst.baseUrl}/workflow/${pasteTemplateWorkflowId}`);
			const node = editor.locator('[data-test-id="canvas-node"][data-node-name="Create template"]').first();
			await node.waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
			await node.dblclick();
			const body = editor.locator('[data-test-id="parameter-input-bodyText"] textarea').first();
			await body.waitFor({ state: 'visible' });
			// A whole text at once into the empty field, as a paste: n8n turns it into an expression.
			await body.fill('Hi {{1}}, your order {{2}} is ready for pickup.');
			await editor
				.getByText(/The Body Text reads the numbers 1, 2 where \{\{1\}\}, \{\{2\}\} may have been/)
				.first()
				.waitFor({ state: 'visible', timeout: 30000 });
			expect(await editor.getByText(/no examples are needed/).count()).toBe(0);
		} finally {
			await editorShot('template-body-pasted');
			await pasteContext.close().catch(() => undefined);
		}
	});

	test('a Template ID the gateway does not have: the panel says no template has it', async () => {
		const { context: missingContext, page: editor } = await signedInPage();
		const editorShot = shotOf(editor);
		try {
			await editor.goto(`${env.inst.baseUrl}/workflow/${missingTemplateWorkflowId}`);
			const node = editor.locator('[data-test-id="canvas-node"][data-node-name="Send template"]').first();
			await node.waitFor({ state: 'visible', timeout: FIRST_LOAD_MS });
			await node.dblclick();
			await editor.getByText(/No template has the ID "99999" \(the gateway answered 404\)/).first().waitFor({ state: 'visible', timeout: 30000 });
			expect(await editor.getByText(/This template has no placeholders/).count()).toBe(0);
		} finally {
			await editorShot('template-id-missing');
			await missingContext.close().catch(() => undefined);
		}
	});
});

if (ctx.browserSkipped) {
	test.skip(`editor check skipped: ${ctx.browserSkipped}`, () => undefined);
}
