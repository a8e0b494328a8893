#!/usr/bin/env node
'use strict';
/**
 * `npm start`: a local n8n with this package installed as a user would install it, the example workflows
 * imported, and the sandbox gateway behind the credential (or the real gateway when GATEWAY_BASE_URL,
 * GATEWAY_API_KEY and GATEWAY_PHONE_ID are set). Ctrl-C stops everything.
 *
 * Options (environment): N8N_PORT (default 5678, or a free port), SANDBOX_PORT (default 8787, or a free port),
 * MG_N8N_CACHE (install cache), N8N_VERSION, MG_FRESH=1 (start from an empty n8n user folder),
 * N8N_WEBHOOK_URL (with the real gateway: the public https address that forwards to this n8n), SANDBOX_STATUSES=1
 * (the sandbox sends each message's statuses; `npm run sandbox -- statuses on` does it while running).
 * The n8n user folder is kept in .cache/dev-n8n so workflows you edit survive a restart.
 */
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT, log, installCleanup, stopAll, waitFor } = require('./lib/util');
const { prepare, realGatewayFromEnv, ensureDir } = require('./lib/session');
const n8n = require('./lib/n8n');
const { DEFAULT_PORT } = require('./lib/sandbox');
const exampleLib = require('./lib/examples');

// The templates every sandbox account has from the start (PRESET_TEMPLATES in test/sandbox/templates.ts; a unit test
// keeps this line and the README in step with it).
const SANDBOX_TEMPLATES = 'hello_world (en_US); order_update, order_shipped, pedido_enviado (pt_BR)';

/** Says when a port was taken and another was chosen, and how to choose one. */
function sayPort(what, variable, wanted, url) {
	const port = Number(new URL(url).port);
	if (port !== wanted) log(`Port ${wanted} is in use: ${what} listens on ${port} instead (${variable}=<port> chooses one).`);
}

async function main() {
	installCleanup();
	const t0 = Date.now();
	const fresh = process.env.MG_FRESH === '1' || process.argv.includes('--fresh');
	const devDir = path.join(REPO_ROOT, '.cache', 'dev-n8n');
	if (fresh) fs.rmSync(devDir, { recursive: true, force: true });
	const userFolder = ensureDir(devDir);
	const logDir = ensureDir(path.join(REPO_ROOT, '.cache', 'logs'));

	const gateway = realGatewayFromEnv();
	const n8nPort = Number(process.env.N8N_PORT) || 5678;
	const sandboxPort = Number(process.env.SANDBOX_PORT) || DEFAULT_PORT;
	const { inst, sandbox } = await prepare({
		userFolder,
		logDir,
		n8nPort,
		sandboxPort,
		gateway,
		// A public https address in front of n8n (tunnel, reverse proxy) for the real gateway's notifications.
		webhookUrl: gateway ? process.env.N8N_WEBHOOK_URL : undefined,
		// The sandbox's statuses after each send (sent / delivered / read, or failed), as the network sends them: off
		// unless chosen (SANDBOX_STATUSES=1, or npm run sandbox -- statuses on while it runs). Every status is a webhook
		// call per published trigger (about 30 ms of n8n's CPU here) and an execution when a trigger keeps it:
		// with them on, a first campaign of 1,000 messages took 7 times as long (docs/trigger.md).
		sandboxStatuses: process.env.SANDBOX_STATUSES === '1',
	});

	sayPort('n8n', 'N8N_PORT', n8nPort, inst.baseUrl);
	if (sandbox) sayPort('the sandbox gateway', 'SANDBOX_PORT', sandboxPort, sandbox.url);

	// Examples are imported once per user folder, so that edits made in the editor survive a restart.
	const examplesMarker = path.join(userFolder, '.examples-imported');
	const examples = exampleLib.readExamples();
	let published = [];
	if (fs.existsSync(examplesMarker)) {
		log('Example workflows were imported on an earlier start (MG_FRESH=1 starts over).');
	} else if (examples.length) {
		const imported = await n8n.importWorkflows(inst, examples);
		fs.writeFileSync(examplesMarker, new Date().toISOString() + '\n');
		log(`Imported ${imported.length} example workflows`);
		// With the real gateway a loopback n8n cannot receive notifications, so nothing is published then.
		if (!gateway) {
			published = exampleLib.examplesToPublish(imported);
			for (const wf of published) await n8n.cli(inst, ['publish:workflow', `--id=${wf.id}`]);
		}
	} else {
		log('No example workflows in examples/ yet.');
	}

	// The sandbox starts empty: have n8n register the published triggers again (first start: already queued).
	let republished = [];
	if (sandbox && !published.length) republished = await n8n.forgetWebhookRegistrations(inst);
	const expectRegistration = published.length + republished.length > 0;
	await n8n.start(inst);
	// Activation runs after the health check answers: wait until the trigger has registered at the sandbox.
	let registered = [];
	if (sandbox) {
		try {
			registered = await waitFor(
				'the trigger to register its webhook at the sandbox',
				async () => {
					const { webhooks } = await sandbox.control.state();
					return webhooks.length ? webhooks : null;
				},
				{ timeoutMs: expectRegistration ? 60000 : 3000, intervalMs: 500 },
			);
		} catch {
			if (expectRegistration) log('The published trigger did not register at the sandbox within 60 s; see the n8n log.');
		}
	}
	let owner = null;
	try {
		owner = await n8n.ensureOwner(inst);
	} catch (e) {
		log(`Could not set up the owner account automatically (${e.message.split('\n')[0]}).`);
	}

	const lines = [
		'',
		`n8n ${inst.runtime.n8n.version} is ready (${Math.round((Date.now() - t0) / 1000)} s).`,
		`  Editor:      ${inst.baseUrl}/`,
		owner
			? `  Login:       ${owner.email} / ${owner.password}`
			: '  Login:       create the owner account in the editor on first open',
		`  Credential:  "${n8n.CREDENTIAL_NAME}" -> ${gateway ? gateway.baseUrl : sandbox.url}`,
		`  n8n log:     ${inst.logFile}`,
	];
	if (sandbox) {
		lines.push(
			`  Sandbox:     ${sandbox.url} (requests it received: ${sandbox.url}/__sandbox/requests; log ${sandbox.logFile})`,
			// A local test key, shown so that the credential screen can be tried by hand (Base URL and API Key).
			`  Sandbox key: API key ${sandbox.apiKey}, Phone ID ${sandbox.phoneId} (Base URL ${sandbox.url})`,
			`  Templates:   the sandbox account has ${SANDBOX_TEMPLATES}; Template > Create adds more`,
			`  Statuses:    ${sandbox.statuses ? 'on: the sandbox sends each accepted message\'s statuses (npm run sandbox -- statuses off)' : 'off; npm run sandbox -- statuses on sends each accepted message\'s statuses (the delivery report example needs them)'}`,
			'',
			registered.length
				? `A trigger is registered at the sandbox (${registered.length} webhook${registered.length > 1 ? 's' : ''}${published.length ? `; published: ${published.map((w) => `"${w.name}"`).join(', ')}` : ''}). Send it a test message with:`
				: 'Publish a workflow with the Messaging Gateway Trigger (for example the auto-reply bot), then send it a test message with:',
			`  ${Number(new URL(sandbox.url).port) === DEFAULT_PORT ? '' : `SANDBOX_PORT=${new URL(sandbox.url).port} `}npm run sandbox -- deliver --text "hello"`,
			'It prints the trigger\'s answer, then waits for the reply the workflow sends and prints it.',
		);
	} else {
		lines.push(
			'',
			process.env.N8N_WEBHOOK_URL
				? `Using the real gateway; triggers register ${inst.webhookUrl} (N8N_WEBHOOK_URL) as their address.`
				: 'Using the real gateway. n8n listens on 127.0.0.1 only, so the gateway cannot reach a trigger here;\n' +
						'to receive notifications, expose n8n over HTTPS and set N8N_WEBHOOK_URL to that address.',
		);
	}
	lines.push('', 'Press Ctrl-C to stop n8n' + (sandbox ? ' and the sandbox.' : '.'));
	console.log(lines.join('\n'));

	// Stay up until n8n exits (or Ctrl-C, handled by installCleanup).
	const code = await inst.proc.exitPromise;
	log(`n8n exited (${code}); stopping.`);
	await stopAll();
	process.exit(typeof code === 'number' ? code : 1);
}

main().catch(async (e) => {
	console.error(`\nnpm start failed: ${e.message}`);
	await stopAll();
	process.exit(1);
});
