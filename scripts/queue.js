#!/usr/bin/env node
'use strict';
/**
 * `npm run test:queue`: the package in n8n's queue mode. Installs (or reuses) Node 24 and n8n as the e2e suite does,
 * builds and packs the package, installs Debian's postgresql and redis-server when missing, starts a private Postgres
 * and a private Redis on free ports (temp folders, stopped by PID at the end), then runs Jest under Node 24 over
 * test/queue/*.queue.ts. Each file starts its own n8n main, workers and webhook processor(s) (scripts/lib/cluster.js)
 * in a database of its own. Ends with a pass/fail summary and a non-zero exit on failure; extra arguments go to Jest.
 *
 * Environment: MG_N8N_CACHE, N8N_VERSION, MG_TARBALL (as for test:e2e), MG_QUEUE_BINARY_MODE (default database).
 */
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT, log, installCleanup, stopAll, killRecorded } = require('./lib/util');
const { ensureRuntime } = require('./lib/install');
const { runJest, printSummary } = require('./lib/jest-suite');
const { buildAndPack } = require('./lib/package');
const { ensureServicePackages, startPostgres, startRedis } = require('./lib/services');

const ARTIFACTS = path.join(REPO_ROOT, 'test-artifacts', 'queue');
/** Postgres and Redis once started: shut down cleanly at the end, also after a failure. */
const services = [];

async function main() {
	const t0 = Date.now();
	fs.rmSync(ARTIFACTS, { recursive: true, force: true });
	// The n8n processes and sandboxes that Jest starts record their PIDs here.
	const pidDir = path.join(ARTIFACTS, 'pids');
	fs.mkdirSync(pidDir, { recursive: true });
	process.on('exit', () => killRecorded(pidDir));
	// On Ctrl-C end them first (before util's cleanup stops Jest, Postgres and Redis), so Postgres has no clients left.
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => killRecorded(pidDir));
	installCleanup();
	const runtime = await ensureRuntime();
	const tarball = process.env.MG_TARBALL ? path.resolve(process.env.MG_TARBALL) : await buildAndPack(path.join(ARTIFACTS, 'pack'));
	await ensureServicePackages();
	const serviceLogs = path.join(ARTIFACTS, 'logs');
	fs.mkdirSync(serviceLogs, { recursive: true });
	const pg = await startPostgres({ logDir: serviceLogs });
	services.push(pg);
	const redis = await startRedis({ logDir: serviceLogs });
	services.push(redis);
	// On Ctrl-C util's cleanup stops them by PID with everything else; their temp folders go on exit.
	const prepSecs = Math.round((Date.now() - t0) / 1000);

	const context = {
		node24: runtime.node24.node,
		nodeDir: runtime.node24.nodeDir,
		n8nBin: runtime.n8n.bin,
		n8nVersion: runtime.n8n.version,
		tarball,
		artifacts: ARTIFACTS,
		notifications: path.join(REPO_ROOT, 'test', 'fixtures', 'notifications'),
		postgres: { host: pg.host, port: pg.port, user: pg.user, password: pg.password },
		redis: { host: redis.host, port: redis.port },
	};
	const contextFile = path.join(ARTIFACTS, 'queue-context.json');
	fs.writeFileSync(contextFile, JSON.stringify(context, null, 2));
	log(`Prepared in ${prepSecs} s. Running the queue-mode suite under Node 24 (logs in ${path.relative(REPO_ROOT, ARTIFACTS)})...`);

	const resultsFile = path.join(ARTIFACTS, 'queue-results.json');
	const code = await runJest({
		node24: runtime.node24.node,
		config: path.join(REPO_ROOT, 'test', 'queue', 'jest.config.js'),
		contextEnv: 'MG_QUEUE_CONTEXT',
		contextFile,
		pidDir,
		resultsFile,
		args: process.argv.slice(2),
	});
	const leftovers = killRecorded(pidDir);
	if (leftovers) log(`Stopped ${leftovers} process(es) the suite left running.`);
	await stopServices();
	const ok = printSummary({ title: 'QUEUE MODE', label: 'queue', resultsFile, code, t0, prepSecs, artifacts: ARTIFACTS });
	process.exit(ok ? 0 : 1);
}

async function stopServices() {
	for (const s of services.splice(0)) await s.stop();
	await stopAll();
}

main().catch(async (e) => {
	console.error(`\nQUEUE MODE FAILED before the tests ran: ${e.message}`);
	await stopServices();
	process.exit(1);
});
