/**
 * The trigger against n8n's own Webhook node, in one real n8n (the e2e install: n8n 2.41.1 under Node 24, the
 * packed package installed as a user installs it). One published workflow holds both start nodes, each followed by a
 * No Op. The same notifications (each with its own message id, so that the duplicate guard holds nothing back) are
 * POSTed by 10 concurrent senders to each node in turn, in four rounds of half the count ordered A B B A, so that
 * drift of the shared machine falls on both. Prints executions per second for each (from the first request until every
 * execution of the round is finished in the database), whether anything was lost, and the ratio. It also prints the CPU
 * time the n8n process spent per delivery (all its threads, isolated-vm's included, from /proc): unlike the rate, that
 * figure hardly moves with the load of the shared machine.
 *
 * `npm run bench -- trigger`. MG_BENCH_COUNT (default 1000) notifications per node, MG_BENCH_SENDERS (default 10).
 * MG_BENCH_CPU_PROF=<dir>: n8n writes a V8 CPU profile there (node --cpu-prof; use a smaller count).
 * MG_BENCH_N8N_ENV="NAME=value,…": extra environment for n8n (for example N8N_EXPRESSION_ENGINE_LAZY_ACQUIRE=true).
 */
import { mkdirSync, readFileSync, rmSync } from 'fs';
import { join } from 'path';

/* eslint-disable @typescript-eslint/no-var-requires */
const { REPO_ROOT, freePort, installCleanup, stopAll, stopProcess, waitFor } = require('../scripts/lib/util');
const { ensureRuntime } = require('../scripts/lib/install');
const { buildAndPack, installIntoN8n } = require('../scripts/lib/package');
const n8n = require('../scripts/lib/n8n');
const sandboxLib = require('../scripts/lib/sandbox');
/* eslint-enable @typescript-eslint/no-var-requires */

const COUNT = Number(process.env.MG_BENCH_COUNT ?? 1000);
const PER_ROUND = Math.ceil(COUNT / 2);
const SENDERS = Number(process.env.MG_BENCH_SENDERS ?? 10);
const WEBHOOK_PATH = 'bench-n8n-webhook';
const TRIGGER_TYPE = 'n8n-nodes-messaging-gateway.messagingGatewayTrigger';

const workflow = {
	name: 'bench trigger vs webhook',
	nodes: [
		{
			name: 'Gateway Trigger',
			type: TRIGGER_TYPE,
			typeVersion: 1.1,
			position: [0, 0],
			parameters: { events: ['messages'], metaVersion: 'LATEST', options: {} },
		},
		{ name: 'After Trigger', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 0], parameters: {} },
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2.1,
			position: [0, 300],
			webhookId: 'a3c0f3b2-5d55-4d7e-9b8e-bench0000001',
			parameters: { httpMethod: 'POST', path: WEBHOOK_PATH, options: {} },
		},
		{ name: 'After Webhook', type: 'n8n-nodes-base.noOp', typeVersion: 1, position: [240, 300], parameters: {} },
	],
	connections: {
		'Gateway Trigger': { main: [[{ node: 'After Trigger', type: 'main', index: 0 }]] },
		Webhook: { main: [[{ node: 'After Webhook', type: 'main', index: 0 }]] },
	},
};

/** A text notification for the credential's phone, as the gateway sends it. */
function notification(phoneId: string, messageId: string) {
	return JSON.stringify({
		messaging_product: 'whatsapp',
		metadata: { display_phone_number: '5511900001111', phone_number_id: phoneId },
		contacts: [{ profile: { name: 'Ana Souza' }, wa_id: '5511988887777' }],
		messages: [
			{ from: '5511988887777', id: messageId, timestamp: '1763800000', type: 'text', text: { body: 'Olá, quero saber do meu pedido' } },
		],
	});
}

interface Target {
	label: string;
	url: string;
	headers: Record<string, string>;
}

interface RoundResult {
	label: string;
	count: number;
	seconds: number;
	answered: number;
	refused: number;
	executions: number;
	/** CPU seconds of the n8n process (user + system, all threads) during the round. */
	cpuSeconds: number;
}

/** CPU seconds (user + system, all threads) a process has used so far, from /proc/<pid>/stat. */
function cpuSecondsOf(pid: number): number {
	const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
	// Fields after the command name (which may hold spaces): state is field 3, utime 14, stime 15.
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
	return (Number(fields[11]) + Number(fields[12])) / 100; // clock ticks; USER_HZ is 100 on Linux
}

async function finishedExecutions(inst: unknown, workflowId: string): Promise<number> {
	const [rows] = await n8n.runSql(inst, [
		`SELECT COUNT(*) AS n FROM execution_entity WHERE workflowId = '${workflowId}' AND finished = 1`,
	]);
	return Number(rows[0].n);
}

async function round(
	inst: { proc: { child: { pid: number } } },
	workflowId: string,
	target: Target,
	phoneId: string,
	tag: string,
): Promise<RoundResult> {
	const before = await finishedExecutions(inst, workflowId);
	const cpuBefore = cpuSecondsOf(inst.proc.child.pid);
	let next = 0;
	let answered = 0;
	let refused = 0;
	const started = Date.now();
	const sender = async () => {
		for (;;) {
			const index = next++;
			if (index >= PER_ROUND) return;
			const res = await fetch(target.url, {
				method: 'POST',
				headers: { 'content-type': 'application/json', ...target.headers },
				body: notification(phoneId, `wamid.BENCH.${tag}.${index}`),
			});
			await res.arrayBuffer();
			if (res.status === 200) answered++;
			else refused++;
		}
	};
	await Promise.all(Array.from({ length: SENDERS }, sender));
	let executions = 0;
	await waitFor(
		`${PER_ROUND} executions of ${target.label}`,
		async () => {
			executions = (await finishedExecutions(inst, workflowId)) - before;
			return executions >= answered;
		},
		{ timeoutMs: 30 * 60 * 1000, intervalMs: 200 },
	);
	const seconds = (Date.now() - started) / 1000;
	const cpuSeconds = cpuSecondsOf(inst.proc.child.pid) - cpuBefore;
	return { label: target.label, count: PER_ROUND, seconds, answered, refused, executions, cpuSeconds };
}

async function main() {
	installCleanup();
	const runtime = await ensureRuntime();
	const base = join(REPO_ROOT, 'test-artifacts', 'bench-trigger');
	rmSync(base, { recursive: true, force: true });
	const logDir = join(base, 'logs');
	mkdirSync(logDir, { recursive: true });
	const tarball = await buildAndPack(join(base, 'pack'));
	const userFolder = join(base, 'n8n');
	mkdirSync(userFolder, { recursive: true });
	await installIntoN8n(tarball, userFolder);

	const sandbox = await sandboxLib.startSandbox({ port: await freePort(), logDir, node: runtime.node24.node });
	const inst = n8n.createInstance({ runtime, userFolder, port: await freePort(), brokerPort: await freePort(), logDir });
	try {
		await n8n.importCredential(inst, { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url });
		const [wf] = await n8n.importWorkflows(inst, [workflow]);
		await n8n.cli(inst, ['publish:workflow', `--id=${wf.id}`]);
		await n8n.start(inst, { extraEnv: n8nBenchEnv() });
		const registration = await waitFor(
			'the trigger to register at the sandbox',
			async () => (await sandbox.control.state()).webhooks[0],
			{ timeoutMs: 120000, intervalMs: 500 },
		);
		const trigger: Target = {
			label: 'Messaging Gateway Trigger 1.1',
			url: registration.endpoint,
			headers: registration.headers,
		};
		const webhook: Target = { label: "n8n's Webhook node 2.1", url: `${inst.baseUrl}/webhook/${WEBHOOK_PATH}`, headers: {} };

		console.log(
			`n8n ${runtime.n8n.version}, ${COUNT} notifications per node in 4 rounds (Webhook, trigger, trigger, Webhook), ` +
				`${SENDERS} concurrent senders; load average ${loadAverage()}`,
		);
		// Warm-up: a few of each, not counted.
		for (const target of [webhook, trigger]) {
			for (let i = 0; i < 5; i++) {
				await fetch(target.url, {
					method: 'POST',
					headers: { 'content-type': 'application/json', ...target.headers },
					body: notification(sandbox.phoneId, `wamid.WARMUP.${target.label}.${i}`),
				});
			}
		}
		await new Promise((resolve) => setTimeout(resolve, 3000));

		const results: RoundResult[] = [];
		for (const [index, target] of [webhook, trigger, trigger, webhook].entries()) {
			const result = await round(inst, wf.id, target, sandbox.phoneId, `r${index}`);
			results.push(result);
			console.log(
				`round ${index + 1} ${result.label}: ${result.count} sent, ${result.answered} answered 200, ${result.refused} refused, ` +
					`${result.executions} executions in ${result.seconds.toFixed(1)} s = ${(result.executions / result.seconds).toFixed(2)} executions/s, ` +
					`n8n CPU ${((1000 * result.cpuSeconds) / result.executions).toFixed(0)} ms per execution; load average ${loadAverage()}`,
			);
		}
		const rate = (label: string) => {
			const mine = results.filter((r) => r.label === label);
			const executions = mine.reduce((sum, r) => sum + r.executions, 0);
			const seconds = mine.reduce((sum, r) => sum + r.seconds, 0);
			const cpuMs = (1000 * mine.reduce((sum, r) => sum + r.cpuSeconds, 0)) / executions;
			return { executions, seconds, perSecond: executions / seconds, cpuMs, lost: mine.reduce((s, r) => s + r.count - r.executions, 0) };
		};
		const ours = rate(trigger.label);
		const theirs = rate(webhook.label);
		console.log('');
		for (const [label, r] of [
			[webhook.label, theirs],
			[trigger.label, ours],
		] as const) {
			console.log(
				`${label}: ${r.perSecond.toFixed(2)} executions/s (${r.executions} in ${r.seconds.toFixed(1)} s, ${r.lost} lost), ` +
					`n8n CPU ${r.cpuMs.toFixed(0)} ms per execution`,
			);
		}
		const ratio = ours.perSecond / theirs.perSecond;
		console.log(`ratio trigger / Webhook node: ${ratio.toFixed(2)}x executions/s (target >= 0.80x)`);
		console.log(`n8n CPU per delivery, Webhook node / trigger: ${(theirs.cpuMs / ours.cpuMs).toFixed(2)}x; load average ${loadAverage()}`);
		if (ours.lost > 0 || theirs.lost > 0) process.exitCode = 1;
	} finally {
		await n8n.stop(inst);
		await stopProcess(sandbox.proc);
		await stopAll();
	}
}

/** n8n's environment for the benchmark: warnings only, plus MG_BENCH_N8N_ENV and the CPU profile if asked for. */
function n8nBenchEnv(): Record<string, string> {
	const env: Record<string, string> = { N8N_LOG_LEVEL: 'warn' };
	for (const pair of (process.env.MG_BENCH_N8N_ENV ?? '').split(',').filter(Boolean)) {
		const at = pair.indexOf('=');
		env[pair.slice(0, at)] = pair.slice(at + 1);
	}
	if (process.env.MG_BENCH_CPU_PROF) env.NODE_OPTIONS = `--cpu-prof --cpu-prof-dir=${process.env.MG_BENCH_CPU_PROF}`;
	if (Object.keys(env).length > 1) console.log(`n8n environment: ${JSON.stringify(env)}`);
	return env;
}

function loadAverage(): string {
	return readFileSync('/proc/loadavg', 'utf8').split(' ').slice(0, 3).join(' ');
}

main().catch(async (error) => {
	console.error(error);
	await stopAll();
	process.exit(1);
});
