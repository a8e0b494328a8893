/**
 * What every queue-mode file needs: the context written by scripts/queue.js (Node 24, n8n, the packed package,
 * Postgres and Redis), and a cluster of its own: a database, the sandbox gateway, the credential, n8n main, workers
 * and webhook processors (scripts/lib/cluster.js does the real work).
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import type { SandboxRequest, Workflow } from '../../e2e/support/env';
import { openDb, type Db, type Execution, type ExecutionRow } from './db';

/* eslint-disable @typescript-eslint/no-var-requires */
const util = require('../../../scripts/lib/util');
const n8n = require('../../../scripts/lib/n8n');
const clusterLib = require('../../../scripts/lib/cluster');
const sandboxLib = require('../../../scripts/lib/sandbox');
/* eslint-enable @typescript-eslint/no-var-requires */

// n8n and the sandbox run in their own process groups: if Jest ends early (Ctrl-C, a crash), end them too.
process.once('exit', () => util.killAllSync());

export const PACKAGE = 'n8n-nodes-messaging-gateway';
export const ACTION = `${PACKAGE}.messagingGateway`;
export const TRIGGER = `${PACKAGE}.messagingGatewayTrigger`;

interface Service {
	host: string;
	port: number;
}

export interface QueueContext {
	node24: string;
	nodeDir: string;
	n8nBin: string;
	n8nVersion: string;
	tarball: string;
	artifacts: string;
	notifications: string;
	postgres: Service & { user: string; password: string };
	redis: Service;
}

export function context(): QueueContext {
	const file = process.env.MG_QUEUE_CONTEXT;
	if (!file) throw new Error('Run the queue-mode suite with `npm run test:queue` (MG_QUEUE_CONTEXT is not set)');
	return JSON.parse(readFileSync(file, 'utf8'));
}

export type { SandboxRequest, Workflow };

/** One n8n process (scripts/lib/n8n.js instance plus its role). */
export interface N8nProcess {
	role: 'main' | 'worker' | 'webhook';
	label: string;
	baseUrl: string;
	logFile: string;
	[k: string]: any;
}

export interface Cluster {
	ctx: QueueContext;
	db: Db;
	sandbox: { url: string; apiKey: string; phoneId: string; control: any; proc: unknown };
	main: N8nProcess;
	workers: N8nProcess[];
	webhooks: N8nProcess[];
	/** The webhook processors' address (N8N_WEBHOOK_URL), ending with a slash. */
	webhookUrl: string;
	importWorkflows(wfs: Workflow[]): Promise<Workflow[]>;
	/** `n8n publish:workflow` (while the main is stopped: it activates published workflows when it starts). */
	publish(wf: Workflow): Promise<void>;
	cli(args: string[]): Promise<string>;
	/** Publish (activate) or unpublish through the main's REST API as the owner, as a user does in the editor. */
	activate(wf: Workflow): Promise<void>;
	deactivate(wf: Workflow): Promise<void>;
	start(): Promise<void>;
	stop(): Promise<void>;
	requests(): Promise<SandboxRequest[]>;
	/** Executions of a workflow once `count` exist and all have ended (or wait, when `waiting`). */
	waitForExecutions(workflowId: string, count: number, opts?: { timeoutMs?: number; ended?: (r: ExecutionRow) => boolean }): Promise<ExecutionRow[]>;
	execution(id: number): Promise<Execution>;
	/** Which worker's log says it started the execution (one label per start: a resumed execution starts twice). */
	workersThatRan(id: number): string[];
	teardown(): Promise<void>;
}

const ended = (r: ExecutionRow) => r.finished || ['success', 'error', 'crashed', 'canceled'].includes(r.status);

/** A database, sandbox, credential and (stopped) n8n processes for one file. */
export async function setupCluster(name: string, { workers = 2, webhookProcessors = 1, redisDb = 1 } = {}): Promise<Cluster> {
	const ctx = context();
	const baseDir = join(ctx.artifacts, 'runs', name);
	mkdirSync(baseDir, { recursive: true });
	const runtime = { node24: { node: ctx.node24, nodeDir: ctx.nodeDir }, n8n: { bin: ctx.n8nBin, version: ctx.n8nVersion } };
	const c = await clusterLib.createCluster({ runtime, tarball: ctx.tarball, pg: ctx.postgres, redis: ctx.redis, redisDb, name, baseDir, workers, webhookProcessors });
	const sandbox = await sandboxLib.startSandbox({ port: await util.freePort(), logDir: c.logDir, node: ctx.node24 });
	await n8n.importCredential(c.main, { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url });
	const db = openDb(ctx.n8nBin, { ...ctx.postgres, database: c.database });
	let session: { request(method: string, path: string, body?: unknown): Promise<any> } | null = null;
	const rest = async () => {
		if (!session) {
			await n8n.ensureOwner(c.main);
			session = await n8n.login(c.main);
		}
		return session!;
	};
	/** Resolves once the workflow's webhooks are in the database (`present`) or gone from it. */
	const webhooksRegistered = (wf: Workflow, present: boolean) =>
		util.waitFor(`the webhooks of ${wf.name} ${present ? 'registered' : 'removed'}`, async () => {
			const rows = await db.query('SELECT 1 FROM webhook_entity WHERE "workflowId" = $1', [wf.id]);
			return (rows.length > 0) === present;
		});

	const cluster: Cluster = {
		ctx,
		db,
		sandbox,
		main: c.main,
		workers: c.workers,
		webhooks: c.webhooks,
		webhookUrl: c.webhookUrl,
		importWorkflows: (wfs) => n8n.importWorkflows(c.main, wfs),
		async publish(wf) {
			await n8n.cli(c.main, ['publish:workflow', `--id=${wf.id}`]);
		},
		cli: (args) => n8n.cli(c.main, args),
		async activate(wf) {
			const api = await rest();
			const { versionId } = await api.request('GET', `/rest/workflows/${wf.id}`);
			await api.request('POST', `/rest/workflows/${wf.id}/activate`, { versionId });
			// The main answers once the workflow is published, but may write its webhooks a moment later: a call to
			// the webhook processor before that is a 404 (seen in CI on the first call after activation).
			await webhooksRegistered(wf, true);
		},
		async deactivate(wf) {
			await (await rest()).request('POST', `/rest/workflows/${wf.id}/deactivate`, {});
			await webhooksRegistered(wf, false);
		},
		start: () => clusterLib.startCluster(c),
		async stop() {
			await clusterLib.stopCluster(c);
			session = null;
		},
		async requests() {
			const r = await sandbox.control.requests();
			return Array.isArray(r) ? r : r.requests;
		},
		async waitForExecutions(workflowId, count, { timeoutMs = 120000, ended: isEnded = ended } = {}) {
			let last: ExecutionRow[] = [];
			try {
				return await util.waitFor(
					`${count} execution(s) of ${workflowId}`,
					async () => {
						last = await db.executions(workflowId);
						return last.length >= count && last.every(isEnded) ? last : null;
					},
					{ timeoutMs, intervalMs: 500 },
				);
			} catch (e) {
				const states = last.map((r) => `${r.id}:${r.status}`).join(' ');
				throw new Error(`${(e as Error).message} (have ${last.length}: ${states})`);
			}
		},
		execution: (id) => db.execution(id),
		workersThatRan(id) {
			return c.workers.flatMap((w: N8nProcess) => clusterLib.executionsStartedBy(w).filter((x: number) => x === id).map(() => w.label));
		},
		async teardown() {
			await clusterLib.stopCluster(c);
			await util.stopProcess(sandbox.proc);
			await db.close();
		},
	};
	return cluster;
}

/** Fails with the execution's own error when it did not succeed. */
export function expectSuccess(exec: Execution): void {
	if (exec.status !== 'success') {
		const errors = Object.keys(exec.data?.resultData?.runData ?? {})
			.map((node) => ({ node, error: exec.node(node)?.error }))
			.filter((n) => n.error);
		throw new Error(`Execution ${exec.id} ended "${exec.status}": ${JSON.stringify(exec.data?.resultData?.error ?? errors).slice(0, 1500)}`);
	}
}

/** The sample notifications of the spec, by file name. */
export function sampleNotification(prefix: string): any {
	const dir = context().notifications;
	const file = readdirSync(dir).find((f) => f.startsWith(prefix));
	if (!file) throw new Error(`No sample notification ${prefix}* in ${dir}`);
	return JSON.parse(readFileSync(join(dir, file), 'utf8'));
}

export { util };
