/**
 * The two structure figures of issue 35, measured so that they can be taken again after a change (`npm run structure`):
 *
 * 1. Files of ours a text message runs through: ONE Message > Send of one text item (recipient and text from an
 *    expression, as in the benchmarks) through the test harness (n8n-core's execution context) against the sandbox
 *    gateway in this process, under V8's precise coverage (function granularity, call counts). A warm-up run first
 *    loads every module, the node and credential types are built before it, and the counts are reset just before the
 *    measured run and taken right after it: what counts is what that one send called. A file counts when a function
 *    in it other than the module's top-level function ran at least once; files under nodes/ and credentials/.
 *    Beside it, how many expressions n8n evaluated for that send (calls of n8n-workflow's Expression.renderExpression):
 *    the item's recipient and text, and the credential's `={{$credentials.apiKey}}` header per request.
 * 2. The static import reach of nodes/MessagingGateway/actions/message/send.operation.ts: files of nodes/ it reaches
 *    through relative imports and re-exports that are not `import type` (the method of the before-stop hook in
 *    /work/shared/hooks/before-stop), with their lines.
 *
 * `--list` prints the files of both, with the functions that ran per file.
 */
import fs from 'node:fs';
import { Session } from 'node:inspector';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { MessagingGatewayApi } from '../credentials/MessagingGatewayApi.credentials';
import { runNode } from '../test/harness';
import { sandboxCredentials, startSandbox } from '../test/sandbox';

import { MessagingGateway } from '../nodes/MessagingGateway/MessagingGateway.node';
import { PERSONAL_TEXT } from './workload';

const REPO = path.join(__dirname, '..');
const SEND_OPERATION = 'nodes/MessagingGateway/actions/message/send.operation.ts';
const OURS = ['nodes/', 'credentials/'];

interface FunctionCoverage {
	functionName: string;
	ranges: Array<{ startOffset: number; endOffset: number; count: number }>;
}

interface ScriptCoverage {
	url: string;
	functions: FunctionCoverage[];
}

function post<T>(session: Session, method: string, params?: object): Promise<T> {
	return new Promise((resolve, reject) =>
		session.post(method, params ?? {}, (error, result) => (error ? reject(error) : resolve(result as T))),
	);
}

const ours = (file: string) => OURS.some((dir) => file.startsWith(dir));

/** Function-level call counts of what ran during `run` (V8 precise coverage, counts reset just before it). */
export async function coverageOf(run: () => Promise<void>): Promise<ScriptCoverage[]> {
	const session = new Session();
	session.connect();
	try {
		await post(session, 'Profiler.enable');
		await post(session, 'Profiler.startPreciseCoverage', { callCount: true, detailed: false });
		// With call counts, taking the coverage resets them: what the next take returns is what ran in between.
		await post(session, 'Profiler.takePreciseCoverage');
		await run();
		const { result } = await post<{ result: ScriptCoverage[] }>(session, 'Profiler.takePreciseCoverage');
		await post(session, 'Profiler.stopPreciseCoverage');
		return result;
	} finally {
		session.disconnect();
	}
}

/** Files of ours with a function (not the module's top level) that ran, with those functions and their counts. */
export function filesRunThrough(coverage: ScriptCoverage[]): Map<string, string[]> {
	const files = new Map<string, string[]>();
	for (const script of coverage) {
		if (!script.url.startsWith('file://')) continue;
		const file = path.relative(REPO, fileURLToPath(script.url));
		if (!ours(file)) continue;
		// The first function of a script is its top level (the whole source): it ran when the module loaded.
		const called = script.functions
			.filter((fn) => !(fn.ranges[0].startOffset === 0 && fn.functionName === ''))
			.filter((fn) => fn.ranges[0].count > 0)
			.map((fn) => `${fn.functionName || '(anonymous)'} x${fn.ranges[0].count}`);
		if (called.length > 0) files.set(file, called);
	}
	return files;
}

/** How many times functions named `name` in scripts whose URL ends with `urlEnd` ran. */
export function callsOf(coverage: ScriptCoverage[], urlEnd: string, name: string): number {
	let calls = 0;
	for (const script of coverage) {
		if (!script.url.endsWith(urlEnd)) continue;
		for (const fn of script.functions) if (fn.functionName === name) calls += fn.ranges[0].count;
	}
	return calls;
}

/** Files of nodes/ that `entry` reaches through its non-type relative imports and re-exports (before-stop's method). */
export function staticReach(entry: string): string[] {
	const seen = new Set<string>();
	const stack = [path.resolve(REPO, entry)];
	while (stack.length > 0) {
		const file = stack.pop()!;
		if (seen.has(file)) continue;
		seen.add(file);
		const source = fs
			.readFileSync(file, 'utf8')
			.replace(/\/\*[\s\S]*?\*\//g, '')
			.replace(/^\s*\/\/.*$/gm, '');
		for (const match of source.matchAll(/(?:import|export)\s+(?!type\b)[^'";]*?from\s+['"](\.[^'"]+)['"]/g)) {
			const base = path.resolve(path.dirname(file), match[1]);
			const found = [`${base}.ts`, path.join(base, 'index.ts')].find((candidate) => fs.existsSync(candidate));
			if (found) stack.push(found);
		}
	}
	return [...seen].map((file) => path.relative(REPO, file)).filter((file) => file.startsWith('nodes/')).sort();
}

const linesOf = (file: string) => fs.readFileSync(path.join(REPO, file), 'utf8').split('\n').length - 1;

async function main() {
	const list = process.argv.includes('--list');
	const sandbox = await startSandbox();
	const node = new MessagingGateway();
	const credentialTypes = [new MessagingGatewayApi()];
	const send = async () => {
		const { output } = await runNode({
			node,
			credentialTypes,
			parameters: { ...PERSONAL_TEXT },
			credentials: sandboxCredentials(sandbox),
			items: [{ json: { phone: '+55 11 98888-7777', name: 'Cliente' } }],
		});
		if (output[0]?.length !== 1 || !output[0][0].json.messageId) throw new Error(`the send failed: ${JSON.stringify(output)}`);
	};
	try {
		await send(); // loads every module the send needs
		const coverage = await coverageOf(send);
		const runtime = filesRunThrough(coverage);
		const expressions = callsOf(coverage, '/n8n-workflow/dist/cjs/expression.js', 'renderExpression');
		const reach = staticReach(SEND_OPERATION);
		if (sandbox.requests.filter((request) => request.route !== null).length !== 2) {
			throw new Error(`expected one request per send, the gateway got ${sandbox.requests.length} for two`);
		}
		const functions = [...runtime.values()].reduce((sum, called) => sum + called.length, 0);
		const reachLines = reach.reduce((sum, file) => sum + linesOf(file), 0);
		console.log(`files of ours a text message runs through (one Message > Send of one text, V8 precise coverage): ${runtime.size} (${functions} functions)`);
		if (list) for (const [file, called] of [...runtime].sort()) console.log(`  ${file}: ${called.join(', ')}`);
		else console.log(`  ${[...runtime.keys()].sort().join(' ')}`);
		console.log(`expressions n8n evaluated for it (Expression.renderExpression calls; the credential's apikey header is one): ${expressions}`);
		console.log(`files of nodes/ that ${SEND_OPERATION} reaches through its static imports: ${reach.length} (${reachLines} lines)`);
		if (list) for (const file of reach) console.log(`  ${file} (${linesOf(file)} lines)`);
	} finally {
		await sandbox.close();
	}
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}
