/**
 * Diagnostic companion of personData.bench.ts (not run by `npm run bench`): one Person Data > Upload of RECORDS
 * items with live memory (after a full GC) printed at execute()'s start and end and every 8 MB sent, and with
 * SNAPSHOTS=dir, heap snapshots at execute()'s start and end to diff (DevTools > Memory > Comparison).
 * CONS_STRINGS=1 builds the items with template (cons) strings, as the benchmark once did.
 *
 *   node --expose-gc -r ts-node/register/transpile-only bench/personData.profile.ts
 */
import http from 'node:http';
import path from 'node:path';
import { writeHeapSnapshot } from 'node:v8';
import type { IExecuteFunctions, INodeExecutionData, INodeType } from 'n8n-workflow';

import { runNode } from '../test/harness';
import { makeItems, startSandboxProcess } from './personData.bench';

const RECORDS = Number(process.env.RECORDS ?? 1_000_000);
const SNAPSHOTS = process.env.SNAPSHOTS;
const MB = 1024 * 1024;

function live(): number {
	// Twice: the first collection frees dead Buffers concurrently (see liveBytes in personData.bench.ts).
	global.gc!();
	global.gc!();
	const { heapUsed, arrayBuffers } = process.memoryUsage();
	return heapUsed + arrayBuffers;
}

async function main() {
	const { MessagingGateway } = require(path.join(__dirname, '../nodes/MessagingGateway/MessagingGateway.node.ts')) as {
		MessagingGateway: new () => INodeType;
	};
	const { child, info } = await startSandboxProcess();
	const items = makeItems(RECORDS, process.env.CONS_STRINGS !== '1');
	const before = live();
	let base = 0;
	let written = 0;
	let peak = 0;
	const sample = (label: string) => {
		const growth = (live() - base) / MB;
		peak = Math.max(peak, growth);
		console.log(`${label.padEnd(22)} ${growth.toFixed(1).padStart(7)} MB`);
	};

	const write = http.OutgoingMessage.prototype.write;
	http.OutgoingMessage.prototype.write = function (this: http.OutgoingMessage, chunk: unknown, ...rest: unknown[]) {
		const bytes = Buffer.isBuffer(chunk) || typeof chunk === 'string' ? chunk.length : 0;
		if (base && Math.floor((written + bytes) / (8 * MB)) > Math.floor(written / (8 * MB))) {
			sample(`sent ${((written + bytes) / MB).toFixed(0)} MB`);
		}
		written += bytes;
		return (write as (...args: unknown[]) => boolean).call(this, chunk, ...rest);
	} as typeof write;

	const node = new MessagingGateway();
	const execute = node.execute as (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
	node.execute = async function (this: IExecuteFunctions) {
		base = live();
		const wrappers = ((base - before) / MB).toFixed(1);
		console.log(`execute() start: n8n's execution items add ${wrappers} MB to the input items`);
		if (SNAPSHOTS) writeHeapSnapshot(path.join(SNAPSHOTS, 'start.heapsnapshot'));
		const start = performance.now();
		const result = await execute.call(this);
		const ms = performance.now() - start;
		sample('execute() end');
		if (SNAPSHOTS) writeHeapSnapshot(path.join(SNAPSHOTS, 'end.heapsnapshot'));
		const time = `${(ms / 1000).toFixed(2)} s (slowed by the GCs)`;
		console.log(`${RECORDS} items: execute() ${time}, peak ${peak.toFixed(1)} MB`);
		return result;
	};
	await runNode({
		node,
		parameters: { resource: 'personData', operation: 'upload' },
		credentials: { messagingGatewayApi: { apiKey: info.apiKey, phoneId: info.phoneId, baseUrl: info.url } },
		items,
	});
	child.disconnect();
}

void main();
