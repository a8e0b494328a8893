/**
 * `npm run sandbox`: runs the sandbox gateway standalone, to try the nodes in a local n8n.
 * `npm run sandbox -- deliver ...`: sends an incoming message to the webhooks registered in a running sandbox.
 * `npm run sandbox -- statuses ...`, `... latency ...`: turns the running sandbox's switches (switches.ts).
 * What a user reads about all of it: docs/sandbox.md.
 */
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';

import { CHANNEL, ENDPOINTS } from '../../nodes/gateway/spec';
import { findSandbox, registerSandbox } from './registry';
import { startSandbox } from './server';
import { latencyCommand, statusesCommand, UsageError } from './switches';

const DEFAULT_PORT = 8787;
/** How long `deliver` waits for the workflow's reply: a trigger answers at once, the workflow then runs. */
const DEFAULT_REPLY_WAIT_SECONDS = 30;
/** The business number shown in delivered notifications (as in the samples of the spec's notifications folder). */
const DISPLAY_PHONE_NUMBER = '5511900001111';

const HELP = `Sandbox gateway: a local, strict implementation of the messaging gateway for tests and trials.

Usage:
  npm run sandbox                      start it (Ctrl+C stops it)
  npm run sandbox -- deliver [options] [notification.json]
                                       deliver an incoming text message (or the notification in the file) to every
                                       webhook registered in the running sandbox, print each receiver's answer, then
                                       wait for the messages the workflow sends back to the sender and print them
  npm run sandbox -- statuses [on|off] [--delay MS]
                                       show, or turn on or off, the status notifications the running sandbox sends
                                       after each accepted send (and set the time between them)
  npm run sandbox -- latency [MS]      show, or set, how long the running sandbox waits before each gateway answer
  npm run sandbox -- --help            this help

Environment (start):
  SANDBOX_PORT      port to listen on (default ${DEFAULT_PORT})
  SANDBOX_HOST      address to listen on (default 127.0.0.1)
  SANDBOX_API_KEY   the API key it accepts (default a random sandbox-... key, printed at start)
  SANDBOX_PHONE_ID  the account's phone id (default 104857600000001)
  SANDBOX_LATENCY_MS  milliseconds before each gateway answer, as a gateway across the internet (default 0)
  SANDBOX_STATUSES  1: after each accepted send, deliver sent, delivered and read status notifications to the
                    registered webhooks, or failed (131047) for a free-form message to a number that has not written
                    (deliver) within 24 hours; 0 (default): none. Also with npm start. While it runs:
                    npm run sandbox -- statuses on|off.
  SANDBOX_STATUS_DELAY_MS  milliseconds before each of those statuses (default 300)
  SANDBOX_THROUGHPUT_PER_SECOND  the phone's throughput, as the network limits it: at most this many accepted
                    messages in any 1,000 ms, the excess answered 400 with code 130429 (default 0: no limit)
  SANDBOX_PAIR_INTERVAL_MS  the pair rate: a message to a recipient less than this many ms after the last accepted
                    one to them is answered 400 with code 131056 (default 0: no limit; the network's is about 6000)

Options (deliver, statuses, latency):
  --url URL         the running sandbox (default http://127.0.0.1:$SANDBOX_PORT; without SANDBOX_PORT, port
                    ${DEFAULT_PORT}, else the one sandbox that npm run sandbox or npm start runs from this folder)
  --text TEXT       the message text (default "Olá! Mensagem de teste do sandbox")
  --from DIGITS     the sender's number (default 5511988887777)
  --name NAME       the sender's profile name (default "Cliente Sandbox")
  --no-headers      send without the webhooks' custom headers (a forged notification)
  --wait SECONDS    how long to wait for the workflow's reply (default ${DEFAULT_REPLY_WAIT_SECONDS}; 0: do not wait)

Every request the sandbox received: GET /__sandbox/requests (JSON, in order; open it in a browser).
Control API (no API key): GET /__sandbox/info, /__sandbox/requests, /__sandbox/state, /__sandbox/latency;
POST /__sandbox/reset, /__sandbox/fail {route,count,mode}, /__sandbox/deliver {notification},
/__sandbox/template-status {id,status}, /__sandbox/latency {ms}, /__sandbox/statuses {enabled,delayMs}
(GET: the statuses delivered), /__sandbox/throughput {perSecond,pairIntervalMs,mode,retryAfterSeconds}
(GET: the settings and the counts of accepted and refused messages). All of it, for people trying the nodes:
docs/sandbox.md.`;

async function main(args: string[]): Promise<number> {
	if (args.includes('--help') || args.includes('-h')) {
		console.log(HELP);
		return 0;
	}
	if (args[0] === 'deliver') return deliver(args.slice(1));
	if (args[0] === 'statuses') return switchCommand(args.slice(1), statusesCommand);
	if (args[0] === 'latency') return switchCommand(args.slice(1), latencyCommand);
	if (args.length > 0) {
		console.error(`Unknown arguments: ${args.join(' ')}\n\n${HELP}`);
		return 2;
	}
	return serve();
}

async function serve(): Promise<number> {
	const port = Number(process.env.SANDBOX_PORT ?? DEFAULT_PORT);
	if (!Number.isInteger(port) || port < 0 || port > 65535) {
		console.error(`SANDBOX_PORT must be a port number, got ${process.env.SANDBOX_PORT}`);
		return 2;
	}
	const sandbox = await startSandbox({
		port,
		host: process.env.SANDBOX_HOST || '127.0.0.1',
		apiKey: process.env.SANDBOX_API_KEY || undefined,
		phoneId: process.env.SANDBOX_PHONE_ID || undefined,
		latencyMs: Number(process.env.SANDBOX_LATENCY_MS ?? 0) || 0,
		statuses: {
			enabled: process.env.SANDBOX_STATUSES === '1' || process.env.SANDBOX_STATUSES === 'true',
			delayMs: Number(process.env.SANDBOX_STATUS_DELAY_MS) >= 0 && process.env.SANDBOX_STATUS_DELAY_MS ? Number(process.env.SANDBOX_STATUS_DELAY_MS) : undefined,
		},
		throughput: {
			perSecond: nonNegative(process.env.SANDBOX_THROUGHPUT_PER_SECOND),
			pairIntervalMs: nonNegative(process.env.SANDBOX_PAIR_INTERVAL_MS),
		},
	});
	const unregister = registerSandbox(sandbox.url);
	console.log(`Sandbox gateway listening on ${sandbox.url}

  Base URL   ${sandbox.url}
  API key    ${sandbox.apiKey}
  Phone id   ${sandbox.phoneId}

Use the base URL and API key in the n8n credentials. Endpoints: ${Object.values(ENDPOINTS)
		.map((endpoint) => endpoint.path)
		.join(', ')}.
To deliver an incoming message to the registered webhooks (for example a Messaging Gateway Trigger):
  npm run sandbox -- deliver --url ${sandbox.url} --text "Olá"
Recorded requests: GET ${sandbox.url}/__sandbox/requests  State: GET ${sandbox.url}/__sandbox/state
Status notifications after sends: ${sandbox.statuses.settings.enabled ? `on (every ${sandbox.statuses.settings.delayMs} ms; GET ${sandbox.url}/__sandbox/statuses)` : 'off'} (npm run sandbox -- statuses on|off switches them)
Network limits: ${describeThroughput(sandbox.throughput.settings)}
Ctrl+C stops it.`);
	await new Promise<void>((resolve) => {
		process.once('SIGINT', resolve);
		process.once('SIGTERM', resolve);
	});
	unregister();
	await sandbox.close();
	return 0;
}

/** A number >= 0 from the environment; absent, empty or invalid: 0 (off). */
function nonNegative(value: string | undefined): number {
	const parsed = Number(value);
	return value && Number.isFinite(parsed) && parsed >= 0 ? parsed : 0;
}

function describeThroughput(settings: { perSecond: number; pairIntervalMs: number }): string {
	const limits = [
		settings.perSecond > 0 ? `${settings.perSecond} messages in any second (then 400, code 130429)` : '',
		settings.pairIntervalMs > 0 ? `${settings.pairIntervalMs} ms between two to one recipient (else 400, code 131056)` : '',
	].filter(Boolean);
	return limits.length > 0 ? limits.join('; ') : 'none (SANDBOX_THROUGHPUT_PER_SECOND, SANDBOX_PAIR_INTERVAL_MS set them)';
}

/** A switch of the running sandbox, found as `deliver` finds it (`--url`, SANDBOX_PORT, or the one running). */
async function switchCommand(args: string[], command: (url: string, args: string[]) => Promise<string[]>): Promise<number> {
	const at = args.indexOf('--url');
	const named = at >= 0 ? (args[at + 1] ?? '').replace(/\/+$/, '') : process.env.SANDBOX_PORT ? `http://127.0.0.1:${process.env.SANDBOX_PORT}` : null;
	const rest = at >= 0 ? [...args.slice(0, at), ...args.slice(at + 2)] : args;
	const found = await findSandbox(named, `http://127.0.0.1:${DEFAULT_PORT}`);
	if ('problem' in found) {
		console.error(found.problem);
		return 1;
	}
	try {
		for (const line of await command(found.url, rest)) console.log(line);
		return 0;
	} catch (error) {
		if (error instanceof UsageError) {
			console.error(`${error.message}\n\n${HELP}`);
			return 2;
		}
		throw error;
	}
}

interface DeliverArguments {
	/** Given by --url or SANDBOX_PORT; null: the default port, else the one running sandbox found. */
	url: string | null;
	text: string;
	from: string;
	name: string;
	omitCustomHeaders: boolean;
	file: string | null;
	waitSeconds: number;
}

function parseDeliverArguments(args: string[]): DeliverArguments {
	const parsed: DeliverArguments = {
		url: process.env.SANDBOX_PORT ? `http://127.0.0.1:${process.env.SANDBOX_PORT}` : null,
		text: 'Olá! Mensagem de teste do sandbox',
		from: '5511988887777',
		name: 'Cliente Sandbox',
		omitCustomHeaders: false,
		file: null,
		waitSeconds: DEFAULT_REPLY_WAIT_SECONDS,
	};
	for (let i = 0; i < args.length; i++) {
		const arg = args[i];
		const value = () => {
			const next = args[++i];
			if (next === undefined) throw new Error(`${arg} needs a value`);
			return next;
		};
		if (arg === '--url') parsed.url = value().replace(/\/+$/, '');
		else if (arg === '--text') parsed.text = value();
		else if (arg === '--from') parsed.from = value();
		else if (arg === '--name') parsed.name = value();
		else if (arg === '--no-headers') parsed.omitCustomHeaders = true;
		else if (arg === '--wait') {
			parsed.waitSeconds = Number(value());
			if (!(parsed.waitSeconds >= 0)) throw new Error('--wait needs a number of seconds (0: do not wait)');
		}
		else if (arg.startsWith('--')) throw new Error(`Unknown option ${arg}`);
		else if (parsed.file === null) parsed.file = arg;
		else throw new Error(`Only one notification file can be given (got ${parsed.file} and ${arg})`);
	}
	if (!/^\d{8,15}$/.test(parsed.from)) throw new Error(`--from must be a number in international digits, got ${parsed.from}`);
	return parsed;
}

async function deliver(args: string[]): Promise<number> {
	let options: DeliverArguments;
	try {
		options = parseDeliverArguments(args);
	} catch (error) {
		console.error(`${(error as Error).message}\n\n${HELP}`);
		return 2;
	}
	const found = await findSandbox(options.url, `http://127.0.0.1:${DEFAULT_PORT}`);
	if ('problem' in found) {
		console.error(found.problem);
		return 1;
	}
	const { url, info } = found;
	console.log(`Delivering to the sandbox at ${url}`);
	const notification = options.file
		? (JSON.parse(readFileSync(options.file, 'utf8')) as object)
		: incomingText(info.phoneId, options);
	const recordedBefore = (await recordedRequests(url)).length;
	const response = await fetch(`${url}/__sandbox/deliver`, {
		method: 'POST',
		headers: { 'content-type': 'application/json' },
		body: JSON.stringify({ notification, omitCustomHeaders: options.omitCustomHeaders }),
	});
	const answer = (await response.json()) as unknown;
	if (!response.ok || !Array.isArray(answer)) {
		console.error(`The sandbox refused the delivery: ${JSON.stringify(answer)}`);
		return 1;
	}
	const results = answer as Array<{ webhookId: string; endpoint: string; status: number; body: string }>;
	if (results.length === 0) {
		console.log('No registered webhook is subscribed to this notification (register one, e.g. activate a trigger).');
		return 1;
	}
	for (const result of results) {
		const body = result.body.length > 300 ? `${result.body.slice(0, 300)}…` : result.body;
		console.log(`Delivered: ${result.status === 0 ? 'unreachable' : result.status}  ${result.endpoint}  (webhook ${result.webhookId})  ${body}`);
	}
	if (!results.every((result) => result.status >= 200 && result.status < 300)) return 1;
	if (options.waitSeconds === 0) return 0;
	return await waitForReplies(url, options, senderOf(notification) ?? options.from, recordedBefore);
}

interface RecordedMessage {
	route: string | null;
	method: string;
	status: number;
	body: { to?: unknown; type?: unknown; [typeObject: string]: unknown } | null;
}

async function recordedRequests(url: string): Promise<RecordedMessage[]> {
	return (await (await fetch(`${url}/__sandbox/requests`)).json()) as RecordedMessage[];
}

/** The sender of the first message of a notification, to whom the workflow is expected to reply. */
function senderOf(notification: object): string | undefined {
	const messages = (notification as { messages?: Array<{ from?: unknown }> }).messages;
	const from = Array.isArray(messages) ? messages[0]?.from : undefined;
	return typeof from === 'string' ? from : undefined;
}

/** What a sent message says, in one line: its text, or its type and what identifies it. */
function summary(body: RecordedMessage['body']): string {
	if (!body) return '(no body)';
	const type = String(body.type ?? (body as { status?: unknown }).status ?? 'unknown');
	const object = (body[type] ?? {}) as Record<string, unknown>;
	if (type === 'text') return JSON.stringify((object as { body?: string }).body ?? '');
	if (type === 'interactive') return `interactive: ${JSON.stringify((object.body as { text?: string } | undefined)?.text ?? '')}`;
	if (type === 'template') return `template ${String(object.name)}`;
	if (type === 'read') return `marked ${String((body as { message_id?: unknown }).message_id)} as read`;
	return type;
}

/**
 * Waits until the workflow has sent a message to the sender (POST /api/Messages with `to` the sender), printing each
 * message the sandbox received from the delivery on; a mark-as-read is printed, but is no reply.
 */
async function waitForReplies(url: string, options: DeliverArguments, sender: string, recordedBefore: number): Promise<number> {
	console.log(`Waiting up to ${options.waitSeconds} s for the workflow to answer ${sender}...`);
	const deadline = Date.now() + options.waitSeconds * 1000;
	let printed = recordedBefore;
	let replied = false;
	while (Date.now() < deadline) {
		const requests = await recordedRequests(url);
		for (const request of requests.slice(printed)) {
			if (request.route !== 'messages') continue;
			const toSender = request.body?.to === sender;
			if (toSender) replied = true;
			const accepted = request.status >= 200 && request.status < 300 ? '' : ` (the sandbox refused it: ${request.status})`;
			console.log(`${toSender ? 'Reply to ' + sender : 'Sent'}: ${summary(request.body)}${accepted}`);
		}
		printed = Math.max(printed, requests.length);
		if (replied) return 0;
		await new Promise((resolve) => setTimeout(resolve, 500));
	}
	console.error(`No reply to ${sender} reached the sandbox within ${options.waitSeconds} s. Check that:
  - the workflow with the Messaging Gateway Trigger is published (active) and its trigger answered above with 200;
  - its run succeeded: open it in the n8n editor, tab Executions (an error there says what went wrong);
  - its credential's Base URL is this sandbox (${url}) and its API key the one \`npm start\` printed;
  - the workflow sends something back to the sender (the auto-reply bot of examples/ does).
Every request the sandbox received: ${url}/__sandbox/requests`);
	return 1;
}

/** An incoming text message in the shape the gateway delivers: Meta's `value` object only (docs/gateway.md). */
function incomingText(phoneId: string, options: DeliverArguments): object {
	return {
		messaging_product: CHANNEL,
		metadata: { display_phone_number: DISPLAY_PHONE_NUMBER, phone_number_id: phoneId },
		contacts: [{ profile: { name: options.name }, wa_id: options.from }],
		messages: [
			{
				from: options.from,
				id: `wamid.SBX${randomBytes(12).toString('hex').toUpperCase()}`,
				timestamp: String(Math.floor(Date.now() / 1000)),
				type: 'text',
				text: { body: options.text },
			},
		],
	};
}

main(process.argv.slice(2)).then(
	(code) => process.exit(code),
	(error: unknown) => {
		console.error(error);
		process.exit(1);
	},
);
