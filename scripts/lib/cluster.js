'use strict';
/**
 * n8n in queue mode, as a team that scales out runs it: one main (editor, REST, activation; it serves no production
 * webhooks), workers that run the executions, and webhook processors that receive webhook calls, all sharing one
 * Postgres database and one Redis. Each process has its own user folder with the package installed as a user installs
 * it, so nothing can pass between them through the local disk; binary data lives in the database.
 */
const fs = require('node:fs');
const path = require('node:path');
const { log, run, startProcess, stopProcess, waitFor, tail, freePort } = require('./util');
const { installIntoN8n } = require('./package');
const { postgresBinDir } = require('./services');
const n8n = require('./n8n');

const COMMAND = { main: 'start', worker: 'worker', webhook: 'webhook' };

/** What every process of one cluster shares. */
function sharedEnv({ pg, database, redis, redisDb, name, webhookUrl }) {
	return {
		EXECUTIONS_MODE: 'queue',
		QUEUE_BULL_REDIS_HOST: redis.host,
		QUEUE_BULL_REDIS_PORT: String(redis.port),
		QUEUE_BULL_REDIS_DB: String(redisDb),
		QUEUE_BULL_PREFIX: `bull-${name}`,
		N8N_REDIS_KEY_PREFIX: `n8n-${name}`,
		DB_TYPE: 'postgresdb',
		DB_POSTGRESDB_HOST: pg.host,
		DB_POSTGRESDB_PORT: String(pg.port),
		DB_POSTGRESDB_DATABASE: database,
		DB_POSTGRESDB_USER: pg.user,
		DB_POSTGRESDB_PASSWORD: pg.password,
		// n8n's default pool (2 connections) makes a webhook processor queue a burst of deliveries behind the database;
		// on a loaded machine a request may wait for a connection longer than the default 20 s.
		DB_POSTGRESDB_POOL_SIZE: '10',
		DB_POSTGRESDB_CONNECTION_TIMEOUT: '60000',
		// Binary data written by one process (a webhook processor) must be readable by another (a worker).
		N8N_DEFAULT_BINARY_DATA_MODE: process.env.MG_QUEUE_BINARY_MODE || 'database',
		// Waiting executions' resume links (Send and Wait) point at the webhook processors as well.
		N8N_WEBHOOK_URL: webhookUrl,
		N8N_WORKER_SERVER_ADDRESS: '127.0.0.1',
		QUEUE_HEALTH_CHECK_ACTIVE: 'true',
		N8N_GRACEFUL_SHUTDOWN_TIMEOUT: '10',
	};
}

/**
 * Describe (not start) a cluster: a fresh database, the package installed into each process's user folder, ports.
 * `pg`/`redis` come from services.js; `redisDb` keeps clusters of one run apart.
 */
async function createCluster({ runtime, tarball, pg, redis, redisDb, name, baseDir, workers = 2, webhookProcessors = 1 }) {
	const database = `n8n_${name.replace(/[^a-z0-9]/gi, '_').toLowerCase()}`;
	await run(path.join(postgresBinDir(), 'psql'), ['-q', '-h', pg.host, '-p', String(pg.port), '-U', pg.user, '-d', 'postgres', '-c', `DROP DATABASE IF EXISTS ${database}`, '-c', `CREATE DATABASE ${database}`], {
		quiet: true,
	});
	const logDir = path.join(baseDir, 'logs');
	fs.mkdirSync(logDir, { recursive: true });
	// Install once, then copy the installed nodes folder: each process gets the same package, as containers of one image do.
	const template = path.join(baseDir, 'package-install');
	await installIntoN8n(tarball, template);

	const webhookPorts = [];
	for (let i = 0; i < webhookProcessors; i++) webhookPorts.push(await freePort());
	const webhookUrl = `http://127.0.0.1:${webhookPorts[0]}/`;
	const env = sharedEnv({ pg, database, redis, redisDb, name, webhookUrl });

	const make = async (role, index, port) => {
		const label = role === 'main' ? 'main' : `${role}-${index + 1}`;
		const userFolder = path.join(baseDir, label);
		fs.mkdirSync(path.join(userFolder, '.n8n'), { recursive: true });
		fs.cpSync(path.join(template, '.n8n', 'nodes'), path.join(userFolder, '.n8n', 'nodes'), { recursive: true });
		const inst = n8n.createInstance({ runtime, userFolder, port: port || (await freePort()), brokerPort: await freePort(), logDir, webhookUrl });
		inst.role = role;
		inst.label = label;
		inst.env = { ...env };
		if (role === 'main') inst.env.N8N_DISABLE_PRODUCTION_MAIN_PROCESS = 'true';
		if (role === 'worker') inst.env.QUEUE_HEALTH_CHECK_PORT = String(inst.port);
		inst.logFile = path.join(logDir, `${label}.log`);
		return inst;
	};
	const main = await make('main', 0);
	const workerList = [];
	for (let i = 0; i < workers; i++) workerList.push(await make('worker', i));
	const webhookList = [];
	for (let i = 0; i < webhookProcessors; i++) webhookList.push(await make('webhook', i, webhookPorts[i]));
	return { name, database, logDir, webhookUrl, main, workers: workerList, webhooks: webhookList, all: [main, ...workerList, ...webhookList] };
}

/** Start one process of the cluster and wait for its readiness endpoint. */
async function startRole(inst, { timeoutMs = 180000 } = {}) {
	const env = n8n.n8nEnv(inst);
	fs.appendFileSync(inst.logFile, `\n===== start ${new Date().toISOString()}\n`);
	inst.proc = startProcess(`n8n ${inst.label}`, inst.runtime.node24.node, [inst.runtime.n8n.bin, COMMAND[inst.role]], {
		env,
		cwd: inst.userFolder,
		logFile: inst.logFile,
	});
	try {
		await waitFor(
			`n8n ${inst.label} to be ready`,
			async () => {
				if (inst.proc.exited) throw Object.assign(new Error(`n8n ${inst.label} exited (${inst.proc.exitCode})`), { fatal: true });
				const res = await fetch(`${inst.baseUrl}/healthz/readiness`).catch(() => null);
				return res && res.ok;
			},
			{ timeoutMs, intervalMs: 300 },
		);
	} catch (e) {
		throw new Error(`${e.message}\n--- last lines of ${inst.logFile} ---\n${tail(inst.logFile)}`);
	}
	return inst;
}

async function stopRole(inst) {
	if (inst.proc) await stopProcess(inst.proc, 20000);
	inst.proc = null;
}

/** Start every process at once: the CLI commands that imported the credential have already migrated the database. */
async function startCluster(cluster) {
	const t0 = Date.now();
	await Promise.all(cluster.all.map((inst) => startRole(inst)));
	log(`Started n8n main, ${cluster.workers.length} worker(s), ${cluster.webhooks.length} webhook processor(s) in ${Math.round((Date.now() - t0) / 1000)} s`);
}

/** Stop webhook processors first (no new work), then workers, then the main. */
async function stopCluster(cluster) {
	await Promise.all(cluster.webhooks.map(stopRole));
	await Promise.all(cluster.workers.map(stopRole));
	await stopRole(cluster.main);
}

/** The execution ids a worker's log says it started (`Worker started execution N`). */
function executionsStartedBy(inst) {
	let text = '';
	try {
		text = fs.readFileSync(inst.logFile, 'utf8');
	} catch {
		return [];
	}
	return [...text.matchAll(/Worker started execution (\d+)/g)].map((m) => Number(m[1]));
}

module.exports = { createCluster, startCluster, stopCluster, startRole, stopRole, executionsStartedBy, sharedEnv };
