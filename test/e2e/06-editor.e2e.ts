/**
 * The editor in headless Chromium (Debian's chromium driven by playwright-core): sign in as the owner, add the
 * Messaging Gateway node with its "Send a message" action, switch through every message type and check that the
 * right fields show (and the others' do not). Screenshots go to test-artifacts/screenshots/.
 */
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';

import { context, n8n, setup, type Env } from './support/env';

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
		await search.fill('Messaging Gateway');
		await shot('node-creator-search');
		await page.locator('[data-test-id="node-creator-item-name"]', { hasText: /^Messaging Gateway$/ }).first().click();
		await shot('node-creator-actions');
		await page
			.locator('[data-test-id="node-creator-action-item"], [data-test-id="node-creator-item-name"]', { hasText: /^Send a message$/ })
			.first()
			.click();
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
});

if (ctx.browserSkipped) {
	test.skip(`editor check skipped: ${ctx.browserSkipped}`, () => undefined);
}
