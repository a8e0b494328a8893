/**
 * The transport inside n8n's real execution context, against the sandbox gateway: the headers every request
 * carries, and what each failure becomes. A tiny node calls gatewayRequest with the parameters it is given, so that
 * these tests do not depend on any operation's fields.
 */
import type { ICredentialDataDecryptedObject, IDataObject, IExecuteFunctions, INodeExecutionData, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes } from 'n8n-workflow';
import { FileBody } from '../../nodes/gateway/blobBody';

import { messagingGatewayApiTest } from '../../nodes/gateway/credentialTest';
import { ENDPOINTS, type EndpointName } from '../../nodes/gateway/spec';
import { gatewayRequest } from '../../nodes/gateway/transport';
import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { parseNotification } from '../../nodes/MessagingGatewayTrigger/notifications';
import { MAY_HAVE_BEEN_ACCEPTED } from '../../nodes/gateway/errors';
import { runCredentialTest, runNode } from '../harness';
import { sandboxCredentials, startSandbox, type Sandbox } from '../sandbox';

class TransportProbe implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Transport Probe',
		name: 'transportProbe',
		group: ['output'],
		version: 1,
		description: 'Sends one gateway request per item',
		defaults: { name: 'Transport Probe' },
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true, testedBy: 'messagingGatewayApiTest' }],
		properties: [],
	};

	methods = { credentialTest: { messagingGatewayApiTest } };

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const out: INodeExecutionData[] = [];
		for (const [index, item] of this.getInputData().entries()) {
			const request = item.json as unknown as {
				endpoint: EndpointName;
				method: 'GET' | 'POST';
				pathSuffix?: string;
				body?: IDataObject;
				timeoutMs?: number;
				/** Send a streamed CSV body instead: `rows` rows, one every `everyMs`. */
				stream?: { rows: number; everyMs: number };
			};
			const { stream, ...rest } = request;
			const body = stream ? new FileBody(csvRows(stream.rows, stream.everyMs), csvSize(stream.rows), 'application/csv') : rest.body;
			const response = await gatewayRequest.call(this, { ...rest, body, itemIndex: index });
			out.push({ json: { statusCode: response.statusCode, body: response.body }, pairedItem: { item: index } });
		}
		return [out];
	}
}

/** A person file written slowly: the header, then `rows` rows of about 1 KB, one every `everyMs`. */
async function* csvRows(rows: number, everyMs: number): AsyncGenerator<Buffer> {
	yield Buffer.from(CSV_HEADER);
	for (let row = 0; row < rows; row++) {
		if (everyMs > 0) await new Promise((resolve) => setTimeout(resolve, everyMs));
		yield Buffer.from(csvRow(row));
	}
}

const CSV_HEADER = 'FirstName;Email\n';
const csvRow = (row: number) => `${'P'.repeat(1000)};p${row}@example.com\n`;

/** The byte length of `csvRows(rows)`, which a Blob-like body announces up front. */
function csvSize(rows: number): number {
	let size = CSV_HEADER.length;
	for (let row = 0; row < rows; row++) size += csvRow(row).length;
	return size;
}

const textMessage = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '5511988887777', type: 'text', text: { body: 'hi' } };

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

// A trailing slash on the base URL, as users type it.
const credentials = (overrides: Record<string, string> = {}) =>
	sandboxCredentials(sandbox, { baseUrl: `${sandbox.url}/`, ...overrides });

const probe = (items: IDataObject[], overrides?: Record<string, string>) =>
	runNode({ node: new TransportProbe(), parameters: {}, credentials: credentials(overrides), items: items.map((json) => ({ json })) });

describe('every request', () => {
	it('carries the apikey header and the version of its endpoint, and reaches the joined URL', async () => {
		const { output } = await probe([
			{ endpoint: 'messages', method: 'POST', body: textMessage },
			{ endpoint: 'webhooks', method: 'GET' },
			{ endpoint: 'profiles', method: 'GET' },
		]);
		expect(output[0].map((item) => item.json.statusCode)).toEqual([200, 200, 200]);
		expect(sandbox.requests.map((r) => [r.method, r.path, r.headers.apikey, r.headers.version])).toEqual([
			['POST', ENDPOINTS.messages.path, sandbox.apiKey, '5.0'],
			['GET', ENDPOINTS.webhooks.path, sandbox.apiKey, '4.0'],
			['GET', ENDPOINTS.profiles.path, sandbox.apiKey, '4.0'],
		]);
		expect(sandbox.requests[0].body).toEqual(textMessage);
	});
});

describe('gateway failures become NodeApiError with the gateway message, never the key', () => {
	const sendOnce = async () => {
		try {
			await probe([{ endpoint: 'messages', method: 'POST', body: textMessage }]);
		} catch (error) {
			return error as NodeApiError;
		}
		throw new Error('expected the node to fail');
	};

	it('a refused key: 401 with the gateway message', async () => {
		let error: NodeApiError | undefined;
		try {
			await probe([{ endpoint: 'profiles', method: 'GET' }], { apiKey: 'wrong-key-123456' });
		} catch (caught) {
			error = caught as NodeApiError;
		}
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.httpCode).toBe('401');
		expect(error!.message).toMatch(/^The gateway answered 401: .+/);
		expect(JSON.stringify(error)).not.toContain('wrong-key-123456');
	});

	it('a spec violation: 400 with the field the gateway names', async () => {
		let error: NodeApiError | undefined;
		try {
			await probe([{ endpoint: 'messages', method: 'POST', body: { ...textMessage, text: {} } }]);
		} catch (caught) {
			error = caught as NodeApiError;
		}
		expect(error!.httpCode).toBe('400');
		expect(error!.message).toMatch(/text\.body/);
	});

	it('500: one request only, a clear error', async () => {
		sandbox.failNext('messages', 1, '500');
		const error = await sendOnce();
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.httpCode).toBe('500');
		expect(error.message).toMatch(/^The gateway answered 500/);
		expect(sandbox.requests).toHaveLength(1);
		expect(JSON.stringify(error)).not.toContain(sandbox.apiKey);
	});

	it('a dropped connection: one request only, and the user is told it may have arrived', async () => {
		sandbox.failNext('messages', 1, 'drop');
		const error = await sendOnce();
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/connection to the gateway was lost/);
		expect(error.description).toMatch(/not repeated/);
		expect(sandbox.requests).toHaveLength(1);
		expect(JSON.stringify(error)).not.toContain(sandbox.apiKey);
	});

	it('a non-JSON answer: the status and a hint at the Base URL', async () => {
		sandbox.failNext('messages', 1, 'non-json');
		const error = await sendOnce();
		expect(error.httpCode).toBe('502');
		expect(error.description).toMatch(/Base URL/);
	});

	it('429 with Retry-After is retried and then succeeds, sending the message once accepted', async () => {
		sandbox.failNext('messages', 1, '429', { retryAfterSeconds: 1 });
		const started = Date.now();
		const { output } = await probe([{ endpoint: 'messages', method: 'POST', body: textMessage }]);
		expect(Date.now() - started).toBeGreaterThanOrEqual(900);
		expect(output[0][0].json.statusCode).toBe(200);
		expect(sandbox.requests.map((r) => r.status)).toEqual([429, 200]);
	});

	it('429 that persists: bounded tries, then the error', async () => {
		sandbox.failNext('messages', 5, '429', { retryAfterSeconds: 0 });
		const error = await sendOnce();
		expect(error.httpCode).toBe('429');
		expect(sandbox.requests).toHaveLength(3);
	});

	it('an unreachable gateway: says so and that nothing was sent', async () => {
		let error: NodeApiError | undefined;
		try {
			await probe([{ endpoint: 'profiles', method: 'GET' }], { baseUrl: 'http://127.0.0.1:9' });
		} catch (caught) {
			error = caught as NodeApiError;
		}
		expect(error!.message).toBe('Could not reach the gateway at http://127.0.0.1:9 (ECONNREFUSED)');
	});
});

describe('answers the node cannot read are errors that say the request may have been accepted, never repeated', () => {
	const failure = async (run: Promise<unknown>) => {
		try {
			await run;
		} catch (error) {
			return error as NodeApiError;
		}
		throw new Error('expected the run to fail');
	};
	const sendText = (parameters: IDataObject = {}) =>
		runNode({
			node: new MessagingGateway(),
			parameters: { resource: 'message', operation: 'send', messageType: 'text', recipientPhoneNumber: '5511988887777', textBody: 'oi', ...parameters },
			credentials: credentials(),
		});

	it('a 200 with truncated JSON: an error, not an item of single characters; one request', async () => {
		sandbox.failNext('messages', 1, 'truncated-json');
		const error = await failure(probe([{ endpoint: 'messages', method: 'POST', body: textMessage }]));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toBe('The gateway answered 200 with an answer that is not complete JSON');
		expect(error.description).toBe(MAY_HAVE_BEEN_ACCEPTED);
		expect(sandbox.requests).toHaveLength(1);
	});

	it.each([
		['truncated-json', /not complete JSON/],
		['empty-200', /without the id of the sent message/],
		['no-ids', /without the id of the sent message/],
	] as const)('Message > Send answered %s: a NodeApiError, one request, nothing repeated', async (mode, message) => {
		sandbox.failNext('messages', 1, mode);
		const error = await failure(sendText());
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(message);
		expect(error.description).toMatch(/may have accepted the request. It was not repeated/);
		expect(sandbox.requests.map((request) => request.status)).toEqual([200]);
	});

	it('Mark as Read answered without success: true is an error, not a success', async () => {
		sandbox.failNext('messages', 1, 'no-ids');
		const error = await failure(
			runNode({
				node: new MessagingGateway(),
				parameters: { resource: 'message', operation: 'markAsRead', readMessageId: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjQ2' },
				credentials: credentials(),
			}),
		);
		expect(error.message).toMatch(/without a confirmation \(success: true\)/);
		expect(sandbox.requests).toHaveLength(1);
	});

	it('the send output puts messageId, waId and to first, then the gateway answer', async () => {
		const { output } = await sendText();
		expect(Object.keys(output[0][0].json).slice(0, 3)).toEqual(['messageId', 'waId', 'to']);
		expect(output[0][0].json).toMatchObject({ to: '5511988887777', waId: '5511988887777', messaging_product: 'whatsapp' });
		expect(output[0][0].json.messageId).toBe((sandbox.requests[0].responseBody as { messages: Array<{ id: string }> }).messages[0].id);
	});

	it('the send output and the status item of its message share messageId and recipient (one join expression)', async () => {
		const { output } = await sendText();
		const sent = output[0][0].json;
		const status = parseNotification({
			messaging_product: 'whatsapp',
			metadata: { display_phone_number: '5511900001111', phone_number_id: sandbox.phoneId },
			statuses: [{ id: sent.messageId, status: 'delivered', timestamp: '1763800200', recipient_id: sent.waId }],
		});
		if (!status.isNotification) throw new Error(status.reason);
		expect(sent.recipient).toBe('5511988887777');
		expect(status.items[0]).toMatchObject({ messageId: sent.messageId, recipient: sent.recipient });
	});
});

describe('a deadline per request (Timeout), the whole answer included', () => {
	const timedSend = async (mode: 'hang' | 'trickle') => {
		sandbox.failNext('messages', 1, mode);
		const started = Date.now();
		let error: NodeApiError | undefined;
		try {
			await runNode({
				node: new MessagingGateway(),
				parameters: {
					resource: 'message',
					operation: 'send',
					messageType: 'text',
					recipientPhoneNumber: '5511988887777',
					textBody: 'oi',
					sending: { timeout: 1.5 },
				},
				credentials: credentials(),
			});
		} catch (caught) {
			error = caught as NodeApiError;
		}
		return { error, elapsed: Date.now() - started };
	};

	it('a gateway that never answers: the send ends at the deadline, "may have been sent; not repeated"', async () => {
		const { error, elapsed } = await timedSend('hang');
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.message).toBe('The gateway did not answer within 1.5 s (Timeout option): the request may have been sent and was not repeated');
		expect(error!.description).toBe(MAY_HAVE_BEEN_ACCEPTED);
		expect(elapsed).toBeGreaterThanOrEqual(1400);
		expect(elapsed).toBeLessThan(10_000);
		expect(sandbox.requests).toHaveLength(1);
	});

	it('a gateway that trickles its answer byte by byte: the deadline covers the body too', async () => {
		const { error, elapsed } = await timedSend('trickle');
		expect(error!.message).toMatch(/did not answer within 1.5 s/);
		expect(elapsed).toBeLessThan(10_000);
		expect(sandbox.requests).toHaveLength(1);
		expect(sandbox.requests[0].status).toBe(200); // the answer had begun: only the deadline ended it
	});

	it('any request has the default deadline through the transport; one that never connected says nothing was sent', async () => {
		sandbox.failNext('messages', 1, 'hang');
		const error = await (async () => {
			try {
				await probe([{ endpoint: 'messages', method: 'POST', body: textMessage, timeoutMs: 500 }]);
			} catch (caught) {
				return caught as NodeApiError;
			}
			throw new Error('expected the probe to fail');
		})();
		expect(error.message).toMatch(/did not answer within 0.5 s/);
		let refused: NodeApiError | undefined;
		try {
			await probe([{ endpoint: 'messages', method: 'POST', body: textMessage }], { baseUrl: 'http://127.0.0.1:9' });
		} catch (caught) {
			refused = caught as NodeApiError;
		}
		expect(refused!.description).toMatch(/^Nothing was sent/);
	});
});

describe('a streamed upload has an idle deadline: no byte either way for the Timeout', () => {
	const failureOf = async (items: IDataObject[]) => {
		try {
			await probe(items);
		} catch (caught) {
			return caught as NodeApiError;
		}
		return undefined;
	};

	it('a gateway that stops reading the body: the upload ends at the deadline, "may have been sent; not repeated"', async () => {
		sandbox.failNext('personUpload', 1, 'stop-reading');
		const started = Date.now();
		// 200 MB if it were read: far more than the socket buffers hold.
		const error = await failureOf([{ endpoint: 'personUpload', method: 'POST', timeoutMs: 1000, stream: { rows: 200_000, everyMs: 0 } }]);
		const elapsed = Date.now() - started;
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error!.message).toBe('The upload stalled: no byte moved for 1 s (Timeout option); it may have been sent and was not repeated');
		expect(error!.description).toBe(MAY_HAVE_BEEN_ACCEPTED);
		expect(elapsed).toBeGreaterThanOrEqual(900);
		expect(elapsed).toBeLessThan(15_000);
		expect(sandbox.requests).toHaveLength(1);
	});

	it('an upload that keeps moving is not cut by the Timeout, however long it takes in all', async () => {
		// 8 rows 250 ms apart: 2 s in all against a 1 s Timeout.
		const error = await failureOf([{ endpoint: 'personUpload', method: 'POST', timeoutMs: 1000, stream: { rows: 8, everyMs: 250 } }]);
		expect(error).toBeUndefined();
		expect(sandbox.state.personFiles).toHaveLength(1);
	});
});

describe('credential test (GET /api/Profiles, version 4.0)', () => {
	const test = (data: ICredentialDataDecryptedObject) =>
		runCredentialTest({ node: new TransportProbe(), testName: 'messagingGatewayApiTest', credentials: data });

	it('passes with the right key and a base URL with a trailing slash', async () => {
		const result = await test({ apiKey: sandbox.apiKey, baseUrl: `${sandbox.url}/` });
		expect(result.status).toBe('OK');
		expect(sandbox.requests[0]).toMatchObject({ method: 'GET', path: '/api/Profiles' });
		expect(sandbox.requests[0].headers.version).toBe('4.0');
	});

	it('fails with a wrong key, saying the key was refused and not showing it', async () => {
		const result = await test({ apiKey: 'not-the-key-42', baseUrl: sandbox.url });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/refused the API key/);
		expect(result.message).not.toContain('not-the-key-42');
	});

	it('fails with a wrong URL path, pointing at the Base URL', async () => {
		const result = await test({ apiKey: sandbox.apiKey, baseUrl: `${sandbox.url}/v2` });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/answered 404. Check the Base URL/);
	});

	const addWebhook = (phoneId: string, apiKey = sandbox.apiKey) =>
		sandbox.state.webhooks.set(`webhook-${phoneId}`, {
			id: `webhook-${phoneId}`,
			apiKey,
			phone: phoneId,
			phone_id: phoneId,
			meta_version: 'LATEST',
			types: ['messages'],
			endpoint: 'https://n8n.example.com/webhook/x',
			headers: {},
			create_date: '2026-01-01T00:00:00+00:00',
			update_date: '2026-01-01T00:00:00+00:00',
		});

	it('fails on a Default Country that is not a country code, naming the field', async () => {
		const result = await test({ apiKey: sandbox.apiKey, baseUrl: sandbox.url, defaultCountry: 'Brazil' });
		expect(result.status).toBe('Error');
		expect(result.message).toContain('Default Country "Brazil" is not a country code');
	});

	it('passes a Default Country in any letter case', async () => {
		const result = await test({ apiKey: sandbox.apiKey, baseUrl: sandbox.url, defaultCountry: 'br' });
		expect(result.status).toBe('OK');
	});

	it('checks the Phone ID against the phone ids on the key\'s webhooks (GET /api/Webhooks, version 4.0)', async () => {
		addWebhook(sandbox.phoneId);
		addWebhook('999000111', 'some-other-key');
		const right = await test({ apiKey: sandbox.apiKey, baseUrl: sandbox.url, phoneId: sandbox.phoneId });
		expect(right).toEqual({ status: 'OK', message: 'Connection successful: the gateway accepted the API key' });
		const listing = sandbox.requests.find((request) => request.path === '/api/Webhooks');
		expect(listing).toMatchObject({ method: 'GET', status: 200 });
		expect(listing!.headers.version).toBe('4.0');

		const wrong = await test({ apiKey: sandbox.apiKey, baseUrl: sandbox.url, phoneId: '999000111' });
		expect(wrong.status).toBe('Error');
		expect(wrong.message).toContain(`Phone ID 999000111 is not a phone of this API key: its webhooks are for ${sandbox.phoneId}`);
	});

	it('says a message per failure when both Default Country and Phone ID are wrong', async () => {
		addWebhook(sandbox.phoneId);
		const result = await test({ apiKey: sandbox.apiKey, baseUrl: sandbox.url, phoneId: '123', defaultCountry: 'XX' });
		expect(result.status).toBe('Error');
		expect(result.message).toMatch(/Default Country "XX" is not a country code.*\. Phone ID 123 is not a phone of this API key/);
	});

	it('passes a Phone ID it cannot check, and says so, when the key has no webhook', async () => {
		const result = await test({ apiKey: sandbox.apiKey, baseUrl: sandbox.url, phoneId: '123' });
		expect(result.status).toBe('OK');
		expect(result.message).toMatch(/Phone ID not checked: .* this key has none yet/);
	});

	it('sends no webhook request without a Phone ID', async () => {
		await test({ apiKey: sandbox.apiKey, baseUrl: sandbox.url });
		expect(sandbox.requests.map((request) => request.path)).toEqual(['/api/Profiles']);
	});

	it('fails with an unreachable address', async () => {
		const result = await test({ apiKey: sandbox.apiKey, baseUrl: 'http://127.0.0.1:9' });
		expect(result).toEqual({ status: 'Error', message: 'Could not reach the gateway at http://127.0.0.1:9 (ECONNREFUSED)' });
	});
});
