/**
 * The sandbox behaves like the network after a send: sent, delivered and read status notifications to the registered
 * webhooks, or failed 131047 for a free-form message to a customer who has not written within 24 hours; templates are
 * not subject to the window; off unless asked for.
 */
import http from 'node:http';
import type { AddressInfo } from 'node:net';

import { ENDPOINTS } from '../../nodes/gateway/spec';
import { parseNotification, type StatusItem } from '../../nodes/MessagingGatewayTrigger/notifications';
import { call, NOTIFICATIONS, sendMessage, TO, VALID_MESSAGES } from './helpers';
import { startSandbox, type Sandbox, type SandboxOptions } from './server';

const HOUR = 3600 * 1000;
let clock = Date.UTC(2026, 0, 10, 12);

let receiver: { url: string; received: unknown[]; close(): Promise<void> };
beforeAll(async () => {
	const received: unknown[] = [];
	const server = http.createServer((req, res) => {
		const chunks: Buffer[] = [];
		req.on('data', (chunk: Buffer) => chunks.push(chunk));
		req.on('end', () => {
			received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
			res.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}');
		});
	});
	await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
	const { port } = server.address() as AddressInfo;
	receiver = { url: `http://127.0.0.1:${port}`, received, close: () => new Promise((resolve) => server.close(() => resolve())) };
});
afterAll(() => receiver.close());

const sandboxes: Sandbox[] = [];
async function sandboxWith(statuses: SandboxOptions['statuses']) {
	const sandbox = await startSandbox({ statuses, now: () => clock });
	sandboxes.push(sandbox);
	const body = { phone: '5511900001111', meta_version: 'LATEST', types: ['messages'], headers: {}, endpoint: `${receiver.url}/hook` };
	expect((await call(sandbox, 'POST', `${ENDPOINTS.webhooks.path}/`, { endpoint: 'webhooks', body })).status).toBe(201);
	return sandbox;
}
afterEach(async () => {
	await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
	receiver.received.length = 0;
});

/** The status items the receiver got, as the trigger reads them. */
function statusItems(): StatusItem[] {
	return receiver.received.flatMap((notification) => {
		const parsed = parseNotification(notification);
		return parsed.isNotification ? (parsed.items.filter((item) => item.event === 'status') as StatusItem[]) : [];
	});
}

async function until(condition: () => boolean, ms = 5000): Promise<void> {
	const end = Date.now() + ms;
	while (!condition()) {
		if (Date.now() > end) throw new Error('timed out');
		await new Promise((resolve) => setTimeout(resolve, 10));
	}
}

const messageIdOf = (answer: { json: { messages: Array<{ id: string }> } }) => answer.json.messages[0].id;

describe('status notifications after a send', () => {
	it('a reply to a customer who wrote: sent, delivered, read, in order, with the message id and recipient', async () => {
		const sandbox = await sandboxWith({ delayMs: 20 });
		await sandbox.deliver(NOTIFICATIONS.incomingText); // the customer TO writes
		receiver.received.length = 0;
		clock += 23 * HOUR; // still inside the 24-hour window
		const sent = await sendMessage(sandbox, VALID_MESSAGES.text);
		expect(sent.status).toBe(200);
		await until(() => statusItems().length === 3);
		expect(statusItems().map((item) => [item.status, item.messageId, item.recipient])).toEqual([
			['sent', messageIdOf(sent), TO],
			['delivered', messageIdOf(sent), TO],
			['read', messageIdOf(sent), TO],
		]);
		expect(statusItems()[0]).toMatchObject({ phoneNumberId: sandbox.phoneId, conversationCategory: 'service', billable: true });
		// The sandbox records a delivery once the receiver's answer is in, which may be after the receiver saw it.
		await until(() => sandbox.statuses.delivered.length === 3);
		expect(sandbox.statuses.delivered.map((d) => [d.status, d.results[0].status])).toEqual([
			['sent', 200],
			['delivered', 200],
			['read', 200],
		]);
	});

	it('a free-form message to a customer who never wrote: one failed status, 131047, with reason and hint', async () => {
		const sandbox = await sandboxWith({ delayMs: 10 });
		const sent = await sendMessage(sandbox, VALID_MESSAGES.text);
		expect(sent.status).toBe(200); // the network accepts it, then fails it
		await until(() => statusItems().length === 1);
		await new Promise((resolve) => setTimeout(resolve, 100)); // nothing follows
		expect(statusItems()).toEqual([
			expect.objectContaining({
				status: 'failed',
				messageId: messageIdOf(sent),
				recipient: TO,
				errorCode: 131047,
				hint: expect.stringMatching(/template/i),
			}),
		]);
	});

	it('a free-form message more than 24 hours after the customer last wrote fails with 131047', async () => {
		const sandbox = await sandboxWith({ delayMs: 10 });
		await sandbox.deliver(NOTIFICATIONS.incomingText);
		receiver.received.length = 0;
		clock += 24 * HOUR + 1000;
		await sendMessage(sandbox, VALID_MESSAGES.text);
		await until(() => statusItems().length === 1);
		expect(statusItems()[0]).toMatchObject({ status: 'failed', errorCode: 131047 });
	});

	it('a template to a customer who never wrote is not subject to the window', async () => {
		const sandbox = await sandboxWith({ delayMs: 10 });
		const sent = await sendMessage(sandbox, VALID_MESSAGES.template);
		expect(sent.status).toBe(200);
		await until(() => statusItems().length === 3);
		expect(statusItems().map((item) => item.status)).toEqual(['sent', 'delivered', 'read']);
		expect(statusItems()[0].conversationCategory).toBe('utility');
	});

	it('a refused send and a mark-as-read get no status', async () => {
		const sandbox = await sandboxWith({ delayMs: 10 });
		expect((await sendMessage(sandbox, { ...VALID_MESSAGES.text, to: undefined })).status).toBe(400);
		const read = await sendMessage(sandbox, { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.X' });
		expect(read.status).toBe(200);
		await new Promise((resolve) => setTimeout(resolve, 150));
		expect(statusItems()).toEqual([]);
	});

	it('off by default: the existing tests see no notification they did not ask for', async () => {
		const sandbox = await sandboxWith(undefined);
		expect(sandbox.statuses.settings.enabled).toBe(false);
		await sendMessage(sandbox, VALID_MESSAGES.text);
		await new Promise((resolve) => setTimeout(resolve, 400));
		expect(receiver.received).toEqual([]);
	});

	it('turned on and off through the control API, which also lists what was delivered', async () => {
		const sandbox = await sandboxWith(false);
		const set = await fetch(`${sandbox.url}/__sandbox/statuses`, { method: 'POST', body: JSON.stringify({ enabled: true, delayMs: 5 }) });
		expect(await set.json()).toEqual({ settings: { enabled: true, delayMs: 5 } });
		await sendMessage(sandbox, VALID_MESSAGES.template);
		await until(() => statusItems().length === 3);
		const listed = (await (await fetch(`${sandbox.url}/__sandbox/statuses`)).json()) as { delivered: Array<{ status: string }> };
		expect(listed.delivered.map((d) => d.status)).toEqual(['sent', 'delivered', 'read']);
		const bad = await fetch(`${sandbox.url}/__sandbox/statuses`, { method: 'POST', body: JSON.stringify({ enabled: 'yes' }) });
		expect(bad.status).toBe(400);
	});
});
