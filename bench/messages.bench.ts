/**
 * Message > Send of 2,000 text messages through the node in n8n's real execution context (test/harness), against
 * the sandbox gateway in another process, compared in the same run with a plain keep-alive HTTP loop that sends the
 * same bodies one after another (the lower bound of one request per message). Text and recipient come from
 * expressions per item, as in real workflows. Prints both rates and the ratio (target <= 1.25).
 * `MESSAGES=500` for a shorter run.
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

const MESSAGES = Number(process.env.MESSAGES ?? 2000);
const WARM_UP = 100;

interface SandboxInfo {
	url: string;
	apiKey: string;
	phoneId: string;
}

function startSandboxProcess(): Promise<{ child: ChildProcess; info: SandboxInfo }> {
	const child = fork(path.join(__dirname, 'messages.sandbox.ts'), [], { execArgv: ['-r', 'ts-node/register/transpile-only'] });
	return new Promise((resolve) => child.once('message', (info) => resolve({ child, info: info as SandboxInfo })));
}

function ask<T>(child: ChildProcess, message: string): Promise<T> {
	return new Promise((resolve) => {
		child.once('message', (answer) => resolve(answer as T));
		child.send(message);
	});
}

const items = (count: number) =>
	Array.from({ length: count }, (_, i) => ({ json: { phone: `+55 11 9${String(30000000 + i)}`, name: `Cliente ${i}` } }));

const textOf = (name: string) => `Olá ${name}, seu pedido saiu para entrega.`;

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

async function nodeRun(info: SandboxInfo, count: number): Promise<number> {
	const start = performance.now();
	const { output } = await runNode({
		node: new MessagingGateway(),
		parameters: {
			resource: 'message',
			operation: 'send',
			messageType: 'text',
			recipientPhoneNumber: '={{ $json.phone }}',
			textBody: `={{ "Olá " + $json.name + ", seu pedido saiu para entrega." }}`,
		},
		credentials: sandboxCredentials(info),
		items: items(count),
		mode: 'trigger',
	});
	const ms = performance.now() - start;
	if (output[0].length !== count || output[0].some((item) => !item.json.messageId)) {
		throw new Error('the node did not output a message id for every item');
	}
	return ms;
}

/**
 * The floor of any node that sends through n8n: the same bodies, pre-built, posted one per item with
 * helpers.httpRequestWithAuthentication (which opens a new connection per request). Separates n8n's cost from the
 * message operation's own.
 */
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
		properties: [],
	};

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const { baseUrl } = await this.getCredentials<{ baseUrl: string }>('messagingGatewayApi');
		const out: INodeExecutionData[] = [];
		for (const [index, item] of this.getInputData().entries()) {
			const json = await this.helpers.httpRequestWithAuthentication.call(this, 'messagingGatewayApi', {
				method: 'POST',
				url: `${baseUrl}${ENDPOINTS.messages.path}`,
				headers: { version: ENDPOINTS.messages.version },
				body: JSON.parse(bodyOf({ json: item.json as { phone: string; name: string } })),
				json: true,
			});
			out.push({ json, pairedItem: { item: index } });
		}
		return [out];
	}
}

async function helperFloor(info: SandboxInfo, count: number): Promise<number> {
	const start = performance.now();
	await runNode({
		node: new HelperFloor(),
		parameters: {},
		credentials: sandboxCredentials(info),
		items: items(count),
		mode: 'trigger',
	});
	return performance.now() - start;
}

const rate = (ms: number) => `${((MESSAGES / ms) * 1000).toFixed(0).padStart(6)} messages/s`;

async function main() {
	const { child, info } = await startSandboxProcess();

	// Warm both paths up (JIT, the harness's n8n container, the first connection) before timing.
	await plainLoop(info, WARM_UP);
	await nodeRun(info, WARM_UP);
	await ask(child, 'reset');

	const plainMs = await plainLoop(info, MESSAGES);
	await ask(child, 'reset');
	const nodeMs = await nodeRun(info, MESSAGES);
	const { sent, all } = await ask<{ sent: number; all: number }>(child, 'count');
	await ask(child, 'reset');
	// A second plain round after the node, so that a slower machine moment does not flatter the node.
	const plainAgainMs = await plainLoop(info, MESSAGES);
	const bestPlainMs = Math.min(plainMs, plainAgainMs);
	await ask(child, 'reset');
	const newConnectionMs = await plainLoop(info, MESSAGES, false);
	await helperFloor(info, WARM_UP);
	await ask(child, 'reset');
	const floorMs = await helperFloor(info, MESSAGES);

	console.log(`${MESSAGES} text messages, one request each, sequential`);
	console.log(`plain keep-alive HTTP loop:  ${(plainMs / 1000).toFixed(2)} s, ${rate(plainMs)} (again: ${(plainAgainMs / 1000).toFixed(2)} s)`);
	console.log(`plain loop, new connection each: ${(newConnectionMs / 1000).toFixed(2)} s, ${rate(newConnectionMs)}`);
	console.log(`n8n helper floor (same bodies): ${(floorMs / 1000).toFixed(2)} s, ${rate(floorMs)}`);
	console.log(`node Message > Send:         ${(nodeMs / 1000).toFixed(2)} s, ${rate(nodeMs)} (gateway accepted ${sent} of ${all})`);
	console.log(`ratio node / plain loop:     ${(nodeMs / bestPlainMs).toFixed(2)} (target <= 1.25)`);
	console.log(`ratio node / plain loop with a new connection per request: ${(nodeMs / newConnectionMs).toFixed(2)}`);
	console.log(`ratio node / n8n helper floor: ${(nodeMs / floorMs).toFixed(2)} (the message operation's own share)`);
	child.disconnect();
	if (sent !== MESSAGES) throw new Error('the gateway did not accept every message');
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
