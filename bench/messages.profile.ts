/**
 * Diagnostic companion of messages.bench.ts (not run by `npm run bench`): MESSAGES (default 1,000) text messages at
 * 0 ms gateway latency, 20 in parallel, no rate cap, ROUNDS times after a warm-up, through Message > Send
 * (WHAT=node), n8n's helper posting pre-built bodies (WHAT=helper) or the helper building them from the node's two
 * expressions (WHAT=expressions), so that CPU profiles of each can be compared:
 *
 *   WHAT=node node --cpu-prof --cpu-prof-dir=/tmp/prof -r ts-node/register/transpile-only bench/messages.profile.ts
 */
import { ask, helperFloor, nodeRun, startSandboxProcess } from './messages.bench';

const MESSAGES = Number(process.env.MESSAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);
const WHAT = process.env.WHAT ?? 'node';

async function main() {
	const { child, info } = await startSandboxProcess();
	for (let round = 0; round <= ROUNDS; round++) {
		const count = round === 0 ? 100 : MESSAGES;
		const cpuStart = process.cpuUsage();
		const ms =
			WHAT === 'node'
				? await nodeRun(info, count, { parallelRequests: 20, messagesPerSecond: 0 })
				: await helperFloor(info, count, 20, WHAT === 'expressions' ? 'expressions' : 'prebuilt');
		const cpu = process.cpuUsage(cpuStart);
		console.log(`${WHAT} ${round === 0 ? 'warm-up' : `round ${round}`}: ${ms.toFixed(0)} ms, CPU ${((cpu.user + cpu.system) / 1000).toFixed(0)} ms`);
		await ask(child, 'reset');
	}
	child.disconnect();
}

void main();
