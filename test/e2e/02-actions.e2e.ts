/**
 * Every resource and operation, and every message type, in a real n8n: each workflow is imported and run with
 * `n8n execute --id`; the test checks the request the sandbox gateway recorded (control API) and the node's
 * output items read from n8n's execution data in SQLite.
 */
import { setup, type Env, type SandboxRequest, type Workflow } from './support/env';
import type { Execution } from './support/db';
import { binaryCode, chain, FILES, itemsCode, single } from './support/workflows';

const TO = '5511988887777';
const VERSION = { messages: '5.0', templates: '5.0', webhooks: '4.0', profiles: '4.0', medias: '6.0' };

let env: Env;

beforeAll(async () => {
	env = await setup('actions');
});

afterAll(async () => {
	await env?.teardown();
});

/** Import one workflow, reset the sandbox, run it; returns the execution and the requests it caused. */
async function runWorkflow(wf: Workflow): Promise<{ exec: Execution; requests: SandboxRequest[] }> {
	const [imported] = await env.importWorkflows([wf]);
	await env.sandbox.control.reset();
	const exec = await env.execute(imported);
	const requests = await env.requests();
	return { exec, requests };
}

/** Fails with the execution's error (and the CLI's view of it) when the run did not succeed. */
function expectSuccess(exec: Execution) {
	if (exec.status !== 'success') {
		const nodeErrors = Object.keys(exec.data?.resultData?.runData ?? {})
			.map((name) => ({ name, error: exec.node(name)?.error }))
			.filter((n) => n.error);
		throw new Error(
			`Execution ${exec.id} ended "${exec.status}": ${JSON.stringify(exec.error ?? nodeErrors).slice(0, 1500)}`,
		);
	}
}

function output(exec: Execution, node = 'Gateway') {
	const run = exec.node(node);
	if (!run) throw new Error(`Node "${node}" did not run`);
	return run.items.map((i) => i.json);
}

function expectGatewayHeaders(req: SandboxRequest, version?: string) {
	expect(req.headers.apikey).toBe(env.sandbox.apiKey);
	if (version) expect(req.headers.version).toBe(version);
	expect(req.status).toBeGreaterThanOrEqual(200);
	expect(req.status).toBeLessThan(300);
}

/** The one POST /api/Messages of a run (after any media upload). */
function messageRequest(requests: SandboxRequest[]): SandboxRequest {
	const found = requests.filter((r) => r.path === '/api/Messages');
	expect(found).toHaveLength(1);
	expectGatewayHeaders(found[0], VERSION.messages);
	return found[0];
}

const send = (messageType: string, fields: Record<string, unknown>) => ({
	resource: 'message',
	operation: 'send',
	recipientPhoneNumber: TO,
	messageType,
	...fields,
});

/** A sent message: the output carries the gateway's answer plus messageId and waId on top. */
function expectSentOutput(exec: Execution, req: SandboxRequest) {
	const [json] = output(exec);
	const answer = req.responseBody as { messages: Array<{ id: string }>; contacts: Array<{ wa_id: string }> };
	expect(json.messaging_product).toBe('whatsapp');
	expect(json.messageId).toBe(answer.messages[0].id);
	expect(json.waId).toBe(answer.contacts[0].wa_id);
}

describe('message: send, one workflow per message type', () => {
	test('text', async () => {
		const { exec, requests } = await runWorkflow(single('e2e message text', send('text', { textBody: 'Olá from the e2e suite' })));
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body).toMatchObject({ messaging_product: 'whatsapp', to: TO, type: 'text', text: { body: 'Olá from the e2e suite' } });
		expectSentOutput(exec, req);
	});

	test('template (body and URL button parameters)', async () => {
		const { exec, requests } = await runWorkflow(
			single(
				'e2e message template',
				send('template', {
					templateName: 'order_update',
					templateLanguage: 'pt_BR',
					templateBodyParameters: { parameter: [{ text: 'Ana' }, { text: '#123' }] },
					templateButtonParameters: { button: [{ index: 0, text: 'track/123' }] },
				}),
			),
		);
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body.type).toBe('template');
		expect(req.body.template).toMatchObject({ name: 'order_update', language: { code: 'pt_BR' } });
		const components = req.body.template.components as any[];
		expect(components.find((c) => c.type === 'body').parameters.map((p: any) => p.text)).toEqual(['Ana', '#123']);
		expect(components.find((c) => c.type === 'button')).toMatchObject({ sub_type: 'url', index: '0' });
		expectSentOutput(exec, req);
	});

	test('interactive buttons', async () => {
		const { exec, requests } = await runWorkflow(
			single(
				'e2e message buttons',
				send('interactiveButtons', {
					buttonsBody: 'Confirm your visit?',
					buttonsFooter: 'Reply below',
					replyButtons: { button: [{ id: 'yes', title: 'Yes' }, { id: 'no', title: 'No' }] },
				}),
			),
		);
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body.type).toBe('interactive');
		expect(req.body.interactive).toMatchObject({ type: 'button', body: { text: 'Confirm your visit?' } });
		expect(req.body.interactive.action.buttons).toEqual([
			{ type: 'reply', reply: { id: 'yes', title: 'Yes' } },
			{ type: 'reply', reply: { id: 'no', title: 'No' } },
		]);
		expectSentOutput(exec, req);
	});

	test('interactive list', async () => {
		const { exec, requests } = await runWorkflow(
			single(
				'e2e message list',
				send('interactiveList', {
					listHeader: 'Menu',
					listBody: 'Choose a slot',
					listFooter: 'Thanks',
					listButtonLabel: 'Slots',
					listSections: {
						section: [{ title: 'Morning', rows: { row: [{ id: 'm9', title: '9:00', description: 'Nine o’clock' }] } }],
					},
				}),
			),
		);
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body.interactive).toMatchObject({
			type: 'list',
			header: { type: 'text', text: 'Menu' },
			body: { text: 'Choose a slot' },
			footer: { text: 'Thanks' },
			action: { button: 'Slots', sections: [{ title: 'Morning', rows: [{ id: 'm9', title: '9:00', description: 'Nine o’clock' }] }] },
		});
		expectSentOutput(exec, req);
	});

	test('contacts', async () => {
		const { exec, requests } = await runWorkflow(
			single(
				'e2e message contacts',
				send('contacts', {
					contactsInputMode: 'fields',
					contactCards: {
						card: [
							{
								formattedName: 'Maria Silva',
								firstName: 'Maria',
								lastName: 'Silva',
								company: 'ACME',
								phones: { phone: [{ phone: '+55 11 98888-7777', type: 'WORK' }] },
								emails: { email: [{ email: 'maria@example.com', type: 'WORK' }] },
							},
						],
					},
				}),
			),
		);
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body.type).toBe('contacts');
		expect(req.body.contacts[0]).toMatchObject({
			name: { formatted_name: 'Maria Silva', first_name: 'Maria', last_name: 'Silva' },
			phones: [{ phone: '+55 11 98888-7777', type: 'WORK' }],
			emails: [{ email: 'maria@example.com', type: 'WORK' }],
		});
		expectSentOutput(exec, req);
	});

	test('location', async () => {
		const { exec, requests } = await runWorkflow(
			single(
				'e2e message location',
				send('location', { latitude: -23.5614, longitude: -46.6559, locationName: 'MASP', locationAddress: 'Av. Paulista, 1578' }),
			),
		);
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body.location).toEqual({ latitude: '-23.5614', longitude: '-46.6559', name: 'MASP', address: 'Av. Paulista, 1578' });
		expectSentOutput(exec, req);
	});

	// Media types: some from a binary (the node uploads it first), the others by an existing media id.
	const fromBinary = [
		['image', FILES.png],
		['video', FILES.mp4],
		['sticker', FILES.webp],
	] as const;
	test.each(fromBinary)('%s from a binary (upload, then send with the new media id)', async (type, file) => {
		const { exec, requests } = await runWorkflow(
			single(`e2e message ${type} binary`, send(type, { mediaSource: 'binary', binaryPropertyName: 'data' }), binaryCode(file)),
		);
		expectSuccess(exec);
		const upload = requests.find((r) => r.path.startsWith('/api/Medias'));
		expect(upload).toBeDefined();
		expectGatewayHeaders(upload!, VERSION.medias);
		expect(upload!.body.files[0]).toMatchObject({ field: 'File', fileName: file.fileName, contentType: file.mimeType });
		expect(upload!.body.files[0].size).toBe(Buffer.from(file.base64, 'base64').length);
		const req = messageRequest(requests);
		expect(req.body.type).toBe(type);
		expect(req.body[type].id).toBe((upload!.responseBody as { id: string }).id);
		expectSentOutput(exec, req);
	});

	test('audio by media id', async () => {
		const { exec, requests } = await runWorkflow(single('e2e message audio id', send('audio', { mediaSource: 'id', mediaId: '1234567890' })));
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(requests.some((r) => r.path.startsWith('/api/Medias'))).toBe(false);
		expect(req.body).toMatchObject({ type: 'audio', audio: { id: '1234567890' } });
		expectSentOutput(exec, req);
	});

	test('document by media id, with caption and file name', async () => {
		const { exec, requests } = await runWorkflow(
			single(
				'e2e message document id',
				send('document', { mediaSource: 'id', mediaId: '987654321', mediaCaption: 'Your invoice', documentFilename: 'invoice.pdf' }),
			),
		);
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body.document).toEqual({ id: '987654321', caption: 'Your invoice', filename: 'invoice.pdf' });
		expectSentOutput(exec, req);
	});

	test('reaction', async () => {
		const { exec, requests } = await runWorkflow(
			single('e2e message reaction', send('reaction', { reactionMessageId: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFjNFQjBDMEY', reactionEmoji: '👍' })),
		);
		expectSuccess(exec);
		const req = messageRequest(requests);
		expect(req.body.reaction).toEqual({ message_id: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFjNFQjBDMEY', emoji: '👍' });
		expectSentOutput(exec, req);
	});

	test('one request per input item, outputs paired with items', async () => {
		const { exec, requests } = await runWorkflow(
			single(
				'e2e message text per item',
				send('text', { recipientPhoneNumber: '={{ $json.phone }}', textBody: '=Hi {{ $json.name }}' }),
				itemsCode([
					{ phone: '5511911110001', name: 'Ana' },
					{ phone: '5511911110002', name: 'Bruno' },
					{ phone: '5511911110003', name: 'Carla' },
				]),
			),
		);
		expectSuccess(exec);
		// Up to 20 requests are in flight at once, so they may reach the gateway in any order; the outputs keep the
		// input order.
		const sent = requests.filter((r) => r.path === '/api/Messages');
		expect(sent.map((r) => [r.body.to, r.body.text.body]).sort()).toEqual([
			['5511911110001', 'Hi Ana'],
			['5511911110002', 'Hi Bruno'],
			['5511911110003', 'Hi Carla'],
		]);
		expect(output(exec).map((j) => j.waId)).toEqual(['5511911110001', '5511911110002', '5511911110003']);
	});
});

test('message: mark as read', async () => {
	const { exec, requests } = await runWorkflow(
		single('e2e message mark as read', { resource: 'message', operation: 'markAsRead', readMessageId: 'wamid.INCOMING42' }),
	);
	expectSuccess(exec);
	const req = messageRequest(requests);
	expect(req.body).toEqual({ messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.INCOMING42' });
	const [json] = output(exec);
	expect(json.success).toBe(true);
	expect(json.messageId).toBe('wamid.INCOMING42');
});

describe('template', () => {
	let templateId: string;

	test('create', async () => {
		const { exec, requests } = await runWorkflow(
			single('e2e template create', {
				resource: 'template',
				operation: 'create',
				name: 'e2e_order_update',
				language: 'pt_BR',
				category: 'UTILITY',
				componentsInput: 'fields',
				bodyText: 'Olá {{1}}, seu pedido {{2}} foi enviado.',
				bodyExamples: { example: [{ value: 'Ana' }, { value: '#123' }] },
				footerText: 'Loja Exemplo',
			}),
		);
		expectSuccess(exec);
		const req = requests.find((r) => r.path.startsWith('/api/Templates') && r.method === 'POST')!;
		expectGatewayHeaders(req, VERSION.templates);
		expect(req.body).toMatchObject({ name: 'e2e_order_update', language: 'pt_BR', category: 'UTILITY' });
		const body = req.body.components.find((c: any) => c.type === 'BODY');
		expect(body).toMatchObject({ text: 'Olá {{1}}, seu pedido {{2}} foi enviado.', example: { body_text: [['Ana', '#123']] } });
		expect(req.body.components.find((c: any) => c.type === 'FOOTER')).toMatchObject({ text: 'Loja Exemplo' });
		const [json] = output(exec);
		templateId = String(json.id);
		expect(templateId).toBe(String((req.responseBody as { id: string }).id));
	});

	test('get and edit (chained; the template approved at the gateway first)', async () => {
		expect(templateId).toBeDefined();
		// reset() in runWorkflow would drop the template: import and run by hand here.
		const wf = chain('e2e template get and edit', [
			{ name: 'Get', parameters: { resource: 'template', operation: 'get', templateId } },
			{
				name: 'Edit',
				parameters: {
					resource: 'template',
					operation: 'edit',
					templateId,
					startFromCurrent: true,
					componentsInput: 'fields',
					bodyText: 'Olá {{1}}, seu pedido {{2}} saiu para entrega.',
					bodyExamples: { example: [{ value: 'Ana' }, { value: '#123' }] },
				},
			},
		]);
		const [imported] = await env.importWorkflows([wf]);
		await env.sandbox.control.templateStatus(templateId, 'APPROVED');
		const before = (await env.requests()).length;
		const exec = await env.execute(imported);
		expectSuccess(exec);
		const requests = (await env.requests()).slice(before);
		const get = requests.find((r) => r.method === 'GET' && r.path === `/api/Templates/${templateId}`)!;
		expectGatewayHeaders(get, VERSION.templates);
		expect(output(exec, 'Get')[0]).toMatchObject({ id: templateId, name: 'e2e_order_update', status: 'APPROVED' });
		const put = requests.find((r) => r.method === 'PUT')!;
		expect(put.path).toBe(`/api/Templates/${templateId}`);
		expectGatewayHeaders(put, VERSION.templates);
		expect(put.body.category).toBe('UTILITY');
		expect(put.body.components.find((c: any) => c.type === 'BODY').text).toBe('Olá {{1}}, seu pedido {{2}} saiu para entrega.');
		// startFromCurrent keeps the components not edited.
		expect(put.body.components.find((c: any) => c.type === 'FOOTER')).toMatchObject({ text: 'Loja Exemplo' });
		expect(output(exec, 'Edit')[0].success).toBe(true);
	});
});

describe('template message From Template (only the template ID given)', () => {
	test('reads the template once and sends it under its own name and language', async () => {
		await env.sandbox.control.reset();
		// A template in en_US: the hidden Language Code field's default (pt_BR) must not be what is sent.
		const created = await fetch(`${env.sandbox.url}/api/Templates`, {
			method: 'POST',
			headers: { apikey: env.sandbox.apiKey, version: VERSION.templates, 'content-type': 'application/json' },
			body: JSON.stringify({
				name: 'e2e_welcome',
				language: 'en_US',
				category: 'UTILITY',
				components: [{ type: 'BODY', text: 'Welcome, {{1}}!', example: { body_text: [['Ana']] } }],
			}),
		});
		expect(created.status).toBe(201);
		const { id } = (await created.json()) as { id: string };

		// The parameters as the editor stores them once it has listed the template's placeholders.
		const templateParameters = {
			mappingMode: 'defineBelow',
			value: { body_1: 'Maria' },
			matchingColumns: [],
			schema: [{ id: 'body_1', displayName: 'Body {{1}} (e.g. Ana)', required: true, defaultMatch: false, canBeUsedToMatch: false, display: true, type: 'string' }],
			attemptToConvertTypes: false,
			convertFieldsToString: true,
		};
		const [imported] = await env.importWorkflows([
			single('e2e message template from id', send('template', { templateParameterSource: 'fromTemplate', templateId: id, templateParameters })),
		]);
		const before = (await env.requests()).length;
		const exec = await env.execute(imported);
		expectSuccess(exec);
		const requests = (await env.requests()).slice(before);

		expect(requests.filter((r) => r.method === 'GET').map((r) => r.path)).toEqual([`/api/Templates/${id}`]);
		const req = messageRequest(requests);
		expect(req.body.template).toEqual({
			name: 'e2e_welcome',
			language: { policy: 'deterministic', code: 'en_US' },
			components: [{ type: 'body', parameters: [{ type: 'text', text: 'Maria' }] }],
		});
		expectSentOutput(exec, req);
	});
});

describe('webhook', () => {
	test('create', async () => {
		const { exec, requests } = await runWorkflow(
			single('e2e webhook create', {
				resource: 'webhook',
				operation: 'create',
				endpoint: 'https://hooks.example.com/whatsapp',
				types: ['messages'],
				metaVersion: 'v16',
				customHeaders: { header: [{ name: 'x-shared-token', value: 'abc123' }] },
			}),
		);
		expectSuccess(exec);
		const req = requests.find((r) => r.path.startsWith('/api/Webhooks') && r.method === 'POST')!;
		expectGatewayHeaders(req, VERSION.webhooks);
		expect(req.body).toMatchObject({
			endpoint: 'https://hooks.example.com/whatsapp',
			types: ['messages'],
			meta_version: 'v16',
			headers: { 'x-shared-token': 'abc123' },
		});
		const [json] = output(exec);
		expect(json.id).toBe((req.responseBody as { id: string }).id);
		expect(json.endpoint).toBe('https://hooks.example.com/whatsapp');
	});

	test('list', async () => {
		const create = single('e2e webhook create for list', {
			resource: 'webhook',
			operation: 'create',
			endpoint: 'https://hooks.example.com/listed',
			types: ['messages'],
		});
		const list = single('e2e webhook list', { resource: 'webhook', operation: 'list' });
		const [c, l] = await env.importWorkflows([create, list]);
		await env.sandbox.control.reset();
		expectSuccess(await env.execute(c));
		const exec = await env.execute(l);
		expectSuccess(exec);
		const req = (await env.requests()).find((r) => r.method === 'GET' && r.path.startsWith('/api/Webhooks'))!;
		expectGatewayHeaders(req, VERSION.webhooks);
		const items = output(exec);
		expect(items.map((j) => j.endpoint)).toContain('https://hooks.example.com/listed');
	});
});

test('profile: get', async () => {
	const { exec, requests } = await runWorkflow(single('e2e profile get', { resource: 'profile', operation: 'get' }));
	expectSuccess(exec);
	const req = requests.find((r) => r.path === '/api/Profiles')!;
	expect(req.method).toBe('GET');
	expectGatewayHeaders(req, VERSION.profiles);
	const profile = (req.responseBody as { data: Array<Record<string, unknown>> }).data[0];
	expect(output(exec)[0]).toMatchObject({ messaging_product: 'whatsapp', about: profile.about, vertical: profile.vertical });
});

test('media: upload a binary', async () => {
	const { exec, requests } = await runWorkflow(
		single('e2e media upload', { resource: 'media', operation: 'upload', binaryPropertyName: 'data', mediaKind: 'auto' }, binaryCode(FILES.pdf)),
	);
	expectSuccess(exec);
	const req = requests.find((r) => r.path.startsWith('/api/Medias'))!;
	expectGatewayHeaders(req, VERSION.medias);
	expect(req.body.fields).toEqual({ messaging_product: 'whatsapp' });
	expect(req.body.files[0]).toMatchObject({ field: 'File', fileName: 'invoice.pdf', contentType: 'application/pdf' });
	expect(output(exec)[0].id).toBe((req.responseBody as { id: string }).id);
});

describe('person data: upload', () => {
	const people = [
		{ FirstName: 'Ana', LastName: 'Souza', Email: 'ana@example.com', Phone: '5511911110001', Tier: 'gold' },
		{ FirstName: 'Bruno', Email: 'bruno@example.com', Phone: '5511911110002', Tier: 'silver' },
	];

	test.each(['csv', 'json'])('items as a %s file', async (format) => {
		const { exec, requests } = await runWorkflow(
			single(`e2e person upload items ${format}`, { resource: 'personData', operation: 'upload', source: 'items', format, mappingMode: 'auto' }, itemsCode(people)),
		);
		expectSuccess(exec);
		const req = requests.find((r) => r.path === '/DataInserterProfiles/api/profile')!;
		expect(req.method).toBe('POST');
		expect(req.headers.apikey).toBe(env.sandbox.apiKey);
		expect(req.status).toBe(200);
		expect(req.headers['content-type']).toContain(format === 'csv' ? 'application/csv' : 'application/json');
		expect(req.body.records).toBe(2);
		const fileId = (req.responseBody as { response: { fileId: string } }).response.fileId;
		expect(JSON.stringify(output(exec))).toContain(fileId);
	});

	test('a CSV file from a binary', async () => {
		const csv = 'FirstName;Email;Phone\nAna;ana@example.com;5511911110001\nBruno;bruno@example.com;5511911110002\n';
		const file = { base64: Buffer.from(csv).toString('base64'), mimeType: 'text/csv', fileName: 'people.csv' };
		const { exec, requests } = await runWorkflow(
			single(
				'e2e person upload binary',
				{ resource: 'personData', operation: 'upload', source: 'binary', format: 'csv', binaryPropertyName: 'data', validateFile: true },
				binaryCode(file),
			),
		);
		expectSuccess(exec);
		const req = requests.find((r) => r.path === '/DataInserterProfiles/api/profile')!;
		expect(req.status).toBe(200);
		expect(req.body.records).toBe(2);
		const fileId = (req.responseBody as { response: { fileId: string } }).response.fileId;
		expect(JSON.stringify(output(exec))).toContain(fileId);
	});
});

test('a gateway error fails the execution with the gateway message; Continue On Fail gives an error item', async () => {
	const failing = single('e2e gateway error', send('text', { textBody: 'will fail' }));
	const continuing = chain('e2e gateway error continue', [
		{ name: 'Gateway', parameters: send('text', { textBody: 'will fail' }), continueOnFail: true },
	]);
	const [f, c] = await env.importWorkflows([failing, continuing]);

	await env.sandbox.control.reset();
	// 500 on every try (the node may retry): the run fails and names the node.
	await env.sandbox.control.fail({ route: 'messages', count: 20, mode: '500' });
	const failed = await env.execute(f);
	expect(failed.status).toBe('error');
	const nodeError = failed.node('Gateway')?.error ?? failed.error;
	expect(nodeError).toBeDefined();
	expect(JSON.stringify(nodeError)).not.toContain(env.sandbox.apiKey);
	expect((await env.requests()).some((r) => r.path === '/api/Messages' && r.status === 500)).toBe(true);

	await env.sandbox.control.reset();
	await env.sandbox.control.fail({ route: 'messages', count: 20, mode: '500' });
	const exec = await env.execute(c);
	expect(exec.status).toBe('success');
	const [json] = output(exec);
	expect(json.error).toEqual(expect.any(String));
	await env.sandbox.control.reset();
});
