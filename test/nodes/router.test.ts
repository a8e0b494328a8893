/**
 * What the router does for every operation: paired items, Continue On Fail, batching pauses, and send-and-wait's
 * error path. Run through Message operations against the sandbox gateway.
 */
import type { INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BATCHING_DEFAULTS } from '../../nodes/MessagingGateway/actions/batching';
import * as messageResource from '../../nodes/MessagingGateway/actions/message';
import { runGateway, useSandbox } from './support';

const gateway = useSandbox();

const sendText = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	messageType: 'text',
	recipientPhoneNumber: '={{ $json.phone }}',
	textBody: 'Seu pedido saiu para entrega',
	...extra,
});

const phones = (count: number) => Array.from({ length: count }, (_, i) => ({ json: { phone: `55119888800${10 + i}` } }));

const run = (parameters: INodeParameters, items = phones(1), continueOnFail = false) =>
	runGateway(gateway.sandbox, parameters, { items, continueOnFail });

/** Milliseconds between consecutive requests the sandbox received. */
const gaps = () => {
	const times = gateway.sandbox.requests.map((request) => request.receivedAt);
	return times.slice(1).map((time, i) => time - times[i]);
};

describe('paired items and Continue On Fail', () => {
	it('pairs every output item with its input item', async () => {
		const { output } = await run(sendText(), phones(3));
		expect(output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0].map((item) => typeof item.json.messageId)).toEqual(['string', 'string', 'string']);
	});

	it('with Continue On Fail, a bad item becomes an error item in its place and the others are sent', async () => {
		const items = [{ json: { phone: '5511988880010' } }, { json: { phone: '12' } }, { json: { phone: '5511988880012' } }];
		const { output } = await run(sendText(), items, true);
		expect(output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0][1].json.error).toMatch(/item 1/);
		expect(output[0][0].json.messageId).toBeDefined();
		expect(output[0][2].json.messageId).toBeDefined();
		expect(gateway.sandbox.requests.map((request) => (request.body as { to: string }).to)).toEqual(['5511988880010', '5511988880012']);
	});

	it('without it, the first bad item stops the run with an error naming the item', async () => {
		const items = [{ json: { phone: '5511988880010' } }, { json: { phone: '12' } }];
		await expect(run(sendText(), items)).rejects.toThrow(NodeOperationError);
		await expect(run(sendText(), items)).rejects.toMatchObject({ context: { itemIndex: 1 } });
	});

	it('a gateway error item carries the HTTP status', async () => {
		gateway.sandbox.failNext('messages', 1, '500');
		const { output } = await run(sendText(), phones(2), true);
		expect(output[0][0].json).toMatchObject({ httpCode: '500' });
		expect(output[0][0].json.error).toMatch(/^The gateway answered 500/);
		expect(output[0][1].json.messageId).toBeDefined();
	});
});

describe('batching', () => {
	it('pauses between batches of the chosen size', async () => {
		await run(sendText({ batching: { batchSize: 2, batchInterval: 400 } }), phones(5));
		const pauses = gaps();
		expect(pauses).toHaveLength(4);
		// Requests 2 and 4 start a new batch: they wait; the others follow at once.
		expect(pauses[1]).toBeGreaterThanOrEqual(380);
		expect(pauses[3]).toBeGreaterThanOrEqual(380);
		expect(pauses[0]).toBeLessThan(300);
		expect(pauses[2]).toBeLessThan(300);
	});

	it('an option left out takes its default: a batch size alone pauses the default interval', async () => {
		await run(sendText({ batching: { batchSize: 1 } }), phones(2));
		expect(gaps()[0]).toBeGreaterThanOrEqual(BATCHING_DEFAULTS.intervalMs - 50);
	});

	it('the editor defaults are the router defaults', () => {
		const batching = messageResource.description.find((field) => field.name === 'batching');
		const defaults = Object.fromEntries((batching?.options ?? []).map((option) => [option.name, 'default' in option ? option.default : undefined]));
		expect(defaults).toEqual({ batchSize: BATCHING_DEFAULTS.size, batchInterval: BATCHING_DEFAULTS.intervalMs });
	});
});

describe('send and wait', () => {
	const ask: INodeParameters = {
		resource: 'message',
		operation: 'sendAndWait',
		recipientPhoneNumber: '+55 11 98888-7777',
		waitMessage: 'Aprovar o reembolso?',
	};

	it('with Continue On Fail, a failed send becomes an error item and the execution does not wait', async () => {
		gateway.sandbox.failNext('messages', 1, '500');
		const result = await run(ask, phones(1), true);
		expect(result.waitTill).toBeUndefined();
		expect(result.output[0]).toEqual([{ json: expect.objectContaining({ httpCode: '500' }), pairedItem: { item: 0 } }]);
	});

	it('without it, the failed send is a NodeApiError', async () => {
		gateway.sandbox.failNext('messages', 1, '500');
		await expect(run(ask)).rejects.toThrow(NodeApiError);
	});
});
