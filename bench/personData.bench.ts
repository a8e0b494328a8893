/**
 * Person Data > Upload of 1,000,000 items (5 person fields, 3 custom attributes) as CSV to the sandbox gateway in
 * another process, through the node in n8n's real execution context (test/harness). Compared in the same run with
 * the bound, the fastest honest client (the same records serialised by hand and streamed into one http.request with
 * backpressure), csv-stringify piped into http.request, and a naive whole-string build; then a 1 GB CSV file in a binary field passed through (Validate File First off),
 * compared with `curl --data-binary` to the same sandbox.
 *
 * The node and the in-process contenders run twice: once timed, once for memory (curl once: not measured). Memory
 * is live memory (JS heap + Buffers) after forced full collections, sampled every few MB written to any HTTP
 * request and on a timer: timers alone miss the peak, as a local upload keeps the event loop busy for seconds.
 * Only what the work keeps alive counts, not garbage V8 has merely not collected yet. For the node the baseline
 * is taken when its execute() starts, so the input items (and the execution items n8n wraps them in, ~76 MB for a
 * million) are not counted; what its output keeps (the pairedItem list) is shown apart from the upload's peak.
 *
 * Env: RECORDS (default 1000000; 0 skips the items), OTHERS=0 (only the bound and the node), BINARY_BYTES (default 1000000000, the spec's 1 GB; 0 skips
 * the file), BINARY_VALIDATE=1 also uploads the file with Validate File First on (reads it twice: slow),
 * BINARY_PART_BYTES=<n> also uploads it with parts of at most n bytes (checked, planned, then rewritten into parts).
 */
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { createWriteStream, existsSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import http from 'node:http';
import { loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { stringify } from 'csv-stringify';
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { PERSON_CONTENT_TYPES, ENDPOINTS } from '../nodes/gateway/spec';
import { planAutoMapping } from '../nodes/MessagingGateway/persons/mapping';
import { isPersonRow, validatePersonRow } from '../nodes/MessagingGateway/persons/validation';
import { csvCell } from '../nodes/MessagingGateway/persons/writers';
import { type InputItem, runNode } from '../test/harness';

const RECORDS = Number(process.env.RECORDS ?? 1_000_000);
const BINARY_BYTES = Number(process.env.BINARY_BYTES ?? 1_000_000_000);
const BINARY_VALIDATE = process.env.BINARY_VALIDATE === '1';
const BINARY_PART_BYTES = Number(process.env.BINARY_PART_BYTES ?? 0);
const MB = 1024 * 1024;
/** A full GC costs ~0.4 s with a million items in the heap: sample every 8 MB sent then, every 64 MB for the file. */
const SAMPLE_BYTES_ITEMS = 8 * MB;
const SAMPLE_BYTES_FILE = 64 * MB;
/** Targets against the floor of a checked upload (the bound plus the node's checks alone). */
const TARGET_FAIL_RATIO = 1.5;
const TARGET_SKIP_RATIO = 1.25;
const TARGET_GROWTH_MB = 64;

interface SandboxInfo {
	url: string;
	apiKey: string;
	phoneId: string;
}

export function startSandboxProcess(): Promise<{ child: ChildProcess; info: SandboxInfo }> {
	const child = fork(path.join(__dirname, 'personData.sandbox.ts'), [], {
		execArgv: ['-r', 'ts-node/register/transpile-only'],
	});
	return new Promise((resolve) => child.once('message', (info) => resolve({ child, info: info as SandboxInfo })));
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
	return new Promise((resolve) => {
		child.once('message', (answer) => resolve(answer as T));
		child.send(message);
	});
}

type PersonJson = {
	first_name: string;
	last_name: string;
	email: string;
	phone: string;
	external_id: string;
	plan: string;
	visits: number;
	score: number;
};

/**
 * Items as n8n holds them: parsed from JSON, so their strings are flat. Strings built with templates are V8 cons
 * strings, which the first regular expression run on them flattens in place: the flat copies (about 100 MB for a
 * million items) would then be counted as the node's memory, though any real input has them flat already.
 * `flat = false` keeps the template strings (what this benchmark used to do), to show that effect.
 */
export function makeItems(count: number, flat = true): Array<{ json: PersonJson }> {
	const items = new Array<{ json: PersonJson }>(count);
	const BATCH = 10_000;
	for (let from = 0; from < count; from += BATCH) {
		const batch: PersonJson[] = [];
		for (let i = from; i < Math.min(from + BATCH, count); i++) {
			batch.push({
				first_name: `Pessoa ${i}`,
				last_name: i % 3 === 0 ? 'Silva; Souza' : 'Oliveira',
				email: `pessoa.${i}@example.com`,
				phone: `+55 11 9${30000000 + i}`,
				external_id: `ext-${i}`,
				plan: i % 5 === 0 ? 'gold "vip"' : 'basic',
				visits: i % 1000,
				score: (i % 100) / 4,
			});
		}
		const parsed = flat ? (JSON.parse(JSON.stringify(batch)) as PersonJson[]) : batch;
		for (let i = 0; i < parsed.length; i++) items[from + i] = { json: parsed[i] };
	}
	return items;
}

// ---- Memory ----

function collect(): void {
	if (!global.gc) throw new Error('run with --expose-gc (npm run bench does)');
	global.gc();
}

/**
 * JS heap plus Buffers after a full collection: what is really held. RSS never shrinks, so it is not used. Two
 * collections: the first one frees dead Buffers' memory concurrently and may return before that is done (up to
 * 30 MB of a file's chunks showed up as alive otherwise).
 */
function liveBytes(): number {
	collect();
	collect();
	const { heapUsed, arrayBuffers } = process.memoryUsage();
	return heapUsed + arrayBuffers;
}

/**
 * Peak live memory above a baseline, sampled every `everyBytes` written to any HTTP request of this process, and
 * every `everyMs` when the event loop is free (for work that sends nothing, such as reading a file to check it).
 */
class MemoryProbe {
	private base = 0;
	private peak = 0;
	private written = 0;
	private nextSample = 0;
	private timer: NodeJS.Timeout | undefined;

	constructor(
		private readonly everyBytes: number,
		private readonly everyMs: number,
	) {}

	start(): void {
		this.base = liveBytes();
		this.peak = this.base;
		this.written = 0;
		this.nextSample = this.everyBytes;
		active = this;
		this.timer = setInterval(() => this.sample(), this.everyMs);
	}

	onWrite(bytes: number): void {
		this.written += bytes;
		if (this.written >= this.nextSample) {
			this.nextSample = this.written + this.everyBytes;
			this.sample();
		}
	}

	/** Growth now, in MB; also raises the peak. */
	sample(): number {
		const now = liveBytes();
		this.peak = Math.max(this.peak, now);
		return (now - this.base) / MB;
	}

	get peakMb(): number {
		return (this.peak - this.base) / MB;
	}

	/** Takes a last sample and stops; returns the peak growth in MB. */
	stop(): number {
		clearInterval(this.timer);
		this.sample();
		active = undefined;
		return this.peakMb;
	}
}

let active: MemoryProbe | undefined;
{
	// Every body byte of every request passes through OutgoingMessage write/end (http.request, axios, pipes).
	const proto = http.OutgoingMessage.prototype;
	const write = proto.write;
	const end = proto.end;
	const size = (chunk: unknown) => (typeof chunk === 'string' || Buffer.isBuffer(chunk) ? chunk.length : 0);
	proto.write = function (this: http.OutgoingMessage, chunk: unknown, ...rest: unknown[]) {
		active?.onWrite(size(chunk));
		return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
	} as typeof write;
	proto.end = function (this: http.OutgoingMessage, chunk?: unknown, ...rest: unknown[]) {
		// The naive way holds its whole file when it ends the request: sample there.
		if (active && size(chunk) > 0) active.sample();
		return (end as (...args: unknown[]) => http.OutgoingMessage).call(this, chunk, ...rest);
	} as typeof end;
}

// ---- Contenders ----

function post(info: SandboxInfo, write: (request: http.ClientRequest) => void | Promise<void>): Promise<string> {
	return new Promise((resolve, reject) => {
		const request = http.request(`${info.url}${ENDPOINTS.personUpload.path}`, {
			method: 'POST',
			headers: { apiKey: info.apiKey, 'Content-Type': PERSON_CONTENT_TYPES.csv },
		});
		request.on('response', (response) => {
			let body = '';
			response.on('data', (chunk) => (body += chunk));
			response.on('end', () => (response.statusCode === 200 ? resolve(body) : reject(new Error(body))));
		});
		request.on('error', reject);
		Promise.resolve(write(request)).catch(reject);
	});
}

const HEADER = ['FirstName', 'LastName', 'Email', 'Phone', 'ExternalId'].concat([
	'plan:String',
	'visits:Integer',
	'score:Float',
]);

function* rowsOf(items: Array<{ json: PersonJson }>) {
	for (const { json } of items) {
		const score = String(json.score);
		yield [
			json.first_name,
			json.last_name,
			json.email,
			json.phone.replace(/[^\d]/g, ''),
			json.external_id,
			json.plan,
			String(json.visits),
			score.includes('.') ? score : `${score}.0`,
		];
	}
}

/**
 * The bound: the fastest honest client. The same records serialised by hand (cells quoted by the node's own csvCell)
 * into chunks of about 64 KB, streamed into one http.request with backpressure: a chunk is written
 * only when the socket took the previous ones, so nothing but one chunk is held.
 */
function handStreamed(info: SandboxInfo, items: Array<{ json: PersonJson }>): Promise<string> {
	return post(info, async (request) => {
		let chunk = HEADER.join(';') + '\n';
		for (const row of rowsOf(items)) {
			chunk += row.map(csvCell).join(';') + '\n';
			if (chunk.length >= 64 * 1024) {
				if (!request.write(chunk)) await once(request, 'drain');
				chunk = '';
			}
		}
		request.end(chunk);
	});
}

/** csv-stringify piped into http.request (the bound this benchmark used before: slower than writing by hand). */
function csvStringify(info: SandboxInfo, items: Array<{ json: PersonJson }>): Promise<string> {
	return post(info, async (request) => {
		const csv = stringify({ delimiter: ';', header: true, columns: HEADER });
		csv.pipe(request);
		for (const row of rowsOf(items)) if (!csv.write(row)) await once(csv, 'drain');
		csv.end();
	});
}

/** The whole file as one string (a line per record, joined), then sent. */
function naive(info: SandboxInfo, items: Array<{ json: PersonJson }>): Promise<string> {
	return post(info, (request) => {
		const cell = (v: string) => (/[;"\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
		const lines = [HEADER.join(';')];
		for (const row of rowsOf(items)) lines.push(row.map(cell).join(';'));
		// Its peak is while the lines and the joined file are both alive: sampled before the join and at end().
		active?.sample();
		request.end(lines.join('\n') + '\n');
	});
}

/**
 * The node's checks alone: its automatic mapping and its rules (spec 2.8) over the same items, nothing written or
 * sent. Any upload that checks every record must do this work on top of writing the file, which is all the bound
 * does: bound + checks is the floor of such an upload, whatever its passes. Returns how many records were valid.
 */
function checksAlone(items: Array<{ json: PersonJson }>): number {
	const mapping = planAutoMapping((function* () {
		for (const item of items) yield item.json;
	})());
	let valid = 0;
	for (let i = 0; i < items.length; i++) {
		if (isPersonRow(validatePersonRow(mapping.map(items[i].json), i, []))) valid++;
	}
	return valid;
}

interface NodeRun {
	/** Time of the node's execute() alone (n8n's own set-up of the run is not the node's). */
	ms: number;
	/** This process's CPU time (all its threads, the GC's too) during execute(), in ms. */
	cpuMs: number;
	/** With a probe: peak growth while execute() ran, before its last sample. */
	uploadMb: number;
	/** With a probe: growth when execute() returns, i.e. what its output keeps. */
	outputMb: number;
	output: INodeExecutionData[];
}

/** Runs the node through the harness; `probe` (when given) runs from execute()'s start to its end. */
async function runUpload(
	info: SandboxInfo,
	parameters: Record<string, unknown>,
	items: InputItem[],
	probe?: MemoryProbe,
): Promise<NodeRun> {
	// With the extension: Node would otherwise resolve the codex MessagingGateway.node.json beside it.
	const { MessagingGateway } = require(path.join(__dirname, '../nodes/MessagingGateway/MessagingGateway.node.ts')) as {
		MessagingGateway: new () => INodeType;
	};
	const node = new MessagingGateway();
	// execute() runs with n8n's ExecuteContext as `this`.
	const execute = node.execute as (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
	const run = { ms: 0, cpuMs: 0, uploadMb: 0, outputMb: 0 };
	node.execute = async function (this: IExecuteFunctions) {
		// The baseline is taken here, once n8n has wrapped the input items into its execution items.
		probe?.start();
		const start = performance.now();
		const cpu = process.cpuUsage();
		const result = await execute.call(this);
		run.ms = performance.now() - start;
		run.cpuMs = cpuMsSince(cpu);
		if (probe) {
			run.uploadMb = probe.peakMb;
			run.outputMb = probe.stop();
		}
		return result;
	};
	const { output } = await runNode({
		node,
		parameters: { resource: 'personData', operation: 'upload', ...parameters },
		credentials: { messagingGatewayApi: { apiKey: info.apiKey, phoneId: info.phoneId, baseUrl: info.url } },
		items,
	});
	return { ...run, output: output[0] };
}

// ---- Printing ----

const loadText = () => loadavg().map((load) => load.toFixed(2)).join(', ');
const seconds = (ms: number) => `${(ms / 1000).toFixed(2).padStart(7)} s`;
const megabytes = (mb: number) => `${mb.toFixed(1).padStart(7)} MB`;
const verdict = (ok: boolean) => (ok ? 'ok' : 'MISSED');

function line(label: string, ms: number, peakMb: number, note = ''): void {
	console.log(`  ${label.padEnd(38)} ${seconds(ms)}   peak growth ${megabytes(peakMb)}${note}`);
}

/** CPU time of this process since `start` (process.cpuUsage()), in ms: less disturbed by a loaded machine. */
function cpuMsSince(start: NodeJS.CpuUsage): number {
	const { user, system } = process.cpuUsage(start);
	return (user + system) / 1000;
}

async function timed<T>(work: () => Promise<T>): Promise<{ ms: number; cpuMs: number; result: T }> {
	collect();
	const start = performance.now();
	const cpu = process.cpuUsage();
	const result = await work();
	return { ms: performance.now() - start, cpuMs: cpuMsSince(cpu), result };
}

async function withProbe(everyBytes: number, work: () => Promise<unknown>): Promise<number> {
	const probe = new MemoryProbe(everyBytes, 1000);
	probe.start();
	await work();
	return probe.stop();
}

// ---- Input items ----

async function benchItems(child: ChildProcess, info: SandboxInfo): Promise<boolean> {
	const items = makeItems(RECORDS);
	collect();
	const heapMb = process.memoryUsage().heapUsed / MB;
	console.log(`${RECORDS} input items (5 person fields, 3 custom attributes); ${heapMb.toFixed(0)} MB heap with them; load average ${loadText()}`);
	console.log('time: a run of its own; peak growth: a second run with a full GC every 8 MB sent\n');

	const lower = await timed(() => handStreamed(info, items));
	const lowerMb = await withProbe(SAMPLE_BYTES_ITEMS, () => handStreamed(info, items));
	line('bound: by hand, streamed into http', lower.ms, lowerMb);
	// Best of two: the checks are pure CPU work, and the first run also warms them up.
	const checks = [await timed(async () => checksAlone(items)), await timed(async () => checksAlone(items))];
	if (checks.some(({ result }) => result !== RECORDS)) throw new Error('the checks refused records the node accepts');
	const checksMs = Math.min(checks[0].ms, checks[1].ms);
	const checksCpuMs = Math.min(checks[0].cpuMs, checks[1].cpuMs);
	line('checks alone (no file written)', checksMs, 0, '   (memory not measured)');
	// OTHERS=0 leaves out the slower clients (a million records through csv-stringify take a minute here).
	const others = process.env.OTHERS !== '0';
	const stringified = others ? await timed(() => csvStringify(info, items)) : undefined;
	if (stringified) line('csv-stringify piped into http', stringified.ms, 0, '   (memory not measured)');
	const naiveRun = others ? await timed(() => naive(info, items)) : undefined;
	if (naiveRun) line('naive: whole file as a string, sent', naiveRun.ms, await withProbe(SAMPLE_BYTES_ITEMS, () => naive(info, items)));

	// A warm-up run on a few items first: n8n's first run loads and compiles code, which is not the upload's memory.
	await runUpload(info, {}, items.slice(0, 10));
	await ask(child, 'reset');
	const memoryRun = await runUpload(info, {}, items, new MemoryProbe(SAMPLE_BYTES_ITEMS, 1000));
	const timedRun = await runUpload(info, {}, items);
	const peakMb = Math.max(memoryRun.uploadMb, memoryRun.outputMb);
	line('node: Person Data > Upload (CSV)', timedRun.ms, peakMb, '   (execute() only)');
	// On Invalid Records = Skip: the same two passes as Fail (check and plan, then write), invalid items left out.
	const skipRun = await runUpload(info, { onInvalid: 'skip' }, items);
	line('node: same, On Invalid = Skip', skipRun.ms, 0, '   (memory not measured)');
	// The bound again after the node (rounds A B B A): the load of a shared machine drifts during a run. The ratios
	// use the faster of its two times, which is the stricter comparison.
	const lowerAgain = await timed(() => handStreamed(info, items));
	line('bound again, after the node', lowerAgain.ms, lowerMb);
	const boundMs = Math.min(lower.ms, lowerAgain.ms);

	const { files } = await ask<{ files: Array<{ records: number; bytes: number }> }>(child, 'files');
	const received = files.reduce((sum, f) => sum + f.records, 0);
	const paired = timedRun.output.reduce(
		(sum, item) => sum + (Array.isArray(item.pairedItem) ? item.pairedItem.length : 1),
		0,
	);
	const growthOk = peakMb < TARGET_GROWTH_MB;
	const parts = timedRun.output.length;
	console.log('');
	console.log(`  node / bound time: ${(timedRun.ms / boundMs).toFixed(2)}; Skip / bound: ${(skipRun.ms / boundMs).toFixed(2)}`);
	// What checking costs whatever the design: the bound writes and sends, the checks come on top.
	const floorMs = boundMs + checksMs;
	const failRatio = timedRun.ms / floorMs;
	const skipRatio = skipRun.ms / floorMs;
	const timeOk = failRatio <= TARGET_FAIL_RATIO && skipRatio <= TARGET_SKIP_RATIO;
	console.log(`  floor of a checked upload (bound + checks alone): ${seconds(floorMs).trim()}, ${(floorMs / boundMs).toFixed(2)}x the bound`);
	console.log(`  node (Fail) / floor: ${failRatio.toFixed(2)}   (target <= ${TARGET_FAIL_RATIO}: ${verdict(failRatio <= TARGET_FAIL_RATIO)})`);
	console.log(`  node (Skip) / floor: ${skipRatio.toFixed(2)}   (target <= ${TARGET_SKIP_RATIO}: ${verdict(skipRatio <= TARGET_SKIP_RATIO)})`);
	// CPU time of this process (the sandbox runs in its own): what the load of a shared machine disturbs least.
	const boundCpuMs = Math.min(lower.cpuMs, lowerAgain.cpuMs);
	const cpuText = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
	console.log(
		`  CPU time: node ${cpuText(timedRun.cpuMs)}, Skip ${cpuText(skipRun.cpuMs)}, bound ${cpuText(boundCpuMs)}, checks alone ${cpuText(checksCpuMs)}` +
			` (node / bound ${(timedRun.cpuMs / boundCpuMs).toFixed(2)}, Skip / bound ${(skipRun.cpuMs / boundCpuMs).toFixed(2)})`,
	);
	// The same ratios by CPU time, which the load of a shared machine disturbs least.
	const floorCpuMs = boundCpuMs + checksCpuMs;
	console.log(
		`  by CPU time: node (Fail) / floor ${(timedRun.cpuMs / floorCpuMs).toFixed(2)}, Skip / floor ${(skipRun.cpuMs / floorCpuMs).toFixed(2)}`,
	);
	console.log(`  (bound: the faster of ${seconds(lower.ms).trim()} and ${seconds(lowerAgain.ms).trim()}; load average ${loadText()})`);
	if (stringified) console.log(`  node / csv-stringify time: ${(timedRun.ms / stringified.ms).toFixed(2)}`);
	if (naiveRun) console.log(`  node / naive time:         ${(timedRun.ms / naiveRun.ms).toFixed(2)}`);
	const target = `target < ${TARGET_GROWTH_MB} MB: ${verdict(growthOk)}`;
	console.log(`  node peak growth beyond the input items: ${peakMb.toFixed(1)} MB   (${target})`);
	console.log(`    during the upload:      ${megabytes(memoryRun.uploadMb)}`);
	const outputNote = `${parts} part(s), ${paired} pairedItem entries`;
	console.log(`    output at the end:      ${megabytes(memoryRun.outputMb)}   (${outputNote})`);
	// The node's three runs and the bound's second one.
	if (received !== 4 * RECORDS) throw new Error(`the gateway received ${received} records, not 4 x ${RECORDS}`);
	return timeOk && growthOk;
}

// ---- A CSV file in a binary field, passed through ----

/** A CSV person file of at most `bytes` (whole records), written in 1 MB blocks of 10,000 distinct records each. */
async function writePersonFile(file: string, bytes: number): Promise<number> {
	const header = HEADER.join(';') + '\n';
	const out = createWriteStream(file);
	out.write(header);
	let written = header.length;
	for (let block = 0; ; block++) {
		let text = '';
		for (let i = 0; i < 10_000; i++) {
			const n = block * 10_000 + i;
			// As in the items: no invented number (spec 2.8 rule 4) among these.
			const phone = `55119${30000000 + (n % 1_000_000)}`;
			text += `Pessoa ${n};Oliveira;pessoa.${n}@example.com;${phone};ext-${n};basic;${n % 1000};${n % 100}.25\n`;
		}
		// Cut at the last whole record that fits.
		if (written + text.length > bytes) text = text.slice(0, text.lastIndexOf('\n', bytes - written - 1) + 1);
		if (text.length === 0) break;
		written += text.length;
		if (!out.write(text)) await once(out, 'drain');
	}
	out.end();
	await once(out, 'finish');
	return written;
}

/** curl --data-binary to the sandbox; resolves with curl's peak RSS in MB when /usr/bin/time can tell it. */
function curl(info: SandboxInfo, file: string): Promise<number | undefined> {
	const args = [
		'--silent',
		'--show-error',
		'--fail',
		'--output',
		'/dev/null',
		'-H',
		`apiKey: ${info.apiKey}`,
		'-H',
		`Content-Type: ${PERSON_CONTENT_TYPES.csv}`,
		'--data-binary',
		`@${file}`,
		`${info.url}${ENDPOINTS.personUpload.path}`,
	];
	const withTime = existsSync('/usr/bin/time');
	const child = withTime
		? spawn('/usr/bin/time', ['-f', 'maxrss-kb %M', 'curl', ...args])
		: spawn('curl', args);
	let stderr = '';
	child.stderr.on('data', (chunk) => (stderr += chunk));
	return new Promise((resolve, reject) => {
		child.on('error', reject);
		child.on('exit', (code) => {
			if (code !== 0) return reject(new Error(`curl exited with ${code}: ${stderr}`));
			const kb = /maxrss-kb (\d+)/.exec(stderr);
			resolve(kb ? Number(kb[1]) / 1024 : undefined);
		});
	});
}

async function benchBinary(child: ChildProcess, info: SandboxInfo): Promise<boolean> {
	const folder = mkdtempSync(path.join(tmpdir(), 'person-bench-'));
	try {
		const file = path.join(folder, 'persons.csv');
		const bytes = await writePersonFile(file, BINARY_BYTES);
		const size = `${(bytes / 1e9).toFixed(3)} GB CSV file (${bytes} bytes)`;
		console.log(`\n${size} in a binary field, Validate File First off`);
		console.log('time: a run of its own; peak growth: a second run with a full GC every 64 MB sent\n');
		await ask(child, 'reset');
		const reference = await timed(() => curl(info, file));
		const rss = reference.result === undefined ? 'not measured' : `max RSS ${reference.result.toFixed(0)} MB`;
		console.log(`  ${'curl --data-binary'.padEnd(38)} ${seconds(reference.ms)}   (its own process: ${rss})`);
		const items: InputItem[] = [
			{ json: {}, binary: { data: { data: { filePath: file }, mimeType: 'text/csv', fileName: 'persons.csv' } } },
		];
		const passThrough = { source: 'binary', validateFile: false };
		const run = await runUpload(info, passThrough, items);
		const memoryRun = await runUpload(info, passThrough, items, new MemoryProbe(SAMPLE_BYTES_FILE, 250));
		const peakMb = Math.max(memoryRun.uploadMb, memoryRun.outputMb);
		line('node: Upload of the binary file', run.ms, peakMb, '   (execute() only)');
		let ok = peakMb < TARGET_GROWTH_MB;
		let runs = 3; // curl's and the node's two
		if (BINARY_VALIDATE) {
			// The node's default: every record is read and checked first, then the file is sent as it is. One run
			// (time with the memory samples' GCs in it, a few percent of this slow run).
			const checked = await runUpload(info, { source: 'binary' }, items, new MemoryProbe(SAMPLE_BYTES_FILE, 250));
			const checkedMb = Math.max(checked.uploadMb, checked.outputMb);
			const checkedOk = checkedMb < TARGET_GROWTH_MB;
			line('node: same, Validate File First on', checked.ms, checkedMb, `   (growth ${verdict(checkedOk)})`);
			ok = ok && checkedOk;
			runs++;
		}
		const { files } = await ask<{ files: Array<{ records: number; bytes: number }> }>(child, 'files');
		if (files.length !== runs || files.some((f) => f.bytes !== statSync(file).size)) {
			throw new Error(`the gateway did not receive the file whole each time: ${JSON.stringify(files)}`);
		}
		if (BINARY_PART_BYTES > 0) {
			// The rewrite path: the check reads the file and plans its parts, the upload reads it again and writes them.
			await ask(child, 'reset');
			const options = { options: { partSizeLimit: BINARY_PART_BYTES } };
			const split = await runUpload(info, { source: 'binary', ...options }, items);
			line(`node: same, parts of ${BINARY_PART_BYTES} bytes`, split.ms, 0, '   (time)');
			const splitMemory = await runUpload(info, { source: 'binary', ...options }, items, new MemoryProbe(SAMPLE_BYTES_FILE, 250));
			const splitMb = Math.max(splitMemory.uploadMb, splitMemory.outputMb);
			line('node: same, parts, memory run', splitMemory.ms, splitMb, `   (growth ${verdict(splitMb < TARGET_GROWTH_MB)})`);
			const parts = await ask<{ files: Array<{ records: number; bytes: number }> }>(child, 'files');
			const records = parts.files.reduce((sum, f) => sum + f.records, 0);
			console.log(`  (${parts.files.length / 2} parts a run, ${records / 2} records a run; the file has ${files[0].records})`);
			if (records !== 2 * files[0].records) throw new Error('the parts did not hold every record of the file once');
			ok = ok && splitMb < TARGET_GROWTH_MB;
		}
		console.log('');
		console.log(`  node / curl time:        ${(run.ms / reference.ms).toFixed(2)}`);
		const target = `target < ${TARGET_GROWTH_MB} MB: ${verdict(peakMb < TARGET_GROWTH_MB)}`;
		console.log(`  node peak growth:        ${peakMb.toFixed(1)} MB   (${target})`);
		return ok;
	} finally {
		rmSync(folder, { recursive: true, force: true });
	}
}

async function main() {
	const { child, info } = await startSandboxProcess();
	try {
		let ok = true;
		if (RECORDS > 0) ok = (await benchItems(child, info)) && ok;
		if (BINARY_BYTES > 0) ok = (await benchBinary(child, info)) && ok;
		console.log(`\n${ok ? 'all targets met' : 'a target was missed'}`);
		if (!ok) process.exitCode = 1;
	} finally {
		child.disconnect();
	}
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}
