#!/usr/bin/env node
'use strict';
/**
 * `npm run test:e2e`: the package in a real n8n. Installs (or reuses) Node 24 and n8n, builds and packs the
 * package once, makes sure headless Chromium and playwright-core are there, then runs Jest under Node 24 over
 * test/e2e/*.e2e.ts (each file starts its own n8n and sandbox and stops them). Ends with a pass/fail summary and
 * a non-zero exit on failure. Extra arguments go to Jest (for example `-t trigger` or a file name).
 *
 * Environment: MG_N8N_CACHE, N8N_VERSION, MG_TARBALL (a packed package to test instead of building), MG_SKIP_BROWSER=1 (skip the editor check), MG_NOTIFICATIONS_DIR.
 */
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT, log, run, installCleanup, stopAll, killRecorded } = require('./lib/util');
const { ensureRuntime, ensureTool } = require('./lib/install');
const { runJest, printSummary } = require('./lib/jest-suite');
const { buildAndPack } = require('./lib/package');

const PLAYWRIGHT_VERSION = '1.56.1';
const CHROMIUM = process.env.MG_CHROMIUM || '/usr/bin/chromium';
const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts');

function notificationsDir() {
	const candidates = [process.env.MG_NOTIFICATIONS_DIR, path.join(REPO_ROOT, 'test', 'fixtures', 'notifications')].filter(Boolean);
	return candidates.find((d) => fs.existsSync(d)) || candidates[0];
}

/** Debian's chromium through apt-get when it is missing and we may install packages; else null with a reason. */
async function ensureChromium() {
	if (process.env.MG_SKIP_BROWSER === '1') return { skip: 'MG_SKIP_BROWSER=1' };
	if (fs.existsSync(CHROMIUM)) return { path: CHROMIUM };
	if (process.getuid && process.getuid() === 0 && fs.existsSync('/usr/bin/apt-get')) {
		log('Installing Debian chromium with apt-get (first run only)...');
		const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
		try {
			await run('apt-get', ['install', '-y', '-q', 'chromium'], { env, quiet: true }).catch(async () => {
				await run('apt-get', ['update', '-q'], { env, quiet: true });
				await run('apt-get', ['install', '-y', '-q', 'chromium'], { env, quiet: true });
			});
		} catch (e) {
			log(`apt-get install chromium failed: ${e.message.split('\n')[0]}`);
		}
		if (fs.existsSync(CHROMIUM)) return { path: CHROMIUM };
	}
	return { missing: `${CHROMIUM} not found and could not be installed` };
}

async function main() {
	installCleanup();
	const t0 = Date.now();
	fs.mkdirSync(ARTIFACTS, { recursive: true });
	// Each run keeps only its own n8n folders and logs.
	fs.rmSync(path.join(ARTIFACTS, 'runs'), { recursive: true, force: true });
	const runtime = await ensureRuntime();
	// MG_TARBALL: test an already packed package instead of building this tree (for debugging).
	const tarball = process.env.MG_TARBALL ? path.resolve(process.env.MG_TARBALL) : await buildAndPack(path.join(ARTIFACTS, 'pack'));
	const chromium = await ensureChromium();
	// playwright-core from the package's dev dependencies, or else a pinned copy in the cache folder.
	let playwright = null;
	if (chromium.path) {
		const local = path.join(REPO_ROOT, 'node_modules', 'playwright-core');
		playwright = fs.existsSync(path.join(local, 'package.json'))
			? local
			: path.join(await ensureTool('playwright-core', PLAYWRIGHT_VERSION), 'playwright-core');
	}
	const prepSecs = Math.round((Date.now() - t0) / 1000);

	const context = {
		node24: runtime.node24.node,
		nodeDir: runtime.node24.nodeDir,
		n8nBin: runtime.n8n.bin,
		n8nVersion: runtime.n8n.version,
		tarball,
		artifacts: ARTIFACTS,
		notifications: notificationsDir(),
		chromium: chromium.path || null,
		browserUnavailable: chromium.skip ? null : chromium.missing || null,
		browserSkipped: chromium.skip || null,
		playwright,
	};
	const contextFile = path.join(ARTIFACTS, 'e2e-context.json');
	fs.writeFileSync(contextFile, JSON.stringify(context, null, 2));
	log(`Prepared in ${prepSecs} s. Running the e2e suite under Node 24 (logs in ${ARTIFACTS})...`);

	const pidDir = path.join(ARTIFACTS, 'pids');
	fs.rmSync(pidDir, { recursive: true, force: true });
	fs.mkdirSync(pidDir, { recursive: true });
	// Whatever way this script ends, n8n and sandbox processes started inside Jest end too.
	process.on('exit', () => killRecorded(pidDir));
	const resultsFile = path.join(ARTIFACTS, 'e2e-results.json');
	const code = await runJest({
		node24: runtime.node24.node,
		config: path.join(REPO_ROOT, 'test', 'e2e', 'jest.config.js'),
		contextEnv: 'MG_E2E_CONTEXT',
		contextFile,
		pidDir,
		resultsFile,
		args: process.argv.slice(2),
	});
	await stopAll();
	const leftovers = killRecorded(pidDir);
	if (leftovers) log(`Stopped ${leftovers} process(es) the suite left running.`);
	const ok = printSummary({ title: 'E2E', label: 'e2e', resultsFile, code, t0, prepSecs, artifacts: ARTIFACTS });
	process.exit(ok ? 0 : 1);
}

main().catch(async (e) => {
	console.error(`\nE2E FAILED before the tests ran: ${e.message}`);
	await stopAll();
	process.exit(1);
});
