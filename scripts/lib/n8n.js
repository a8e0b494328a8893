'use strict';
/**
 * A real n8n for this package: its environment, the CLI commands (import, execute, publish), start and stop,
 * the owner account and a REST session. Everything runs n8n under Node 24 from the cache (see install.js).
 */
const crypto = require('node:crypto');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const { log, run, startProcess, stopProcess, waitFor, tail, freePort, PACKAGE_NAME } = require('./util');

const CREDENTIAL_ID = 'mgGatewayCred001';
const CREDENTIAL_NAME = 'Messaging Gateway account';
const OWNER = { email: 'owner@example.com', password: 'Owner-Passw0rd!', firstName: 'Local', lastName: 'Owner' };

/**
 * An n8n instance description. `userFolder` holds `.n8n/` (database, nodes). Ports are fixed per instance so the
 * CLI commands and the server agree; the broker port differs per process to avoid collisions.
 */
function createInstance({ runtime, userFolder, port, brokerPort, logDir, webhookUrl }) {
	const baseUrl = `http://127.0.0.1:${port}`;
	return { runtime, userFolder, port, brokerPort, logDir, proc: null, baseUrl, webhookUrl: webhookUrl || `${baseUrl}/` };
}

/** Quiet, offline environment (see /work/shared/n8n-runtime.md). */
function n8nEnv(inst, extra = {}) {
	const nodeBin = path.dirname(inst.runtime.node24.node);
	return {
		...process.env,
		PATH: `${nodeBin}${path.delimiter}${process.env.PATH}`,
		N8N_USER_FOLDER: inst.userFolder,
		N8N_PORT: String(inst.port),
		N8N_LISTEN_ADDRESS: '127.0.0.1',
		N8N_HOST: '127.0.0.1',
		N8N_PROTOCOL: 'http',
		N8N_EDITOR_BASE_URL: `http://127.0.0.1:${inst.port}/`,
		N8N_WEBHOOK_URL: inst.webhookUrl,
		N8N_RUNNERS_BROKER_PORT: String(inst.brokerPort),
		N8N_ENCRYPTION_KEY: 'mg-local-dev-encryption-key-not-a-secret',
		DB_TYPE: 'sqlite',
		N8N_DIAGNOSTICS_ENABLED: 'false',
		N8N_VERSION_NOTIFICATIONS_ENABLED: 'false',
		N8N_PERSONALIZATION_ENABLED: 'false',
		N8N_TEMPLATES_ENABLED: 'false',
		N8N_DYNAMIC_BANNERS_ENABLED: 'false',
		N8N_AI_ENABLED: 'false',
		N8N_VERIFIED_PACKAGES_ENABLED: 'false',
		N8N_DISABLED_MODULES: 'mcp-registry,instance-ai,agents,chat-hub,workflow-builder',
		N8N_SECURE_COOKIE: 'false',
		N8N_ENFORCE_SETTINGS_FILE_PERMISSIONS: 'false',
		N8N_HIRING_BANNER_ENABLED: 'false',
		N8N_COMMUNITY_PACKAGES_ENABLED: 'true',
		N8N_UNVERIFIED_PACKAGES_ENABLED: 'true',
		// Keep every execution, also successful manual/CLI ones, so tests can read their data.
		EXECUTIONS_DATA_SAVE_ON_SUCCESS: 'all',
		EXECUTIONS_DATA_SAVE_ON_ERROR: 'all',
		EXECUTIONS_DATA_SAVE_MANUAL_EXECUTIONS: 'true',
		EXECUTIONS_DATA_PRUNE: 'false',
		N8N_LOG_LEVEL: process.env.N8N_LOG_LEVEL || 'info',
		NODE_OPTIONS: '',
		// Jest sets NODE_ENV=test, which makes n8n behave as in its own unit tests (no database file).
		NODE_ENV: 'production',
		// An instance's own settings (queue mode: database, Redis, role), for its server and its CLI commands alike.
		...(inst.env || {}),
		...extra,
	};
}

function n8nPaths(inst) {
	const dotN8n = path.join(inst.userFolder, '.n8n');
	return { dotN8n, db: path.join(dotN8n, 'database.sqlite'), nodes: path.join(dotN8n, 'nodes') };
}

/** One n8n CLI command, run to completion. The CLI uses its own broker port so it can run beside the server. */
async function cli(inst, args, { capture = true, brokerPort } = {}) {
	// A fresh free port each time: a CLI command whose task broker cannot listen runs nothing.
	const env = n8nEnv(inst, { N8N_RUNNERS_BROKER_PORT: String(brokerPort || (await freePort())) });
	return run(inst.runtime.node24.node, [inst.runtime.n8n.bin, ...args], { env, capture, cwd: inst.userFolder });
}

/** The credential in n8n's decrypted import format; `gateway` = {apiKey, phoneId, baseUrl}. */
function credentialFile(dir, gateway) {
	const file = path.join(dir, 'credentials.json');
	const cred = [{ id: CREDENTIAL_ID, name: CREDENTIAL_NAME, type: 'messagingGatewayApi', data: gateway }];
	fs.writeFileSync(file, JSON.stringify(cred, null, 2), { mode: 0o600 });
	return file;
}

async function importCredential(inst, gateway) {
	const file = credentialFile(inst.userFolder, gateway);
	try {
		await cli(inst, ['import:credentials', `--input=${file}`]);
	} finally {
		fs.rmSync(file, { force: true }); // it holds the API key in clear
	}
}

/**
 * Import workflows. Each gets an id (kept when present) and every Messaging Gateway node gets our credential,
 * so that example files need not know the id. Accepts workflow objects; returns them with their ids.
 */
async function importWorkflows(inst, workflows) {
	const dir = fs.mkdtempSync(path.join(inst.userFolder, 'wf-import-'));
	const out = workflows.map((wf, i) => prepareWorkflow(wf, i));
	out.forEach((wf, i) => fs.writeFileSync(path.join(dir, `${String(i).padStart(3, '0')}.json`), JSON.stringify(wf, null, 2)));
	try {
		await cli(inst, ['import:workflow', '--separate', `--input=${dir}`]);
	} finally {
		fs.rmSync(dir, { recursive: true, force: true });
	}
	return out;
}

/** A 16-character workflow id derived from the name, so reruns overwrite instead of duplicating. */
function workflowId(name) {
	return crypto.createHash('sha256').update(name).digest('base64url').replace(/[-_]/g, 'x').slice(0, 16);
}

function prepareWorkflow(wf, index) {
	const copy = JSON.parse(JSON.stringify(wf));
	copy.id = copy.id || workflowId(copy.name || `workflow-${index}`);
	copy.active = false;
	copy.settings = { executionOrder: 'v1', saveManualExecutions: true, ...(copy.settings || {}) };
	copy.connections = copy.connections || {};
	for (const node of copy.nodes || []) {
		node.id = node.id || crypto.randomUUID();
		// Webhook paths (trigger, send-and-wait) hang on webhookId: a stable one keeps URLs stable across imports.
		if (!node.webhookId && /trigger$|messagingGateway$/i.test(String(node.type))) {
			node.webhookId = uuidFrom(`${copy.id}/${node.name}`);
		}
		if (String(node.type).startsWith(`${PACKAGE_NAME}.`)) {
			node.credentials = { messagingGatewayApi: { id: CREDENTIAL_ID, name: CREDENTIAL_NAME } };
		}
	}
	return copy;
}

/** A UUID-shaped id derived from a string. */
function uuidFrom(text) {
	const h = crypto.createHash('sha256').update(text).digest('hex');
	return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-8${h.slice(17, 20)}-${h.slice(20, 32)}`;
}

/** Load example workflow files from a folder. */
function readWorkflowFiles(dir) {
	if (!fs.existsSync(dir)) return [];
	return fs
		.readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((f) => JSON.parse(fs.readFileSync(path.join(dir, f), 'utf8')));
}

/** Start `n8n start` in the background and wait for /healthz/readiness. */
async function start(inst, { extraEnv = {}, timeoutMs = 120000 } = {}) {
	const logFile = path.join(inst.logDir, `n8n-${inst.port}.log`);
	const env = n8nEnv(inst, extraEnv);
	inst.proc = startProcess('n8n', inst.runtime.node24.node, [inst.runtime.n8n.bin, 'start'], { env, cwd: inst.userFolder, logFile });
	inst.logFile = logFile;
	try {
		await waitFor(
			'n8n to be ready',
			async () => {
				if (inst.proc.exited) throw Object.assign(new Error(`n8n exited (${inst.proc.exitCode})`), { fatal: true });
				const res = await fetch(`${inst.baseUrl}/healthz/readiness`).catch(() => null);
				return res && res.ok;
			},
			{ timeoutMs, intervalMs: 300 },
		);
	} catch (e) {
		throw new Error(`${e.message}\n--- last lines of ${logFile} ---\n${tail(logFile)}`);
	}
	return inst;
}

async function stop(inst) {
	if (inst.proc) await stopProcess(inst.proc, 15000);
	inst.proc = null;
}

/** n8n 2.x asks for an owner on first open of the editor; create one through REST if none exists. */
async function ensureOwner(inst, owner = OWNER) {
	const res = await fetch(`${inst.baseUrl}/rest/owner/setup`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify(owner),
	});
	if (res.ok) return { created: true, ...owner };
	const body = await res.text();
	// Already set up (second start on the same folder): logging in tells whether our login works.
	const session = await login(inst, owner).catch(() => null);
	if (session) return { created: false, ...owner };
	throw new Error(`Owner setup failed: HTTP ${res.status} ${body.slice(0, 300)}`);
}

/** Log in through REST; returns a small client that sends the session cookie. */
async function login(inst, owner = OWNER) {
	const res = await fetch(`${inst.baseUrl}/rest/login`, {
		method: 'POST',
		headers: { 'content-type': 'application/json', 'browser-id': 'mg-e2e' },
		body: JSON.stringify({ emailOrLdapLoginId: owner.email, email: owner.email, password: owner.password }),
	});
	if (!res.ok) throw new Error(`Login failed: HTTP ${res.status} ${(await res.text()).slice(0, 300)}`);
	const cookie = (res.headers.getSetCookie ? res.headers.getSetCookie() : [res.headers.get('set-cookie')])
		.filter(Boolean)
		.map((c) => c.split(';')[0])
		.join('; ');
	const request = async (method, urlPath, body) => {
		const r = await fetch(`${inst.baseUrl}${urlPath}`, {
			method,
			headers: { cookie, 'browser-id': 'mg-e2e', ...(body !== undefined ? { 'content-type': 'application/json' } : {}) },
			body: body !== undefined ? JSON.stringify(body) : undefined,
		});
		const text = await r.text();
		let json;
		try {
			json = JSON.parse(text);
		} catch {
			json = undefined;
		}
		if (!r.ok) throw new Error(`${method} ${urlPath}: HTTP ${r.status} ${text.slice(0, 500)}`);
		return json && typeof json === 'object' && 'data' in json ? json.data : json;
	};
	return { cookie, request };
}

/**
 * Run SQL statements on n8n's database (while n8n is stopped) with Node 24's node:sqlite; this script itself may
 * run on an older Node.
 */
async function runSql(inst, statements) {
	const db = n8nPaths(inst).db;
	if (!fs.existsSync(db)) return [];
	const code = `const { DatabaseSync } = require('node:sqlite');
const db = new DatabaseSync(process.argv[1]);
const out = JSON.parse(process.argv[2]).map((sql) => (/^\\s*select/i.test(sql) ? db.prepare(sql).all() : (db.exec(sql), null)));
db.close();
process.stdout.write(JSON.stringify(out));`;
	const out = await run(inst.runtime.node24.node, ['--no-warnings', '-e', code, db, JSON.stringify(statements)], { capture: true });
	return JSON.parse(out);
}

/**
 * n8n keeps its webhook rows across restarts and, at start, does not register again a webhook it already has.
 * The sandbox starts empty each time, so forget the rows: n8n then asks the trigger to check and register again.
 */
async function forgetWebhookRegistrations(inst) {
	const [active] = await runSql(inst, [
		`SELECT id FROM workflow_entity WHERE active = 1 AND nodes LIKE '%${PACKAGE_NAME}.messagingGatewayTrigger%'`,
	]);
	const ids = (active || []).map((r) => String(r.id).replace(/[^A-Za-z0-9]/g, ''));
	if (!ids.length) return [];
	const list = ids.map((id) => `'${id}'`).join(',');
	// Without its webhook rows and trigger statuses, n8n's start-up reconciliation publishes the workflow again,
	// which stores the webhooks and calls the trigger's checkExists/create (n8n 2.x publication service).
	await runSql(inst, [
		`DELETE FROM webhook_entity WHERE workflowId IN (${list})`,
		`DELETE FROM workflow_publication_trigger_status WHERE workflowId IN (${list})`,
	]);
	return ids;
}

/** A throwaway user folder under the given parent (or the OS temp folder). */
function makeUserFolder(parent) {
	const base = parent || os.tmpdir();
	fs.mkdirSync(base, { recursive: true });
	return fs.mkdtempSync(path.join(base, 'n8n-user-'));
}

module.exports = {
	CREDENTIAL_ID,
	CREDENTIAL_NAME,
	OWNER,
	createInstance,
	n8nEnv,
	n8nPaths,
	cli,
	importCredential,
	importWorkflows,
	prepareWorkflow,
	workflowId,
	readWorkflowFiles,
	start,
	stop,
	ensureOwner,
	login,
	makeUserFolder,
	runSql,
	forgetWebhookRegistrations,
	log,
};
