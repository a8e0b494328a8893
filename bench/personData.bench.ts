/**
 * Person Data > Upload of 1,000,000 items (5 person fields, 3 custom attributes) as CSV to the sandbox gateway in
 * another process, through the node in n8n's real execution context (test/harness). Compared in the same run with
 * a lower bound (the same records through csv-stringify piped into a plain http.request) and a naive whole-string
 * build. Prints times, ratios and peak memory growth beyond the input items. `RECORDS=100000` for a shorter run.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';
import { stringify } from 'csv-stringify';
import type { INodeType } from 'n8n-workflow';

import { PERSON_CONTENT_TYPES, ENDPOINTS } from '../nodes/gateway/spec';
import { runNode } from '../test/harness';

const RECORDS = Number(process.env.RECORDS ?? 1_000_000);
const MB = 1024 * 1024;

interface SandboxInfo {
	url: string;
	apiKey: string;
	phoneId: string;
}

function startSandboxProcess(): Promise<{ child: ChildProcess; info: SandboxInfo }> {
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

function makeItems(count: number) {
	const items = new Array(count);
	for (let i = 0; i < count; i++) {
		items[i] = {
			json: {
				first_name: `Pessoa ${i}`,
				last_name: i % 3 === 0 ? 'Silva; Souza' : 'Oliveira',
				email: `pessoa.${i}@example.com`,
				phone: `+55 11 9${30000000 + i}`,
				external_id: `ext-${i}`,
				plan: i % 5 === 0 ? 'gold "vip"' : 'basic',
				visits: i % 1000,
				score: (i % 100) / 4,
			},
		};
	}
	return items;
}

/** JavaScript heap and Buffer memory: RSS never shrinks, so a later phase would inherit an earlier one's peak. */
function usedMemory(): number {
	const { heapUsed, external } = process.memoryUsage();
	return heapUsed + external;
}

/** Peak memory above the level at the start (after a GC), sampled every 20 ms while `work` runs. */
async function measure<T>(label: string, work: () => Promise<T>): Promise<{ ms: number; peakMb: number; result: T }> {
	global.gc?.();
	const base = usedMemory();
	let peak = base;
	const timer = setInterval(() => (peak = Math.max(peak, usedMemory())), 20);
	const start = performance.now();
	const result = await work();
	const ms = performance.now() - start;
	clearInterval(timer);
	peak = Math.max(peak, usedMemory());
	const peakMb = (peak - base) / MB;
	const seconds = (ms / 1000).toFixed(2).padStart(7);
	console.log(`${label.padEnd(34)} ${seconds} s   peak memory growth ${peakMb.toFixed(1).padStart(7)} MB`);
	return { ms, peakMb, result };
}

function post(info: SandboxInfo, write: (request: http.ClientRequest) => void): Promise<string> {
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
		write(request);
	});
}

const HEADER = ['FirstName', 'LastName', 'Email', 'Phone', 'ExternalId'].concat([
	'plan:String',
	'visits:Integer',
	'score:Float',
]);

function* rowsOf(items: ReturnType<typeof makeItems>) {
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

async function main() {
	// With the extension: Node would otherwise resolve the codex MessagingGateway.node.json beside it.
	const { MessagingGateway } = require(path.join(__dirname, '../nodes/MessagingGateway/MessagingGateway.node.ts')) as {
		MessagingGateway: new () => INodeType;
	};
	const { child, info } = await startSandboxProcess();
	const items = makeItems(RECORDS);
	global.gc?.();
	console.log(`${RECORDS} items, ${(process.memoryUsage().heapUsed / MB).toFixed(0)} MB heap with the items\n`);

	const lower = await measure('lower bound (csv-stringify + http)', () =>
		post(info, (request) => {
			const csv = stringify({ delimiter: ';', header: true, columns: HEADER });
			csv.pipe(request);
			for (const row of rowsOf(items)) csv.write(row);
			csv.end();
		}),
	);
	const naive = await measure('naive whole-string build + http', () =>
		post(info, (request) => {
			const lines = [HEADER.join(';')];
			const cell = (v: string) => (/[;"\n]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v);
			for (const row of rowsOf(items)) lines.push(row.map(cell).join(';'));
			request.end(lines.join('\n') + '\n');
		}),
	);
	await ask(child, 'reset');
	const node = await measure('node: Person Data > Upload (CSV)', () =>
		runNode({
			node: new MessagingGateway(),
			parameters: { resource: 'personData', operation: 'upload' },
			credentials: { messagingGatewayApi: { apiKey: info.apiKey, phoneId: info.phoneId, baseUrl: info.url } },
			items,
		}),
	);
	const { files } = await ask<{ files: Array<{ records: number; bytes: number }> }>(child, 'files');
	const output = node.result.output[0];
	const counted = files.map((f) => f.records).join(', ');
	console.log(`\nnode output: ${output.length} part(s); gateway counted ${counted} records`);
	console.log(`ratio node / lower bound: ${(node.ms / lower.ms).toFixed(2)} (target <= 1.5)`);
	console.log(`ratio node / naive:       ${(node.ms / naive.ms).toFixed(2)}`);
	console.log(`node peak memory growth:  ${node.peakMb.toFixed(1)} MB (target < 64 MB beyond the input items)`);
	child.disconnect();
	const received = files.reduce((sum, f) => sum + f.records, 0);
	if (received !== RECORDS) throw new Error(`the gateway received ${received} records, not ${RECORDS}`);
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
