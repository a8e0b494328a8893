/**
 * In a real n8n 2.41.1 (the e2e install under ~/.cache), 1,000 text messages through a gateway that answers after
 * 100 ms: Message > Send with its default Sending options, against n8n's HTTP Request node posting the same bodies in
 * batches of 80 per second (what a careful user sets to stay under the network's 80 messages/s). Both run with
 * `n8n execute`; each is timed at the sandbox gateway, from the first request's arrival to the last one's answer, so
 * n8n's start-up is left out of both alike. Target: ours at least as fast (ratio <= 1).
 *
 * `MESSAGES=300` for a shorter run; `MG_TARBALL=path.tgz` to use an already packed package instead of building.
 */
import fs from 'node:fs';
import path from 'node:path';

import { CHANNEL, ENDPOINTS } from '../nodes/gateway/spec';
import { control, httpRequestSendNode, install, n8n, pkg, sandboxLib, util, type Recorded, type SandboxProcess } from './n8nScripts';
import { PERSONAL_TEXT } from './workload';

const MESSAGES = Number(process.env.MESSAGES ?? 1000);
const LATENCY_MS = 100;
const REPO = path.join(__dirname, '..');

const people = Array.from({ length: MESSAGES }, (_, i) => ({ phone: `55119${String(30000000 + i)}`, name: `Cliente ${i}` }));
const textOf = (name: string) => `Olá ${name}, seu pedido saiu para entrega.`;

const trigger = { name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} };
const code = (items: object[]) => ({
	name: 'Input',
	type: 'n8n-nodes-base.code',
	typeVersion: 2,
	position: [220, 0],
	parameters: { jsCode: `return ${JSON.stringify(items.map((json) => ({ json })))};` },
});
const connect = (names: string[]) =>
	Object.fromEntries(names.slice(0, -1).map((name, i) => [name, { main: [[{ node: names[i + 1], type: 'main', index: 0 }]] }]));

function ourWorkflow() {
	return {
		name: 'bench: Messaging Gateway send',
		nodes: [
			trigger,
			code(people),
			{
				name: 'Send',
				type: 'n8n-nodes-messaging-gateway.messagingGateway',
				typeVersion: 1,
				position: [440, 0],
				parameters: { ...PERSONAL_TEXT },
			},
		],
		connections: connect(['Start', 'Input', 'Send']),
	};
}

function httpRequestWorkflow(sandbox: SandboxProcess) {
	const bodies = people.map((person) => ({
		body: { messaging_product: CHANNEL, recipient_type: 'individual', to: person.phone, type: 'text', text: { body: textOf(person.name) } },
	}));
	return {
		name: 'bench: HTTP Request node, batches of 80 per second',
		nodes: [
			trigger,
			code(bodies),
			httpRequestSendNode(sandbox, 80, 1000),
		],
		connections: connect(['Start', 'Input', 'Send']),
	};
}

/** Runs a workflow with `n8n execute`; its time at the gateway: first arrival to last answer. */
async function timeAtGateway(sandbox: SandboxProcess, inst: object, workflow: { id: string; name: string }) {
	await control(sandbox, 'POST', 'reset', {});
	await control(sandbox, 'POST', 'latency', { ms: LATENCY_MS });
	try {
		await n8n.cli(inst, ['execute', `--id=${workflow.id}`]);
	} catch (error) {
		throw new Error(`"${workflow.name}" failed: ${String((error as Error).message).slice(-2000)}`);
	}
	const requests = ((await control(sandbox, 'GET', 'requests')) as Recorded[]).filter((r) => r.path === ENDPOINTS.messages.path);
	const accepted = new Set(requests.filter((r) => r.status === 200).map((r) => r.body.to));
	const times = requests.map((r) => r.receivedAt);
	return { ms: Math.max(...times) - Math.min(...times) + LATENCY_MS, requests: requests.length, recipients: accepted.size };
}

async function main() {
	const runtime = await install.ensureRuntime();
	const base = path.join(REPO, 'test-artifacts', 'bench', `n8n-messages-${Date.now()}`);
	const userFolder = path.join(base, 'n8n');
	const logDir = path.join(base, 'logs');
	fs.mkdirSync(userFolder, { recursive: true });
	fs.mkdirSync(logDir, { recursive: true });
	const tarball = process.env.MG_TARBALL ? path.resolve(process.env.MG_TARBALL) : await pkg.buildAndPack(path.join(base, 'pack'));
	await pkg.installIntoN8n(tarball, userFolder);
	const sandbox = await sandboxLib.startSandbox({ port: await util.freePort(), logDir, node: runtime.node24.node });
	try {
		const inst = n8n.createInstance({ runtime, userFolder, port: await util.freePort(), brokerPort: await util.freePort(), logDir });
		await n8n.importCredential(inst, { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url });
		const [ours, theirs] = await n8n.importWorkflows(inst, [ourWorkflow(), httpRequestWorkflow(sandbox)]);

		const oursRun = await timeAtGateway(sandbox, inst, ours);
		const theirsRun = await timeAtGateway(sandbox, inst, theirs);
		const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
		const rate = (ms: number) => `${((MESSAGES / ms) * 1000).toFixed(0)} messages/s`;
		console.log(`${MESSAGES} text messages in n8n ${runtime.n8n.version}, gateway latency ${LATENCY_MS} ms, timed at the gateway`);
		console.log(`HTTP Request node, batches of 80 per second: ${seconds(theirsRun.ms)}, ${rate(theirsRun.ms)} (${theirsRun.requests} requests, ${theirsRun.recipients} recipients)`);
		console.log(`Messaging Gateway, Message > Send (defaults): ${seconds(oursRun.ms)}, ${rate(oursRun.ms)} (${oursRun.requests} requests, ${oursRun.recipients} recipients)`);
		console.log(`ratio ours / HTTP Request node: ${(oursRun.ms / theirsRun.ms).toFixed(2)} (target <= 1)`);
		if (oursRun.recipients !== MESSAGES || theirsRun.recipients !== MESSAGES) throw new Error('not every message was accepted');
	} finally {
		await util.stopProcess(sandbox.proc);
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
