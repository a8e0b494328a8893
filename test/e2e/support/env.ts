/**
 * What every e2e file needs: the context written by scripts/e2e.js, and a fresh n8n user folder with the packed
 * package installed, a sandbox gateway and the credential. The scripts in scripts/lib do the real work.
 */
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';

import { listExecutions, getExecution, type Execution } from './db';

/* eslint-disable @typescript-eslint/no-var-requires */
const util = require('../../../scripts/lib/util');
const n8n = require('../../../scripts/lib/n8n');
const pkg = require('../../../scripts/lib/package');
const sandboxLib = require('../../../scripts/lib/sandbox');
/* eslint-enable @typescript-eslint/no-var-requires */

// n8n and the sandbox run in their own process groups: if Jest ends early (Ctrl-C, a crash), end them too.
process.once('exit', () => util.killAllSync());

export interface Context {
	node24: string;
	nodeDir: string;
	n8nBin: string;
	n8nVersion: string;
	tarball: string;
	artifacts: string;
	notifications: string;
	chromium: string | null;
	browserUnavailable: string | null;
	browserSkipped: string | null;
	playwright: string | null;
}

export function context(): Context {
	const file = process.env.MG_E2E_CONTEXT;
	if (!file) throw new Error('Run the e2e suite with `npm run test:e2e` (MG_E2E_CONTEXT is not set)');
	return JSON.parse(readFileSync(file, 'utf8'));
}

export const PACKAGE = 'n8n-nodes-messaging-gateway';
export const ACTION = `${PACKAGE}.messagingGateway`;
export const TRIGGER = `${PACKAGE}.messagingGatewayTrigger`;

export interface SandboxRequest {
	method: string;
	path: string;
	query?: Record<string, string>;
	headers: Record<string, string>;
	body: any;
	status?: number;
	responseBody?: any;
	[k: string]: unknown;
}

export interface Sandbox {
	url: string;
	apiKey: string;
	phoneId: string;
	kind: string;
	control: {
		requests(): Promise<any>;
		state(): Promise<any>;
		reset(): Promise<unknown>;
		fail(spec: unknown): Promise<unknown>;
		deliver(body: unknown): Promise<any>;
		info(): Promise<{ url: string; apiKey: string; phoneId: string }>;
		templateStatus(id: string, status: string): Promise<unknown>;
		/** Every following gateway request is answered after `ms` milliseconds (0: at once). */
		latency(ms: number): Promise<unknown>;
	};
}

export interface Workflow {
	id?: string;
	name: string;
	nodes: any[];
	connections: Record<string, unknown>;
	settings?: Record<string, unknown>;
	[k: string]: unknown;
}

export interface Env {
	ctx: Context;
	inst: any;
	sandbox: Sandbox;
	db: string;
	userFolder: string;
	logDir: string;
	/** Import workflows (ids derived from names); returns them with ids. */
	importWorkflows(wfs: Workflow[]): Promise<Workflow[]>;
	/** `n8n execute --id` and the resulting execution from the database. */
	execute(wf: Workflow): Promise<Execution>;
	cli(args: string[]): Promise<string>;
	start(): Promise<void>;
	stop(): Promise<void>;
	requests(): Promise<SandboxRequest[]>;
	teardown(): Promise<void>;
}

/** Fresh user folder + package + sandbox + credential. `name` names the folder under test-artifacts/. */
export async function setup(name: string): Promise<Env> {
	const ctx = context();
	const base = join(ctx.artifacts, 'runs', `${name}-${Date.now()}`);
	mkdirSync(base, { recursive: true });
	const userFolder = join(base, 'n8n');
	const logDir = join(base, 'logs');
	mkdirSync(userFolder, { recursive: true });
	mkdirSync(logDir, { recursive: true });
	const runtime = { node24: { node: ctx.node24, nodeDir: ctx.nodeDir }, n8n: { bin: ctx.n8nBin, version: ctx.n8nVersion } };

	await pkg.installIntoN8n(ctx.tarball, userFolder);
	const sandbox: Sandbox = await sandboxLib.startSandbox({ port: await util.freePort(), logDir, node: ctx.node24 });
	const inst = n8n.createInstance({ runtime, userFolder, port: await util.freePort(), brokerPort: await util.freePort(), logDir });
	await n8n.importCredential(inst, { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url });
	const db = n8n.n8nPaths(inst).db;

	const env: Env = {
		ctx,
		inst,
		sandbox,
		db,
		userFolder,
		logDir,
		importWorkflows: (wfs) => n8n.importWorkflows(inst, wfs),
		async execute(wf) {
			if (!wf.id) throw new Error(`Workflow "${wf.name}" has no id; import it first`);
			const before = new Set(listExecutions(db, wf.id).map((r) => r.id));
			let output = '';
			try {
				output = await n8n.cli(inst, ['execute', `--id=${wf.id}`]);
			} catch (e) {
				// A failed run exits non-zero; the execution in the database tells what happened.
				output = String((e as Error).message);
			}
			const fresh = listExecutions(db, wf.id).filter((r) => !before.has(r.id));
			if (!fresh.length) throw new Error(`No execution was saved for "${wf.name}". CLI output:\n${output.slice(-3000)}`);
			return getExecution(db, fresh[fresh.length - 1].id);
		},
		cli: (args) => n8n.cli(inst, args),
		start: () => n8n.start(inst),
		stop: () => n8n.stop(inst),
		async requests() {
			const r = await sandbox.control.requests();
			return Array.isArray(r) ? r : r.requests;
		},
		async teardown() {
			await n8n.stop(inst);
			await util.stopProcess((sandbox as any).proc);
		},
	};
	return env;
}

/** The sample notifications of the spec, by file name. */
export function sampleNotifications(): Array<{ file: string; body: any }> {
	const dir = context().notifications;
	return readdirSync(dir)
		.filter((f) => f.endsWith('.json'))
		.sort()
		.map((file) => ({ file, body: JSON.parse(readFileSync(join(dir, file), 'utf8')) }));
}

export { n8n, util };
