/**
 * The repository's scripts (scripts/lib, plain JavaScript) as the real-n8n benchmarks use them, typed once: the cached
 * n8n install, the packed package, the sandbox gateway in its own process, n8n's CLI, Postgres.
 */
import { ENDPOINTS } from '../nodes/gateway/spec';

/* eslint-disable @typescript-eslint/no-var-requires */

export interface Runtime {
	node24: { node: string; nodeDir: string };
	n8n: { bin: string; version: string };
}

export interface SandboxProcess {
	url: string;
	apiKey: string;
	phoneId: string;
	proc: unknown;
}

export interface Postgres {
	host: string;
	port: number;
	user: string;
	password: string;
	proc: { child: { pid: number } };
	stop(): Promise<void>;
}

export type N8nInstance = { env?: Record<string, string> } & Record<string, unknown>;

/** A request the sandbox recorded (its `/requests` answer). */
export interface Recorded {
	path: string;
	status: number;
	receivedAt: number;
	/** When the sandbox wrote the answer (absent for none). */
	answeredAt?: number;
	body: { to?: string };
}

export const install = require('../scripts/lib/install') as { ensureRuntime(): Promise<Runtime> };

export const pkg = require('../scripts/lib/package') as {
	buildAndPack(outDir: string): Promise<string>;
	installIntoN8n(tarball: string, userFolder: string): Promise<string>;
};

export const sandboxLib = require('../scripts/lib/sandbox') as {
	startSandbox(options: { port: number; logDir: string; node: string }): Promise<SandboxProcess>;
};

export const services = require('../scripts/lib/services') as {
	startPostgres(options: { logDir: string }): Promise<Postgres>;
	postgresBinDir(): string | null;
};

export const n8n = require('../scripts/lib/n8n') as {
	createInstance(options: object): N8nInstance;
	importCredential(inst: object, gateway: object): Promise<void>;
	importWorkflows(inst: object, workflows: object[]): Promise<Array<{ id: string; name: string }>>;
	cli(inst: object, args: string[]): Promise<string>;
};

export const util = require('../scripts/lib/util') as {
	freePort(): Promise<number>;
	stopProcess(proc: unknown): Promise<void>;
	run(cmd: string, args: string[], options?: object): Promise<string>;
	killAllSync(): void;
};

/**
 * n8n's own HTTP Request node posting to the sandbox what Message > Send posts (each item's `body`), `batchSize`
 * requests started every `batchInterval` ms: the reference the benches compare the node with.
 */
export function httpRequestSendNode(sandbox: SandboxProcess, batchSize: number, batchInterval: number) {
	return {
		name: 'Send',
		type: 'n8n-nodes-base.httpRequest',
		typeVersion: 4.2,
		position: [440, 0],
		parameters: {
			method: 'POST',
			url: `${sandbox.url}${ENDPOINTS.messages.path}`,
			sendHeaders: true,
			headerParameters: {
				parameters: [
					{ name: 'apikey', value: sandbox.apiKey },
					{ name: 'version', value: ENDPOINTS.messages.version },
				],
			},
			sendBody: true,
			specifyBody: 'json',
			jsonBody: '={{ JSON.stringify($json.body) }}',
			options: { batching: { batch: { batchSize, batchInterval } } },
		},
	};
}

/** A call to the sandbox's control API (`/__sandbox/<what>`): its JSON answer. */
export async function control(sandbox: SandboxProcess, method: string, what: string, body?: object): Promise<unknown> {
	const response = await fetch(`${sandbox.url}/__sandbox/${what}`, {
		method,
		headers: body ? { 'content-type': 'application/json' } : {},
		body: body ? JSON.stringify(body) : undefined,
	});
	if (!response.ok) throw new Error(`sandbox ${what}: ${response.status} ${await response.text()}`);
	return await response.json();
}
