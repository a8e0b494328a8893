/**
 * Where a process's time went, read from a V8 CPU profile (`node --cpu-prof`): bench/pipeline.n8n.bench.ts profiles
 * `n8n execute` with it. Only the node's own stretch counts: from the first sample under the node's `execute` to the
 * last sample with a frame of this package in its stack (n8n's start-up, which loads the package, the Code node and
 * the execution's save are left out).
 *
 * Each sample is charged to the file of its innermost JavaScript frame; native frames (JSON.parse, a C++ binding, the
 * expression isolate's synchronous calls) are charged to the JavaScript frame that called them. The files are then
 * grouped into areas (AREAS). `(idle)` is the event loop waiting (nothing to run: every slot is waiting for an answer
 * or a timer), `(program)` native work V8 cannot attribute to a function (libuv, socket system calls, the HTTP parser),
 * `(garbage collector)` the collector.
 *
 * Also: the time of samples whose (synchronous) stack passes through a given function, and how the time under the
 * node's own frames splits by area. `npx ts-node --transpile-only bench/cpuProfile.ts <file.cpuprofile>` prints the
 * same for a profile taken another way.
 */
import fs from 'node:fs';

interface CallFrame {
	functionName: string;
	url: string;
	lineNumber: number;
}

interface ProfileNode {
	id: number;
	callFrame: CallFrame;
	children?: number[];
}

export interface CpuProfile {
	nodes: ProfileNode[];
	startTime: number;
	endTime: number;
	samples: number[];
	timeDeltas: number[];
}

/** The installed package's compiled files, as n8n loads them from its nodes folder. */
const OURS = /\/node_modules\/n8n-nodes-messaging-gateway\/dist\/(.*)$/;

/** Areas by file, first match wins; the file key is `<package>/<path>` or `node:<module>`. */
const AREAS: Array<[RegExp, string]> = [
	[/^ours:/, 'the node (this package)'],
	[/^n8n-core\/dist\/execution-engine\/node-execution-context\/utils\/request-helpers\//, "request helper: n8n-core's httpRequestWithAuthentication"],
	[/^@n8n\/backend-network\//, 'request helper: @n8n/backend-network (agents, axios options)'],
	[/^(axios|follow-redirects|proxy-from-env|form-data|combined-stream|asynckit|mime-types|mime-db)\//, 'request helper: axios, follow-redirects'],
	[/^node:(_http_|http$|https$|net$|dns$|tls$|stream|internal\/(http|net|stream|dns|url|streams|perf\/observe))/, 'Node: http, net, streams (a new connection per request)'],
	[/^n8n\/dist\/credentials-helper|^n8n-core\/dist\/credentials|^n8n\/dist\/credential/, 'credentials: authenticate, decrypt'],
	[
		// luxon: the data proxy of every expression builds $now and $today (n8n-workflow workflow-data-proxy.js:1311).
		/^(@n8n\/expression-runtime|isolated-vm|@n8n\/tournament|luxon\/|n8n-workflow\/dist\/cjs\/(expression|workflow-expression|workflow-data-proxy|extensions|expressions|augment-object))/,
		'expressions (evaluation, $json proxies, the isolate)',
	],
	[
		/^(n8n-core\/dist\/execution-engine\/node-execution-context\/|n8n-workflow\/dist\/cjs\/(node-helpers|node-parameters|type-validation|common|utils))/,
		'n8n: node parameters and the execution context',
	],
	[/^(typeorm|@n8n\/db|sqlite3|@n8n\/typeorm)\//, 'database'],
	[/^(n8n|n8n-core|n8n-workflow|@n8n\/[^/]+)\//, 'n8n: other (engine, logging, events)'],
	[/^node:/, 'Node: other internals (timers, promises, events)'],
];

const SPECIAL = new Set(['(garbage collector)', '(idle)', '(program)', '(root)']);

/** `<package>/<path inside it>`, `ours:<path>`, `node:<module>`, or null for a native frame (charged to its caller). */
export function fileKey(frame: CallFrame): string | null {
	if (SPECIAL.has(frame.functionName) && frame.url === '') return frame.functionName;
	const { url } = frame;
	if (url === '') return null;
	if (url.startsWith('node:')) return url;
	const ours = OURS.exec(url);
	if (ours) return `ours:${ours[1]}`;
	const path = url.replace(/^file:\/\//, '');
	const at = path.lastIndexOf('/node_modules/');
	if (at < 0) return path;
	const rest = path.slice(at + '/node_modules/'.length);
	return rest;
}

export function areaOf(key: string): string {
	if (SPECIAL.has(key)) return key;
	for (const [pattern, area] of AREAS) if (pattern.test(key)) return area;
	return 'other';
}

/** Functions whose inclusive (synchronous) time is printed: [label, file key pattern, function name]. */
const THROUGH: Array<[string, RegExp, string]> = [
	["n8n-core httpRequestWithAuthentication (request-helpers/authentication.js)", /request-helpers\/authentication\.js$/, 'httpRequestWithAuthentication'],
	['credentialsHelper.authenticate (n8n/dist/credentials-helper.js)', /^n8n\/dist\/credentials-helper\.js$/, 'authenticate'],
	["credentialsHelper.resolveValue (the credential's ={{$credentials.apiKey}}, per request)", /^n8n\/dist\/credentials-helper\.js$/, 'resolveValue'],
	['credentialsHelper.getDecrypted (a credential read: database, decrypt)', /^n8n\/dist\/credentials-helper\.js$/, 'getDecrypted'],
	['@n8n/backend-network httpRequest (axios/request.js)', /^@n8n\/backend-network\/dist\/http\/axios\/request\.js$/, 'httpRequest'],
	['@n8n/backend-network buildNodeAgents (a new http and https agent)', /^@n8n\/backend-network\/dist\/http\/node-agents\.js$/, 'buildNodeAgents'],
	['axios dispatchHttpRequest', /^axios\//, 'dispatchHttpRequest'],
	[
		'WorkflowExpression.resolveSimpleParameterValue (every expression: data proxy and evaluation)',
		/^n8n-workflow\/dist\/cjs\/workflow-expression\.js$/,
		'resolveSimpleParameterValue',
	],
	['the isolate bridge execute (@n8n/expression-runtime isolated-vm-bridge.js)', /^@n8n\/expression-runtime\/dist\/cjs\/bridge\/isolated-vm-bridge\.js$/, 'execute'],
	['getNodeParameter (n8n-core, parameters with their expressions)', /^n8n-core\/dist\/execution-engine\/node-execution-context\//, '_getNodeParameter'],
];

export interface ProfileSummary {
	/** The node's stretch of the profile, ms. */
	windowMs: number;
	/** ms by area, and by file within the area. */
	areas: Map<string, { ms: number; files: Map<string, number> }>;
	through: Array<{ label: string; ms: number }>;
	/** Samples with a frame of ours in their stack, by the area of their leaf: where time under our code goes. */
	underOurs: Map<string, number>;
	underOursMs: number;
}

export function summarize(profile: CpuProfile): ProfileSummary {
	const byId = new Map<number, ProfileNode>();
	const parent = new Map<number, number>();
	for (const node of profile.nodes) byId.set(node.id, node);
	for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
	const stackOf = (id: number): ProfileNode[] => {
		const stack: ProfileNode[] = [];
		for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) stack.push(byId.get(at)!);
		return stack; // leaf first
	};
	const hasOurs = new Map<number, boolean>();
	const oursIn = (id: number) => {
		let known = hasOurs.get(id);
		if (known === undefined) {
			known = stackOf(id).some((node) => OURS.test(node.callFrame.url));
			hasOurs.set(id, known);
		}
		return known;
	};

	// Sample i lasts until sample i + 1.
	const { samples, timeDeltas } = profile;
	const duration = samples.map((_, i) => (i + 1 < timeDeltas.length ? timeDeltas[i + 1] : 0) / 1000);
	const underExecute = (id: number) => stackOf(id).some((node) => node.callFrame.functionName === 'execute' && OURS.test(node.callFrame.url));
	let first = samples.findIndex(underExecute);
	let last = samples.length - 1;
	while (last >= 0 && !oursIn(samples[last])) last--;
	if (first < 0) first = last = -1;

	const areas = new Map<string, { ms: number; files: Map<string, number> }>();
	const through = THROUGH.map(([label]) => ({ label, ms: 0 }));
	const underOurs = new Map<string, number>();
	let windowMs = 0;
	let underOursMs = 0;
	for (let i = first; i >= 0 && i <= last; i++) {
		const ms = duration[i];
		windowMs += ms;
		const stack = stackOf(samples[i]);
		let key: string | null = null;
		for (const node of stack) {
			key = fileKey(node.callFrame);
			if (key !== null) break;
		}
		key ??= '(program)';
		const area = areaOf(key);
		const entry = areas.get(area) ?? { ms: 0, files: new Map<string, number>() };
		entry.ms += ms;
		entry.files.set(key, (entry.files.get(key) ?? 0) + ms);
		areas.set(area, entry);
		THROUGH.forEach(([, file, name], k) => {
			if (stack.some((node) => node.callFrame.functionName === name && file.test(fileKey(node.callFrame) ?? ''))) through[k].ms += ms;
		});
		if (oursIn(samples[i])) {
			underOursMs += ms;
			underOurs.set(area, (underOurs.get(area) ?? 0) + ms);
		}
	}
	return { windowMs, areas, through, underOurs, underOursMs };
}

const pct = (part: number, whole: number) => `${((part / whole) * 100).toFixed(1).padStart(5)}%`;
const ms = (value: number) => `${value.toFixed(0).padStart(6)} ms`;

/** The summary as lines: areas with their largest files, the functions' inclusive times, the split under our code. */
export function describeProfile(summary: ProfileSummary, messages: number, filesPerArea = 4): string[] {
	const lines: string[] = [];
	const { windowMs } = summary;
	lines.push(`the node's stretch of the profile: ${(windowMs / 1000).toFixed(2)} s (${(windowMs / messages).toFixed(2)} ms a message)`);
	lines.push('by area (self time; native calls charged to their JavaScript caller):');
	for (const [area, entry] of [...summary.areas].sort((a, b) => b[1].ms - a[1].ms)) {
		lines.push(`  ${ms(entry.ms)} ${pct(entry.ms, windowMs)}  ${(entry.ms / messages).toFixed(3)} ms/msg  ${area}`);
		const files = [...entry.files].sort((a, b) => b[1] - a[1]);
		const shown = area === 'the node (this package)' ? files : files.slice(0, filesPerArea);
		for (const [file, fileMs] of shown) if (file !== area) lines.push(`               ${ms(fileMs)} ${pct(fileMs, windowMs)}  ${file}`);
	}
	lines.push('time of the samples whose synchronous stack passes through (inclusive; overlaps):');
	for (const { label, ms: value } of summary.through) {
		lines.push(`  ${ms(value)} ${pct(value, windowMs)}  ${(value / messages).toFixed(3)} ms/msg  ${label}`);
	}
	lines.push(`time with a frame of the node in the stack: ${ms(summary.underOursMs)} ${pct(summary.underOursMs, windowMs)}, spent in:`);
	for (const [area, value] of [...summary.underOurs].sort((a, b) => b[1] - a[1])) {
		lines.push(`  ${ms(value)} ${pct(value, windowMs)}  ${area}`);
	}
	return lines;
}

if (require.main === module) {
	const file = process.argv[2];
	if (!file) {
		console.error('usage: ts-node bench/cpuProfile.ts <file.cpuprofile> [messages]');
		process.exit(2);
	}
	const profile = JSON.parse(fs.readFileSync(file, 'utf8')) as CpuProfile;
	console.log(describeProfile(summarize(profile), Number(process.argv[3] ?? 1)).join('\n'));
}
