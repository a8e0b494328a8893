/**
 * Message > Send of 1,000 text messages through the node in n8n's real execution context (test/harness), against
 * the sandbox gateway in another process. In one run, each against a baseline measured in the same run:
 *
 * 1. At 0 ms gateway latency, 20 in parallel, no rate cap: the node against n8n's own request helper posting the
 *    same bodies with the same parallelism (target <= 1.25x). Recipient and text come from an expression per item,
 *    as in real workflows (a typed-in recipient would make every message go to one number, one after another), so
 *    the helper builds each body from the same two expressions with getNodeParameter per item, as any node must:
 *    both pay n8n's expression evaluation. The node against the helper posting pre-built bodies is printed too, to
 *    show that cost. Each is warmed up with a full run first (the JIT keeps improving over the first thousands of
 *    messages), then runs ROUNDS times in rotation; its best run counts, so that a busy moment of the shared
 *    machine favours none.
 * 2. At 100 ms gateway latency (a gateway across the internet), with the default Sending options (20 parallel,
 *    80 messages/s): the node against the bound max(N / rate, N x latency / parallel) (target <= 1.15x).
 *
 * `MESSAGES=500` for a shorter run. The comparison in a real n8n with the HTTP Request node is messages.n8n.bench.ts.
 */
import { fork, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import path from 'node:path';

import type { IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { CHANNEL, ENDPOINTS } from '../nodes/gateway/spec';
import { runNode } from '../test/harness';
import { sandboxCredentials } from '../test/sandbox';

import { MessagingGateway } from '../nodes/MessagingGateway/MessagingGateway.node';
import { SENDING_DEFAULTS } from '../nodes/MessagingGateway/actions/message/sending';

const MESSAGES = Number(process.env.MESSAGES ?? 1000);
const LATENCY_MS = 100;
const PARALLEL = 20;
const ROUNDS = Number(process.env.ROUNDS ?? 3);

interface SandboxInfo {
	url: string;
	apiKey: string;
	phoneId: string;
}

export function startSandboxProcess(): Promise<{ child: ChildProcess; info: SandboxInfo }> {
	const child = fork(path.join(__dirname, 'messages.sandbox.ts'), [], { execArgv: ['-r', 'ts-node/register/transpile-only'] });
	return new Promise((resolve) => child.once('message', (info) => resolve({ child, info: info as SandboxInfo })));
}

export function ask<T>(child: ChildProcess, message: string): Promise<T> {
	return new Promise((resolve) => {
		child.once('message', (answer) => resolve(answer as T));
		child.send(message);
	});
}

const items = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ json: { phone: `+55 11 9${String(30000000 + i)}`, name: `Cliente ${i}` } }));

const textOf = (name: string) => `Olá ${name}, seu pedido saiu para entrega.`;

/** The node's parameters, as in real workflows: recipient and text from the item. */
const RECIPIENT_EXPRESSION = '={{ $json.phone }}';
const TEXT_EXPRESSION = `={{ "Olá " + $json.name + ", seu pedido saiu para entrega." }}`;

/**
 * How the helper gets each body: built from the node's two expressions per item, or `prebuilt` (the floor with no
 * expression cost).
 */
export type Variant = 'expressions' | 'prebuilt';

/** What the node sends for an item, built by hand. */
const bodyOf = (item: { json: { phone: string; name: string } }) =>
	JSON.stringify({
		messaging_product: CHANNEL,
		recipient_type: 'individual',
		to: item.json.phone.replace(/\D/g, ''),
		type: 'text',
		text: { body: textOf(item.json.name) },
	});

/** One request per message, one after another; `keepAlive: false` opens a connection per request instead. */
async function plainLoop(info: SandboxInfo, count: number, keepAlive = true): Promise<number> {
	const agent = new http.Agent({ keepAlive, maxSockets: 1 });
	const url = `${info.url}${ENDPOINTS.messages.path}`;
	const start = performance.now();
	for (const item of items(count)) {
		const body = bodyOf(item);
		await new Promise<void>((resolve, reject) => {
			const request = http.request(url, {
				method: 'POST',
				agent,
				headers: {
					apikey: info.apiKey,
					version: ENDPOINTS.messages.version,
					'Content-Type': 'application/json',
					'Content-Length': Buffer.byteLength(body),
				},
			});
			request.on('response', (response) => {
				let text = '';
				response.on('data', (chunk) => (text += chunk));
				response.on('end', () => {
					if (response.statusCode !== 200) return reject(new Error(text));
					JSON.parse(text);
					resolve();
				});
			});
			request.on('error', reject);
			request.end(body);
		});
	}
	const ms = performance.now() - start;
	agent.destroy();
	return ms;
}

/**
 * CPU time (user + system, ms) of this process during the last node or helper run: its cost, which other work on a
 * shared machine disturbs far less than wall time (the sandbox gateway runs in its own process).
 */
let lastCpuMs = 0;
const cpuNow = () => {
	const usage = process.cpuUsage();
	return (usage.user + usage.system) / 1000;
};

export async function nodeRun(info: SandboxInfo, count: number, sending: Record<string, number>): Promise<number> {
	const cpuStart = cpuNow();
	const start = performance.now();
	const { output } = await runNode({
		node: new MessagingGateway(),
		parameters: {
			resource: 'message',
			operation: 'send',
			messageType: 'text',
			recipientPhoneNumber: RECIPIENT_EXPRESSION,
			textBody: TEXT_EXPRESSION,
			sending,
		},
		credentials: sandboxCredentials(info),
		items: items(count),
		mode: 'trigger',
	});
	const ms = performance.now() - start;
	lastCpuMs = cpuNow() - cpuStart;
	if (output[0].length !== count || output[0].some((item) => !item.json.messageId)) {
		throw new Error('the node did not output a message id for every item');
	}
	return ms;
}

/**
 * The floor of any node that sends through n8n: the same bodies posted with helpers.httpRequestWithAuthentication
 * (which opens a new connection per request), `parallel` at a time. Separates n8n's cost from the message
 * operation's own.
 */
let helperParallel = 1;
let helperVariant: Variant = 'prebuilt';

class HelperFloor implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Helper Floor',
		name: 'helperFloor',
		group: ['output'],
		version: 1,
		description: 'Posts each item body as it is',
		defaults: { name: 'Helper Floor' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true }],
		properties: [
			{ displayName: 'To', name: 'to', type: 'string', default: '' },
			{ displayName: 'Text', name: 'text', type: 'string', default: '' },
		],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const parallel = helperParallel;
		const variant = helperVariant;
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('messagingGatewayApi');
		const input = this.getInputData();
		const bodies = input.map((item, index) =>
			variant === 'expressions'
				? {
						messaging_product: CHANNEL,
						recipient_type: 'individual',
						to: String(this.getNodeParameter('to', index)).replace(/\D/g, ''),
						type: 'text',
						text: { body: this.getNodeParameter('text', index) as string },
					}
				: JSON.parse(bodyOf({ json: item.json as { phone: string; name: string } })),
		);
		const out: INodeExecutionData[] = new Array(input.length);
		let next = 0;
		const worker = async () => {
			while (next < input.length) {
				const index = next++;
				const json = await this.helpers.httpRequestWithAuthentication.call(this, 'messagingGatewayApi', {
					method: 'POST',
					url: `${baseUrl}${ENDPOINTS.messages.path}`,
					headers: { version: ENDPOINTS.messages.version },
					body: bodies[index],
					json: true,
				});
				out[index] = { json, pairedItem: { item: index } };
			}
		};
		await Promise.all(Array.from({ length: parallel }, worker));
		return [out];
	}
}

export async function helperFloor(info: SandboxInfo, count: number, parallel: number, variant: Variant = 'prebuilt'): Promise<number> {
	// execute() runs with n8n's context as `this`, not the node instance: its settings are read from the module.
	helperParallel = parallel;
	helperVariant = variant;
	const parameters = variant === 'expressions' ? { to: RECIPIENT_EXPRESSION, text: TEXT_EXPRESSION } : {};
	const cpuStart = cpuNow();
	const start = performance.now();
	await runNode({ node: new HelperFloor(), parameters, credentials: sandboxCredentials(info), items: items(count), mode: 'trigger' });
	const ms = performance.now() - start;
	lastCpuMs = cpuNow() - cpuStart;
	return ms;
}

const rate = (ms: number) => `${((MESSAGES / ms) * 1000).toFixed(0).padStart(6)} messages/s`;

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;

/** One way of sending the 1,000 messages at 0 ms latency, with its best wall time and CPU time over the rounds. */
interface Contender {
	label: string;
	run: (count: number) => Promise<number>;
	bestMs: number;
	bestCpuMs: number;
}

async function main() {
	const { child, info } = await startSandboxProcess();
	const noCap = { parallelRequests: PARALLEL, messagesPerSecond: 0 };
	const contender = (label: string, run: (count: number) => Promise<number>): Contender => ({ label, run, bestMs: Infinity, bestCpuMs: Infinity });
	const nodeExpressions = contender('node, recipient and text from expressions', (n) => nodeRun(info, n, noCap));
	const helperExpressions = contender('n8n helper, the same two expressions', (n) => helperFloor(info, n, PARALLEL, 'expressions'));
	const helperPrebuilt = contender('n8n helper, each item\'s body pre-built', (n) => helperFloor(info, n, PARALLEL, 'prebuilt'));
	const contenders = [nodeExpressions, helperExpressions, helperPrebuilt];

	// 1. 0 ms latency. A full warm-up run of each (JIT, the harness's n8n container, the first connections), then
	// ROUNDS rounds, each in a different order of the contenders.
	await plainLoop(info, MESSAGES);
	for (const c of contenders) await c.run(MESSAGES);
	await ask(child, 'reset');
	const plainMs = await plainLoop(info, MESSAGES);
	await ask(child, 'reset');
	let accepted = 0;
	for (let round = 0; round < ROUNDS; round++) {
		for (let k = 0; k < contenders.length; k++) {
			const c = contenders[(k + round) % contenders.length];
			const ms = await c.run(MESSAGES);
			c.bestMs = Math.min(c.bestMs, ms);
			c.bestCpuMs = Math.min(c.bestCpuMs, lastCpuMs);
			accepted += (await ask<{ sent: number; all: number }>(child, 'count')).sent;
			await ask(child, 'reset');
		}
	}

	// 2. 100 ms latency, the default Sending options: against the bound of the rate and the parallelism.
	await ask(child, `latency:${LATENCY_MS}`);
	const pacedMs = await nodeRun(info, MESSAGES, {});
	const paced = await ask<{ sent: number; all: number; spanMs: number }>(child, 'count');
	const boundMs = Math.max((MESSAGES / SENDING_DEFAULTS.perSecond) * 1000, (MESSAGES * LATENCY_MS) / SENDING_DEFAULTS.parallel);

	const cpu = (ms: number) => `${(ms / MESSAGES).toFixed(2)} ms`;
	const ratio = (a: Contender, b: Contender) =>
		`${(a.bestMs / b.bestMs).toFixed(2)} (CPU per message ${cpu(a.bestCpuMs)} against ${cpu(b.bestCpuMs)}: ${(a.bestCpuMs / b.bestCpuMs).toFixed(2)})`;
	console.log(`${MESSAGES} text messages, one request each`);
	console.log(`-- gateway latency 0 ms, ${PARALLEL} in parallel, no rate cap; best of ${ROUNDS} rounds after a warm-up run`);
	console.log(`plain keep-alive HTTP loop, sequential: ${seconds(plainMs)}, ${rate(plainMs)}`);
	for (const c of contenders) console.log(`${`${c.label}:`.padEnd(44)}${seconds(c.bestMs)}, ${rate(c.bestMs)}, CPU ${cpu(c.bestCpuMs)} a message`);
	console.log(`the message operation's cost, node / helper evaluating the same expressions: ${ratio(nodeExpressions, helperExpressions)} (target <= 1.25)`);
	console.log(`node / helper posting pre-built bodies: ${ratio(nodeExpressions, helperPrebuilt)} (n8n's evaluation of the two expressions included)`);
	console.log(`-- gateway latency ${LATENCY_MS} ms, default Sending options (${SENDING_DEFAULTS.parallel} parallel, ${SENDING_DEFAULTS.perSecond}/s)`);
	console.log(`bound max(N / rate, N x latency / parallel): ${seconds(boundMs)}`);
	console.log(`node Message > Send:                    ${seconds(pacedMs)}, ${rate(pacedMs)} (requests span ${seconds(paced.spanMs)} at the gateway; accepted ${paced.sent} of ${paced.all})`);
	console.log(`ratio node / bound:                     ${(pacedMs / boundMs).toFixed(2)} (target <= 1.15)`);
	console.log(`(one request at a time, as before, would take at least ${seconds(MESSAGES * LATENCY_MS)})`);
	child.disconnect();
	if (accepted !== MESSAGES * ROUNDS * contenders.length || paced.sent !== MESSAGES) throw new Error('the gateway did not accept every message');
}

if (require.main === module) {
	main().catch((error) => {
		console.error(error);
		process.exit(1);
	});
}
