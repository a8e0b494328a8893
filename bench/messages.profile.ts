/**
 * Diagnostic companion of messages.bench.ts (not run by `npm run bench`): MESSAGES (default 1,000) text messages
 * through Message > Send at 0 ms gateway latency, 20 in parallel, no rate cap, ROUNDS times after a warm-up, so that
 * a CPU profile shows what the node costs per message beside n8n's helper:
 *
 *   node --cpu-prof --cpu-prof-dir=/tmp/prof -r ts-node/register/transpile-only bench/messages.profile.ts
 */
import { fork } from 'node:child_process';
import path from 'node:path';

import { runNode } from '../test/harness';
import { sandboxCredentials } from '../test/sandbox';

import { MessagingGateway } from '../nodes/MessagingGateway/MessagingGateway.node';

const MESSAGES = Number(process.env.MESSAGES ?? 1000);
const ROUNDS = Number(process.env.ROUNDS ?? 3);

const items = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ json: { phone: `+55 11 9${String(30000000 + i)}`, name: `Cliente ${i}` } }));

async function main() {
	const child = fork(path.join(__dirname, 'messages.sandbox.ts'), [], { execArgv: ['-r', 'ts-node/register/transpile-only'] });
	const info = (await new Promise((resolve) => child.once('message', resolve))) as { url: string; apiKey: string; phoneId: string };
	const reset = () => new Promise((resolve) => { child.once('message', resolve); child.send('reset'); });
	for (let round = 0; round <= ROUNDS; round++) {
		const start = performance.now();
		await runNode({
			node: new MessagingGateway(),
			parameters: {
				resource: 'message',
				operation: 'send',
				messageType: 'text',
				recipientPhoneNumber: '={{ $json.phone }}',
				textBody: `={{ "Olá " + $json.name + ", seu pedido saiu para entrega." }}`,
				sending: { parallelRequests: 20, messagesPerSecond: 0 },
			},
			credentials: sandboxCredentials(info),
			items: items(round === 0 ? 100 : MESSAGES),
			mode: 'trigger',
		});
		console.log(`${round === 0 ? 'warm-up' : `round ${round}`}: ${(performance.now() - start).toFixed(0)} ms`);
		await reset();
	}
	child.disconnect();
}

void main();
