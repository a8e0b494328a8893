/**
 * Does Message > Send keep Parallel Requests in flight in a real n8n 2.41.1 (issue 35)? One `n8n execute` per run
 * against the sandbox gateway in its own process, Messages per Second 1000, recipient and text from an expression
 * per item (distinct recipients, as in messages.n8n.bench.ts), each run timed at the gateway from the first request's
 * arrival to the last answer:
 *
 * (a) 2,000 texts, Parallel Requests 20, gateway latency 100 ms: against N / P x latency (target <= 1.10x);
 * (b) 3,000 texts, Parallel Requests 100, latency 100 ms: its rate;
 * (c) the workflow of (b) with latency 0 (loopback): the node's own CPU-bound rate on this machine; (b) / (c) is
 *     how much of the latency the node hides (target >= 0.9);
 * (d) n8n's HTTP Request node posting the same bodies (pre-built in the Code node, one expression per item), in
 *     batches of P every 100 ms (Options > Batching): the closest it comes to "P in flight", as it bounds how many
 *     requests start per interval, not how many wait for an answer. The workflows of (a) and (b), the latter also at
 *     0 ms, as floors of what n8n's own node reaches.
 *
 * From the sandbox's record of each request's arrival and answer: the requests in flight at the gateway over time
 * (median over time, the share of time with fewer than P, the mean), how long the gateway held a request, and the
 * turnaround outside the gateway (from the k-th answer to the (k+P)-th arrival: the answer's way back, n8n's and the
 * node's work between two requests of a slot, the next connection and request), and the bursts of arrivals (none more
 * than 15 ms after the one before): P requests that leave together, come back together and are worked on one after
 * another show as bursts of P, with nothing in flight while the next burst is prepared.
 *
 * Runs go in rounds (ROUNDS, default 2), the second in the reverse order of the first (A B ... B A), so that a busy
 * stretch of the shared machine weighs on every figure alike; the best run of each counts, all are printed with the
 * load average. Each run's arrival and answer times are kept in test-artifacts/bench/n8n-pipeline-<time>/times/. `MESSAGES=500` shortens every run; `MG_TARBALL=path.tgz` uses an already packed package.
 *
 * `PROFILE=1`: instead, runs (a) and (b) once each with `node --cpu-prof` on `n8n execute` (NODE_OPTIONS) and prints
 * where n8n's process spent the node's stretch (bench/cpuProfile.ts); the profiles stay under test-artifacts/bench/.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';

import { CHANNEL, ENDPOINTS } from '../nodes/gateway/spec';
import { describeProfile, summarize, type CpuProfile } from './cpuProfile';
import { control, httpRequestSendNode, install, n8n, pkg, sandboxLib, util, type N8nInstance, type Recorded, type SandboxProcess } from './n8nScripts';
import { PERSONAL_TEXT } from './workload';

const LATENCY_MS = 100;
const MESSAGES_PER_SECOND = 1000;
const ROUNDS = Number(process.env.ROUNDS ?? 2);
const PROFILE = process.env.PROFILE === '1';
const COUNT_A = Number(process.env.MESSAGES ?? 2000);
const COUNT_B = Number(process.env.MESSAGES ?? 3000);
const TARGET_A = 1.1;
const TARGET_B_OVER_C = 0.9;
const REPO = path.join(__dirname, '..');

process.once('exit', () => util.killAllSync());

const trigger = { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
const connections = {
	Start: { main: [[{ node: 'Input', type: 'main', index: 0 }]] },
	Input: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
};

/** The items in the Code node itself (a 3,000-item literal would weigh on the workflow's import and save). */
const PEOPLE = (count: number) =>
	`Array.from({ length: ${count} }, (_, i) => ({ phone: '+55 11 9' + String(30000000 + i), name: 'Cliente ' + i }))`;

function ourWorkflow(count: number, parallel: number) {
	return {
		name: `bench pipeline: Message > Send, ${count} texts, Parallel Requests ${parallel}`,
		nodes: [
			trigger,
			{ name: 'Input', type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0], parameters: { jsCode: `return ${PEOPLE(count)}.map((json) => ({ json }));` } },
			{
				name: 'Send',
				type: 'n8n-nodes-messaging-gateway.messagingGateway',
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					...PERSONAL_TEXT,
					sending: { parallelRequests: parallel, messagesPerSecond: MESSAGES_PER_SECOND },
				},
			},
		],
		connections,
	};
}

/** The HTTP Request node posting what Message > Send posts, `batch` requests started every LATENCY_MS. */
function httpRequestWorkflow(sandbox: SandboxProcess, count: number, batch: number) {
	const body = `{ messaging_product: '${CHANNEL}', recipient_type: 'individual', to: p.phone.replace(/\\D/g, ''), type: 'text', text: { body: 'Olá ' + p.name + ', seu pedido saiu para entrega.' } }`;
	return {
		name: `bench pipeline: HTTP Request node, ${count} bodies, batches of ${batch} every ${LATENCY_MS} ms`,
		nodes: [
			trigger,
			{ name: 'Input', type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0], parameters: { jsCode: `return ${PEOPLE(count)}.map((p) => ({ json: { body: ${body} } }));` } },
			httpRequestSendNode(sandbox, batch, LATENCY_MS),
		],
		connections,
	};
}

type Key = 'a' | 'b' | 'c' | 'a-http' | 'b-http' | 'c-http';

interface Scenario {
	key: Key;
	label: string;
	workflow: { id: string; name: string };
	count: number;
	parallel: number;
	latencyMs: number;
}

interface RunFigures {
	/** First arrival to last answer at the gateway. */
	ms: number;
	rate: number;
	/** Time-weighted over the run: the median of the requests in flight, the share of time with fewer than P, the mean. */
	inFlightMedian: number;
	belowP: number;
	inFlightMean: number;
	holdMedianMs: number;
	turnaroundMedianMs: number;
	turnaroundP90Ms: number;
	/** Arrivals grouped into bursts (no gap over BURST_GAP_MS inside one): how many, and the size of the burst the median request came in. */
	bursts: number;
	burstMedian: number;
	/** `n8n execute` as a whole (its start-up included), and its CPU (the children it waited for included). */
	executeMs: number;
	cpuMs: number;
	load: [number, number];
}

/** CPU ms of the children this process waited for (cutime + cstime, in 1/100 s): `n8n execute` and those it waited for. */
function childrenCpuMs(): number {
	const stat = fs.readFileSync('/proc/self/stat', 'utf8');
	const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
	return (fields[13] + fields[14]) * 10;
}

const quantile = (sorted: number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];

/** Two arrivals further apart than this start a new burst. */
const BURST_GAP_MS = 15;

/** Sizes of the bursts of arrivals (sorted arrival times): P requests leaving together show as bursts of P. */
function burstSizes(arrivals: number[]): number[] {
	const sizes = [1];
	for (let i = 1; i < arrivals.length; i++) {
		if (arrivals[i] - arrivals[i - 1] > BURST_GAP_MS) sizes.push(0);
		sizes[sizes.length - 1]++;
	}
	return sizes;
}

/** In flight at the gateway over [first arrival, last answer], weighted by time. */
function inFlight(requests: Array<{ receivedAt: number; answeredAt: number }>, parallel: number) {
	const events: Array<[number, number]> = [];
	for (const r of requests) events.push([r.receivedAt, 1], [r.answeredAt, -1]);
	events.sort((x, y) => x[0] - y[0] || x[1] - y[1]);
	const timeAt = new Map<number, number>();
	let level = 0;
	for (let i = 0; i < events.length; i++) {
		level += events[i][1];
		const next = i + 1 < events.length ? events[i + 1][0] : events[i][0];
		if (next > events[i][0]) timeAt.set(level, (timeAt.get(level) ?? 0) + next - events[i][0]);
	}
	const span = events[events.length - 1][0] - events[0][0];
	const levels = [...timeAt].sort((x, y) => x[0] - y[0]);
	let seen = 0;
	let median = 0;
	for (const [value, ms] of levels) {
		seen += ms;
		if (seen >= span / 2) {
			median = value;
			break;
		}
	}
	const below = levels.filter(([value]) => value < parallel).reduce((sum, [, ms]) => sum + ms, 0);
	const mean = levels.reduce((sum, [value, ms]) => sum + value * ms, 0) / span;
	return { span, median, belowP: below / span, mean };
}

/** Where each run's arrival and answer times are kept (`<key>-<n>.json`), for a closer look at a run afterwards. */
let timesDir: string | undefined;

async function measure(sandbox: SandboxProcess, inst: N8nInstance, scenario: Scenario): Promise<RunFigures> {
	await control(sandbox, 'POST', 'reset', {});
	await control(sandbox, 'POST', 'latency', { ms: scenario.latencyMs });
	const loadBefore = os.loadavg()[0];
	const cpuBefore = childrenCpuMs();
	const started = Date.now();
	try {
		await n8n.cli(inst, ['execute', `--id=${scenario.workflow.id}`]);
	} catch (error) {
		throw new Error(`"${scenario.workflow.name}" failed: ${String((error as Error).message).slice(-2000)}`);
	}
	const executeMs = Date.now() - started;
	const cpuMs = childrenCpuMs() - cpuBefore;
	const recorded = ((await control(sandbox, 'GET', 'requests')) as Recorded[]).filter((r) => r.path === ENDPOINTS.messages.path);
	const accepted = new Set(recorded.filter((r) => r.status === 200).map((r) => r.body.to));
	if (recorded.length !== scenario.count || accepted.size !== scenario.count || recorded.some((r) => r.answeredAt === undefined)) {
		throw new Error(`"${scenario.workflow.name}": ${recorded.length} requests, ${accepted.size} distinct recipients accepted, expected ${scenario.count} of each`);
	}
	const requests = recorded as Array<Recorded & { answeredAt: number }>;
	if (timesDir) {
		const times = requests.map((r) => [r.receivedAt, r.answeredAt]);
		const file = (n: number) => path.join(timesDir!, `${scenario.key}-${n}.json`);
		let n = 1;
		while (fs.existsSync(file(n))) n++;
		fs.writeFileSync(file(n), JSON.stringify({ scenario: scenario.label, parallel: scenario.parallel, times }));
	}
	const flight = inFlight(requests, scenario.parallel);
	const holds = requests.map((r) => r.answeredAt - r.receivedAt).sort((x, y) => x - y);
	const arrivals = requests.map((r) => r.receivedAt).sort((x, y) => x - y);
	const answers = requests.map((r) => r.answeredAt).sort((x, y) => x - y);
	const turnarounds = answers
		.slice(0, Math.max(0, answers.length - scenario.parallel))
		.map((answer, k) => arrivals[k + scenario.parallel] - answer)
		.sort((x, y) => x - y);
	const bursts = burstSizes(arrivals).sort((x, y) => x - y);
	let counted = 0;
	const burstMedian = bursts.find((size) => (counted += size) >= requests.length / 2) ?? 0;
	return {
		ms: flight.span,
		rate: (scenario.count / flight.span) * 1000,
		inFlightMedian: flight.median,
		belowP: flight.belowP,
		inFlightMean: flight.mean,
		holdMedianMs: quantile(holds, 0.5),
		turnaroundMedianMs: turnarounds.length ? quantile(turnarounds, 0.5) : NaN,
		turnaroundP90Ms: turnarounds.length ? quantile(turnarounds, 0.9) : NaN,
		bursts: bursts.length,
		burstMedian,
		executeMs,
		cpuMs,
		load: [loadBefore, os.loadavg()[0]],
	};
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

function describe(run: RunFigures, scenario: Scenario): string {
	return (
		`${seconds(run.ms)}, ${run.rate.toFixed(0)} msg/s; in flight: median ${run.inFlightMedian}, mean ${run.inFlightMean.toFixed(1)}, ` +
		`fewer than ${scenario.parallel} ${(run.belowP * 100).toFixed(0)}% of the time; gateway hold median ${run.holdMedianMs} ms, ` +
		`turnaround median ${run.turnaroundMedianMs} ms (p90 ${run.turnaroundP90Ms}); ${run.bursts} bursts of arrivals, the median request's of ${run.burstMedian}; ` +
		`n8n execute ${seconds(run.executeMs)}, ` +
		`CPU ${seconds(run.cpuMs)}; load ${run.load[0].toFixed(1)} -> ${run.load[1].toFixed(1)}`
	);
}

async function profileRuns(sandbox: SandboxProcess, inst: N8nInstance, scenarios: Scenario[], dir: string) {
	for (const scenario of scenarios) {
		const profileDir = path.join(dir, `profile-${scenario.key}`);
		fs.mkdirSync(profileDir, { recursive: true });
		inst.env = { NODE_OPTIONS: `--cpu-prof --cpu-prof-dir=${profileDir}` };
		const run = await measure(sandbox, inst, scenario);
		inst.env = {};
		console.log(`\n-- ${scenario.label}, under --cpu-prof: ${describe(run, scenario)}`);
		// The largest profile is n8n's own process (its task runner, which ran the Code node, writes one too).
		const files = fs.readdirSync(profileDir).map((file) => path.join(profileDir, file));
		const largest = files.sort((x, y) => fs.statSync(y).size - fs.statSync(x).size)[0];
		if (!largest) throw new Error(`no profile was written to ${profileDir}`);
		const profile = JSON.parse(fs.readFileSync(largest, 'utf8')) as CpuProfile;
		console.log(`profile: ${path.relative(REPO, largest)}`);
		console.log(describeProfile(summarize(profile), scenario.count).join('\n'));
	}
}

async function main() {
	const runtime = await install.ensureRuntime();
	const base = path.join(REPO, 'test-artifacts', 'bench', `n8n-pipeline-${Date.now()}`);
	const userFolder = path.join(base, 'n8n');
	const logDir = path.join(base, 'logs');
	fs.mkdirSync(userFolder, { recursive: true });
	fs.mkdirSync(logDir, { recursive: true });
	timesDir = path.join(base, 'times');
	fs.mkdirSync(timesDir, { recursive: true });
	const tarball = process.env.MG_TARBALL ? path.resolve(process.env.MG_TARBALL) : await pkg.buildAndPack(path.join(base, 'pack'));
	await pkg.installIntoN8n(tarball, userFolder);
	const sandbox = await sandboxLib.startSandbox({ port: await util.freePort(), logDir, node: runtime.node24.node });
	try {
		const inst = n8n.createInstance({ runtime, userFolder, port: await util.freePort(), brokerPort: await util.freePort(), logDir });
		await n8n.importCredential(inst, { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url });
		const [oursA, oursB, httpA, httpB] = await n8n.importWorkflows(inst, [
			ourWorkflow(COUNT_A, 20),
			ourWorkflow(COUNT_B, 100),
			httpRequestWorkflow(sandbox, COUNT_A, 20),
			httpRequestWorkflow(sandbox, COUNT_B, 100),
		]);
		const scenario = (key: Key, label: string, workflow: { id: string; name: string }, count: number, parallel: number, latencyMs: number): Scenario => ({
			key,
			label,
			workflow,
			count,
			parallel,
			latencyMs,
		});
		const a = scenario('a', `(a) Message > Send, ${COUNT_A} texts, P 20, ${LATENCY_MS} ms`, oursA, COUNT_A, 20, LATENCY_MS);
		const b = scenario('b', `(b) Message > Send, ${COUNT_B} texts, P 100, ${LATENCY_MS} ms`, oursB, COUNT_B, 100, LATENCY_MS);
		const c = scenario('c', `(c) Message > Send, ${COUNT_B} texts, P 100, 0 ms`, oursB, COUNT_B, 100, 0);
		const aHttp = scenario('a-http', `(d) HTTP Request node, ${COUNT_A}, 20 every ${LATENCY_MS} ms, ${LATENCY_MS} ms`, httpA, COUNT_A, 20, LATENCY_MS);
		const bHttp = scenario('b-http', `(d) HTTP Request node, ${COUNT_B}, 100 every ${LATENCY_MS} ms, ${LATENCY_MS} ms`, httpB, COUNT_B, 100, LATENCY_MS);
		const cHttp = scenario('c-http', `(d) HTTP Request node, ${COUNT_B}, 100 every ${LATENCY_MS} ms, 0 ms`, httpB, COUNT_B, 100, 0);

		console.log(`n8n ${runtime.n8n.version}, Messages per Second ${MESSAGES_PER_SECOND}, timed at the gateway; ${os.cpus().length} cores`);
		if (PROFILE) return await profileRuns(sandbox, inst, [a, b], base);

		const order = [a, aHttp, b, c, cHttp, bHttp];
		const runs = new Map<Key, RunFigures[]>();
		for (let round = 0; round < ROUNDS; round++) {
			for (const s of round % 2 === 0 ? order : [...order].reverse()) {
				const run = await measure(sandbox, inst, s);
				runs.set(s.key, [...(runs.get(s.key) ?? []), run]);
				console.log(`round ${round + 1} ${s.label}: ${describe(run, s)}`);
			}
		}

		const best = (s: Scenario) => (runs.get(s.key) ?? []).reduce((x, y) => (y.ms < x.ms ? y : x));
		const all = (s: Scenario) => (runs.get(s.key) ?? []).map((run) => seconds(run.ms)).join(', ');
		const bound = (s: Scenario) => (s.count / s.parallel) * LATENCY_MS;
		console.log(`\n-- best of ${ROUNDS} (all runs: their times at the gateway)`);
		for (const s of [a, aHttp]) {
			const run = best(s);
			console.log(`${s.label}: ${describe(run, s)} [${all(s)}]`);
			console.log(`   N / P x latency ${seconds(bound(s))}: ${(run.ms / bound(s)).toFixed(2)}x${s.key === 'a' ? ` (target <= ${TARGET_A})` : ''}`);
		}
		const pairs: Array<[Scenario, Scenario]> = [
			[b, c],
			[bHttp, cHttp],
		];
		for (const [latent, loopback] of pairs) {
			const [slow, fast] = [best(latent), best(loopback)];
			console.log(`${latent.label}: ${describe(slow, latent)} [${all(latent)}]`);
			console.log(`${loopback.label}: ${describe(fast, loopback)} [${all(loopback)}]`);
			const capped = fast.rate > 0.95 * MESSAGES_PER_SECOND ? ` (the loopback rate is at the ${MESSAGES_PER_SECOND}/s cap: the ratio is a lower bound)` : '';
			console.log(`   rate at ${LATENCY_MS} ms / rate at 0 ms: ${(slow.rate / fast.rate).toFixed(2)}${latent.key === 'b' ? ` (target >= ${TARGET_B_OVER_C})` : ''}${capped}`);
		}
	} finally {
		await util.stopProcess(sandbox.proc);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
