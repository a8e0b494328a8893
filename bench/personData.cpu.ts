/**
 * Diagnostic companion of personData.bench.ts (not run by `npm run bench`): times Person Data > Upload of RECORDS
 * items (default 200,000) RUNS times with no memory sampling, for a CPU profile of the node alone:
 *
 *   node --cpu-prof -r ts-node/register/transpile-only bench/personData.cpu.ts     (ONINVALID=skip for one pass)
 */
import path from 'node:path';
import type { INodeType } from 'n8n-workflow';

import { runNode } from '../test/harness';
import { makeItems, startSandboxProcess } from './personData.bench';

const RECORDS = Number(process.env.RECORDS ?? 200_000);
const RUNS = Number(process.env.RUNS ?? 3);

async function main() {
	const { MessagingGateway } = require(path.join(__dirname, '../nodes/MessagingGateway/MessagingGateway.node.ts')) as {
		MessagingGateway: new () => INodeType;
	};
	const { child, info } = await startSandboxProcess();
	const items = makeItems(RECORDS);
	for (let run = 0; run < RUNS; run++) {
		const start = performance.now();
		const cpu = process.cpuUsage();
		await runNode({
			node: new MessagingGateway(),
			parameters: { resource: 'personData', operation: 'upload', onInvalid: process.env.ONINVALID ?? 'fail' },
			credentials: { messagingGatewayApi: { apiKey: info.apiKey, phoneId: info.phoneId, baseUrl: info.url } },
			items,
		});
		const { user, system } = process.cpuUsage(cpu);
		const cpuText = `${((user + system) / 1e6).toFixed(2)} s of this process's CPU`;
		console.log(`run ${run + 1}: ${RECORDS} items in ${((performance.now() - start) / 1000).toFixed(2)} s, ${cpuText} (with n8n's set-up)`);
	}
	child.disconnect();
}

void main();
