/**
 * Message resource through the real node against the sandbox gateway: the exact body each message type and
 * mark-as-read put on the wire, media uploaded from a binary before the send, bad input that sends nothing, gateway
 * failures that send once, and Send and Wait for Response from the send to the resumed item.
 */
import type { IDataObject, INodeParameters, ResourceMapperField, ResourceMapperValue } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { CHANNEL, ENDPOINTS } from '../../nodes/gateway/spec';
import { runLoadOptions, runWebhook, type InputItem } from '../harness';
import { sandboxCredentials } from '../sandbox';
import { mediaFile } from '../fixtures/media';
import { rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const credentials = () => sandboxCredentials(gateway.sandbox);

const send = (parameters: INodeParameters, options: { items?: InputItem[]; continueOnFail?: boolean } = {}) =>
	runGateway(
		gateway.sandbox,
		{ resource: 'message', operation: 'send', recipientPhoneNumber: '+55 (11) 98888-7777', ...parameters },
		options,
	);

const envelope = { messaging_product: CHANNEL, recipient_type: 'individual', to: '5511988887777' };

const thrown = rejectionOf;

describe('Send: the body of each message type is exactly spec 2.2', () => {
	const cases: Array<[string, INodeParameters, IDataObject]> = [
		['text', { messageType: 'text', textBody: 'Olá!\nSeu pedido saiu.' }, { type: 'text', text: { body: 'Olá!\nSeu pedido saiu.' } }],
		[
			'template',
			{
				messageType: 'template',
				templateName: 'order_shipped',
				templateLanguage: 'pt-BR',
				templateBodyParameters: { parameter: [{ text: 'Maria' }, { text: '#123' }] },
				templateButtonParameters: { button: [{ index: 0, text: 'orders/123' }] },
			},
			{
				type: 'template',
				template: {
					name: 'order_shipped',
					language: { policy: 'deterministic', code: 'pt_BR' },
					components: [
						{ type: 'body', parameters: [{ type: 'text', text: 'Maria' }, { type: 'text', text: '#123' }] },
						{ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'orders/123' }] },
					],
				},
			},
		],
		[
			'interactive buttons',
			{
				messageType: 'interactiveButtons',
				buttonsBody: 'Confirma?',
				replyButtons: { button: [{ id: 'yes', title: 'Sim' }, { id: 'no', title: 'Não' }] },
			},
			{
				type: 'interactive',
				interactive: {
					type: 'button',
					body: { text: 'Confirma?' },
					footer: null,
					action: {
						buttons: [
							{ type: 'reply', reply: { id: 'yes', title: 'Sim' } },
							{ type: 'reply', reply: { id: 'no', title: 'Não' } },
						],
					},
				},
			},
		],
		[
			'interactive list',
			{
				messageType: 'interactiveList',
				listHeader: 'Entrega',
				listBody: 'Escolha',
				listFooter: 'Grátis',
				listButtonLabel: 'Horários',
				listSections: {
					section: [
						{ title: 'Manhã', rows: { row: [{ id: 'm9', title: '09:00', description: 'Rápido' }] } },
						{ title: 'Tarde', rows: { row: [{ id: 't2', title: '14:00' }] } },
					],
				},
			},
			{
				type: 'interactive',
				interactive: {
					type: 'list',
					header: { type: 'text', text: 'Entrega' },
					body: { text: 'Escolha' },
					footer: { text: 'Grátis' },
					action: {
						button: 'Horários',
						sections: [
							{ title: 'Manhã', rows: [{ id: 'm9', title: '09:00', description: 'Rápido' }] },
							{ title: 'Tarde', rows: [{ id: 't2', title: '14:00' }] },
						],
					},
				},
			},
		],
		[
			'contacts from fields',
			{
				messageType: 'contacts',
				contactCards: {
					card: [
						{
							formattedName: 'Maria Silva',
							firstName: 'Maria',
							lastName: 'Silva',
							birthday: '1990-05-17',
							company: 'Acme',
							phones: { phone: [{ phone: '+55 11 98888-7777', type: 'WORK', waId: '5511988887777' }] },
							emails: { email: [{ email: 'maria@acme.com', type: 'WORK' }] },
							addresses: { address: [{ city: 'São Paulo', countryCode: 'BR', type: 'HOME' }] },
							urls: { url: [{ url: 'https://acme.com', type: 'WORK' }] },
						},
					],
				},
			},
			{
				type: 'contacts',
				contacts: [
					{
						name: { formatted_name: 'Maria Silva', first_name: 'Maria', last_name: 'Silva' },
						birthday: '1990-05-17',
						org: { company: 'Acme' },
						phones: [{ phone: '+55 11 98888-7777', type: 'WORK', wa_id: '5511988887777' }],
						emails: [{ email: 'maria@acme.com', type: 'WORK' }],
						addresses: [{ city: 'São Paulo', country_code: 'BR', type: 'HOME' }],
						urls: [{ url: 'https://acme.com', type: 'WORK' }],
					},
				],
			},
		],
		[
			'contacts from JSON',
			{
				messageType: 'contacts',
				contactsInputMode: 'json',
				contactsJson: '[{"name":{"formatted_name":"João"},"phones":[{"phone":"+55 21 97777-6666","type":"HOME"}]}]',
			},
			{ type: 'contacts', contacts: [{ name: { formatted_name: 'João' }, phones: [{ phone: '+55 21 97777-6666', type: 'HOME' }] }] },
		],
		[
			'location',
			{ messageType: 'location', latitude: -23.5613, longitude: -46.6565, locationName: 'Loja', locationAddress: 'Av. Paulista, 1578' },
			{ type: 'location', location: { latitude: '-23.5613', longitude: '-46.6565', name: 'Loja', address: 'Av. Paulista, 1578' } },
		],
		['image by id', { messageType: 'image', mediaSource: 'id', mediaId: '1234567890' }, { type: 'image', image: { id: '1234567890' } }],
		['audio by id', { messageType: 'audio', mediaSource: 'id', mediaId: '11' }, { type: 'audio', audio: { id: '11' } }],
		['video by id', { messageType: 'video', mediaSource: 'id', mediaId: '12' }, { type: 'video', video: { id: '12' } }],
		[
			'image with a caption',
			{ messageType: 'image', mediaSource: 'id', mediaId: '15', mediaCaption: 'Seu pedido' },
			{ type: 'image', image: { id: '15', caption: 'Seu pedido' } },
		],
		[
			'video with a caption',
			{ messageType: 'video', mediaSource: 'id', mediaId: '16', mediaCaption: 'Como usar' },
			{ type: 'video', video: { id: '16', caption: 'Como usar' } },
		],
		['sticker by id', { messageType: 'sticker', mediaSource: 'id', mediaId: '13' }, { type: 'sticker', sticker: { id: '13' } }],
		[
			'document by id',
			{ messageType: 'document', mediaSource: 'id', mediaId: '14', mediaCaption: 'Nota', documentFilename: 'nota.pdf' },
			{ type: 'document', document: { id: '14', caption: 'Nota', filename: 'nota.pdf' } },
		],
		[
			'reaction (escaped UTF-16)',
			{ messageType: 'reaction', reactionMessageId: 'wamid.ABC', reactionEmoji: '\\uD83D\\uDC4D' },
			{ type: 'reaction', reaction: { message_id: 'wamid.ABC', emoji: '👍' } },
		],
		[
			'reaction removal',
			{ messageType: 'reaction', reactionMessageId: 'wamid.ABC', reactionEmoji: '' },
			{ type: 'reaction', reaction: { message_id: 'wamid.ABC', emoji: '' } },
		],
	];

	it.each(cases)('%s', async (_name, parameters, payload) => {
		const { output } = await send(parameters);

		expect(gateway.sandbox.requests).toHaveLength(1);
		const [request] = gateway.sandbox.requests;
		expect([request.method, request.path, request.status]).toEqual(['POST', ENDPOINTS.messages.path, 200]);
		expect(request.headers.apikey).toBe(gateway.sandbox.apiKey);
		expect(request.headers.version).toBe('5.0');
		expect(request.body).toEqual({ ...envelope, ...payload });

		const answer = request.responseBody as { messages: Array<{ id: string }> };
		expect(output[0]).toHaveLength(1);
		expect(output[0][0].json).toMatchObject({ messageId: answer.messages[0].id, waId: '5511988887777', messaging_product: CHANNEL });
	});
});

describe('Mark as Read', () => {
	it('sends only messaging_product, status and message_id, and outputs the answer with the message id', async () => {
		const { output } = await runGateway(gateway.sandbox, {
			resource: 'message',
			operation: 'markAsRead',
			readMessageId: 'wamid.IN123',
		});
		expect(gateway.sandbox.requests.map((r) => [r.path, r.headers.version, r.body])).toEqual([
			[ENDPOINTS.messages.path, '5.0', { messaging_product: CHANNEL, status: 'read', message_id: 'wamid.IN123' }],
		]);
		expect(output[0][0].json).toEqual({ success: true, messageId: 'wamid.IN123' });
	});
});

describe('media from a binary property', () => {
	const png = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

	it('uploads the file once (multipart, version 6.0), then sends the message with the returned id', async () => {
		const { output } = await send(
			{ messageType: 'image', mediaSource: 'binary', binaryPropertyName: 'photo' },
			{ items: [{ json: {}, binary: { photo: { data: png, fileName: 'foto.png', mimeType: 'image/png' } } }] },
		);

		expect(gateway.sandbox.requests.map((r) => [r.method, r.path, r.headers.version])).toEqual([
			['POST', ENDPOINTS.medias.path, '6.0'],
			['POST', ENDPOINTS.messages.path, '5.0'],
		]);
		const [upload, message] = gateway.sandbox.requests;
		expect(upload.headers.apikey).toBe(gateway.sandbox.apiKey);
		expect(upload.body).toMatchObject({
			fields: { messaging_product: CHANNEL },
			files: [{ field: 'File', fileName: 'foto.png', contentType: 'image/png', size: png.length }],
		});
		const mediaId = (upload.responseBody as { id: string }).id;
		expect(message.body).toEqual({ ...envelope, type: 'image', image: { id: mediaId } });
		expect(output[0][0].json.messageId).toEqual(expect.stringMatching(/^wamid\./));
	});

	it("sends a document under the binary's file name unless a file name is given", async () => {
		const pdf = { data: Buffer.from('%PDF-1.4 test'), fileName: 'relatorio.pdf', mimeType: 'application/pdf' };
		await send(
			{ messageType: 'document', mediaSource: 'binary', binaryPropertyName: 'data', mediaCaption: 'Relatório' },
			{ items: [{ json: {}, binary: { data: pdf } }] },
		);
		const id = (gateway.sandbox.requests[0].responseBody as { id: string }).id;
		expect(gateway.sandbox.requests[1].body).toEqual({
			...envelope,
			type: 'document',
			document: { id, caption: 'Relatório', filename: 'relatorio.pdf' },
		});
	});

	it.each([
		['image', 'pdf', 1024, 'application/pdf', 'Image files must be JPEG or PNG; this file is PDF. Convert it, or send it as a document'],
		['image', 'gif', 1024, 'image/gif', 'Image files must be JPEG or PNG; this file is GIF. Convert it, or send it as a document'],
		['sticker', 'png', 1024, 'image/png', 'Sticker files must be WebP; this file is PNG. Convert it, or send it as a document'],
		['video', 'matroska', 1024, 'video/webm', 'Video files must be MP4 or 3GPP; this file is WebM/Matroska. Convert it, or send it as a document'],
		['audio', 'ogg-vorbis', 1024, 'audio/ogg', 'Audio files must be AAC, MP4, MPEG audio (MP3), AMR or OGG Opus; this file is OGG Vorbis. Convert it, or send it as a document'],
		['image', 'jpeg', 5_000_001, 'image/jpeg', 'The file is 5,000,001 bytes; image files are at most 5 MB (5,000,000 bytes)'],
		['sticker', 'webp', 100_001, 'image/webp', 'The file is 100,001 bytes; sticker files are at most 100 KB (100,000 bytes)'],
		['audio', 'mpeg', 16_000_001, 'audio/mpeg', 'The file is 16,000,001 bytes; audio files are at most 16 MB (16,000,000 bytes)'],
	] as const)('refuses %s from a %s file of %d bytes before uploading or sending anything', async (messageType, format, size, mimeType, reason) => {
		const data = mediaFile(format, size);
		const error = await thrown(
			send(
				{ messageType, mediaSource: 'binary', binaryPropertyName: 'data' },
				{ items: [{ json: {}, binary: { data: { data, fileName: 'file', mimeType } } }] },
			),
		);
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(`Input Binary Field "data" (item 0): ${reason}`);
		expect(error.context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('uploads ogg opus audio as audio/ogg; codecs=opus, the type the network takes', async () => {
		await send(
			{ messageType: 'audio', mediaSource: 'binary', binaryPropertyName: 'data' },
			{ items: [{ json: {}, binary: { data: { data: mediaFile('ogg-opus'), fileName: 'voz.ogg', mimeType: 'audio/ogg' } } }] },
		);
		const [upload, message] = gateway.sandbox.requests;
		expect(upload.body).toMatchObject({ files: [{ fileName: 'voz.ogg', contentType: 'audio/ogg; codecs=opus' }] });
		expect(message.body).toMatchObject({ type: 'audio', audio: { id: (upload.responseBody as { id: string }).id } });
	});

	it('refuses an item without the binary property, sending nothing', async () => {
		const error = await thrown(send({ messageType: 'image', mediaSource: 'binary', binaryPropertyName: 'photo' }));
		expect(error.message).toMatch(/photo/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('refuses a bad recipient before uploading', async () => {
		const error = await thrown(
			send(
				{ messageType: 'image', mediaSource: 'binary', binaryPropertyName: 'photo', recipientPhoneNumber: '12345' },
				{ items: [{ json: {}, binary: { photo: { data: png, fileName: 'foto.png', mimeType: 'image/png' } } }] },
			),
		);
		expect(error.message).toMatch(/Recipient Phone Number/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});

describe('bad input: a clear error naming item and field, and nothing sent', () => {
	const badInputs: Array<[string, INodeParameters, RegExp]> = [
		['recipient with too few digits', { messageType: 'text', textBody: 'hi', recipientPhoneNumber: '+55 1234' }, /Recipient Phone Number \(item 0\).*digits/],
		['empty text', { messageType: 'text', textBody: '  ' }, /Text \(item 0\).*required/],
		['language not xx_XX', { messageType: 'template', templateName: 'x', templateLanguage: 'portuguese' }, /Language Code \(item 0\)/],
		['four reply buttons', { messageType: 'interactiveButtons', buttonsBody: 'b', replyButtons: { button: [1, 2, 3, 4].map((i) => ({ id: `${i}`, title: `B${i}` })) } }, /Reply Buttons \(item 0\)/],
		['button title over 20 characters', { messageType: 'interactiveButtons', buttonsBody: 'b', replyButtons: { button: [{ id: 'a', title: 'x'.repeat(21) }] } }, /button 1 › Title/],
		['eleven list rows', { messageType: 'interactiveList', listBody: 'b', listButtonLabel: 'l', listSections: { section: [{ rows: { row: Array.from({ length: 11 }, (_, i) => ({ id: `r${i}`, title: `R${i}` })) } }] } }, /Sections \(item 0\).*11 rows/],
		['contact JSON that does not parse', { messageType: 'contacts', contactsInputMode: 'json', contactsJson: '[{' }, /Contacts \(JSON\) \(item 0\)/],
		['latitude out of range', { messageType: 'location', latitude: 91, longitude: 0 }, /Latitude \(item 0\).*between -90 and 90/],
		['empty media id', { messageType: 'video', mediaSource: 'id', mediaId: '' }, /Media ID \(item 0\)/],
		['reaction that is not an emoji', { messageType: 'reaction', reactionMessageId: 'm', reactionEmoji: 'ok' }, /Emoji \(item 0\)/],
	];

	it.each(badInputs)('%s', async (_name, parameters, message) => {
		const error = await thrown(send(parameters));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(message);
		expect((error as NodeOperationError).context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('with Continue On Fail: the bad item becomes an error item and the good ones are sent', async () => {
		const items: InputItem[] = [{ json: { phone: '5511988887777' } }, { json: { phone: 'not a phone' } }, { json: { phone: '+1 415 555 0100' } }];
		const { output } = await send(
			{ messageType: 'text', textBody: 'hi', recipientPhoneNumber: '={{ $json.phone }}' },
			{ items, continueOnFail: true },
		);
		expect(output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(output[0][1].json.error).toMatch(/Recipient Phone Number \(item 1\)/);
		expect(output[0][0].json.messageId).toBeDefined();
		expect(output[0][2].json.messageId).toBeDefined();
		expect(gateway.sandbox.requests.map((r) => (r.body as IDataObject).to)).toEqual(['5511988887777', '14155550100']);
	});
});

describe('Recipients written nationally: the Default Country of the credential, or of the node', () => {
	const text = { messageType: 'text', textBody: 'hi', recipientPhoneNumber: '(11) 98888-7777' };
	const sentTo = () => gateway.sandbox.requests.map((r) => (r.body as IDataObject).to);

	it('reads (11) 98888-7777 as +55 11 98888-7777 with the credential set to BR', async () => {
		await runGateway(gateway.sandbox, { resource: 'message', operation: 'send', ...text }, { credentials: { defaultCountry: 'br' } });
		expect(sentTo()).toEqual(['5511988887777']);
	});

	it('without a Default Country refuses it with the hint to set one, sending nothing', async () => {
		const error = await thrown(send(text));
		expect(error.message).toMatch(/Recipient Phone Number \(item 0\).*Default Country/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it("the node's Default Country overrides the credential's", async () => {
		await runGateway(
			gateway.sandbox,
			{ resource: 'message', operation: 'send', ...text, recipientPhoneNumber: '020 7946 0958', defaultCountry: 'GB' },
			{ credentials: { defaultCountry: 'BR' } },
		);
		expect(sentTo()).toEqual(['442079460958']);
	});

	it('a Default Country that is not a country code is refused, naming where it is set', async () => {
		const fromCredential = await thrown(
			runGateway(gateway.sandbox, { resource: 'message', operation: 'send', ...text }, { credentials: { defaultCountry: 'Brazil' } }),
		);
		expect(fromCredential.message).toMatch(/Default Country of the Messaging Gateway credential \(item 0\): "Brazil" is not a country code/);
		const fromNode = await thrown(send({ ...text, defaultCountry: 'XX' }));
		expect(fromNode.message).toMatch(/^Default Country \(item 0\): "XX" is not a country code/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});

describe('Send a template with parameters from the template (resource mapper)', () => {
	/** Creates a template straight through the sandbox's gateway API and returns its id. */
	async function createTemplate(components: IDataObject[], name = 'order_shipped'): Promise<string> {
		const response = await fetch(`${gateway.sandbox.url}${ENDPOINTS.templates.path}`, {
			method: 'POST',
			headers: { apikey: gateway.sandbox.apiKey, version: ENDPOINTS.templates.version, 'content-type': 'application/json' },
			body: JSON.stringify({ name, language: 'en_US', category: 'UTILITY', components }),
		});
		expect(response.status).toBe(201);
		const { id } = (await response.json()) as { id: string };
		gateway.sandbox.requests.length = 0;
		return id;
	}

	const orderShipped = [
		{ type: 'BODY', text: 'Hi {{1}}, order {{2}} has shipped', example: { body_text: [['Ana', '#42']] } },
		{
			type: 'BUTTONS',
			buttons: [
				{ type: 'URL', text: 'Help', url: 'https://shop.example/help' },
				{ type: 'URL', text: 'Track', url: 'https://shop.example/t/{{1}}', example: ['https://shop.example/t/42'] },
			],
		},
	];

	/** Only the ID: the name and language fields are hidden in this mode. */
	const fromTemplate = (templateId: string): INodeParameters => ({
		messageType: 'template',
		templateParameterSource: 'fromTemplate',
		templateId,
	});

	/** The editor calling the node's mapper for the message form, as it does when the Template ID is entered. */
	async function listFields(templateId: string): Promise<ResourceMapperField[]> {
		const result = (await runLoadOptions({
			node: new MessagingGateway(),
			parameters: { resource: 'message', operation: 'send', ...fromTemplate(templateId) },
			credentials: credentials(),
			kind: 'resourceMapping',
			method: 'getTemplateParameterFields',
		})) as { fields: ResourceMapperField[] };
		return result.fields;
	}

	/** The value the editor stores for the mapper: the listed fields and the entered values. */
	const mapped = (schema: ResourceMapperField[], value: Record<string, string>): ResourceMapperValue => ({
		mappingMode: 'defineBelow',
		value,
		matchingColumns: [],
		schema,
		attemptToConvertTypes: false,
		convertFieldsToString: true,
	});

	it('lists the placeholders with examples, then sends the mapped values per item as body and URL-button components', async () => {
		const id = await createTemplate(orderShipped);

		const schema = await listFields(id);
		expect(schema.map((field) => [field.id, field.displayName, field.required])).toEqual([
			['body_1', 'Body {{1}} (e.g. Ana)', true],
			['body_2', 'Body {{2}} (e.g. #42)', true],
			['button_1_1', 'Button 2 "Track" URL {{1}}', true],
		]);
		expect(gateway.sandbox.requests.map((r) => [r.method, r.path, r.headers.version])).toEqual([
			['GET', `${ENDPOINTS.templates.path}/${id}`, '5.0'],
		]);
		gateway.sandbox.requests.length = 0;

		const { output } = await send(
			{
				...fromTemplate(id),
				templateParameters: mapped(schema, {
					body_1: '={{ $json.name }}',
					body_2: '={{ $json.order }}',
					button_1_1: '={{ $json.order.slice(1) }}',
				}),
			},
			{ items: [{ json: { name: 'Maria', order: '#123' } }, { json: { name: 'João', order: '#7' } }] },
		);

		// The template is read once for the run (its name and language), the placeholders come from the mapper.
		expect(gateway.sandbox.requests.map((r) => [r.method, r.path, r.status])).toEqual([
			['GET', `${ENDPOINTS.templates.path}/${id}`, 200],
			['POST', ENDPOINTS.messages.path, 200],
			['POST', ENDPOINTS.messages.path, 200],
		]);
		const template = (name: string, order: string) => ({
			...envelope,
			type: 'template',
			template: {
				name: 'order_shipped',
				// The template's own language, not the Language Code field's default pt_BR.
				language: { policy: 'deterministic', code: 'en_US' },
				components: [
					{ type: 'body', parameters: [{ type: 'text', text: name }, { type: 'text', text: order }] },
					{ type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: order.slice(1) }] },
				],
			},
		});
		expect(gateway.sandbox.requests.slice(1).map((r) => r.body)).toEqual([template('Maria', '#123'), template('João', '#7')]);
		expect(output[0].map((item) => item.json.messageId)).toEqual([
			expect.stringMatching(/^wamid\./),
			expect.stringMatching(/^wamid\./),
		]);
	});

	it('sends each template under its own name and language, reading each distinct ID once per run', async () => {
		const welcome = await createTemplate([{ type: 'BODY', text: 'Welcome!' }], 'welcome_message');
		const thanks = await createTemplate([{ type: 'BODY', text: 'Thank you!' }], 'thank_you');
		const schema = await listFields(welcome);
		gateway.sandbox.requests.length = 0;

		const { output } = await send(
			{ ...fromTemplate('={{ $json.templateId }}'), templateParameters: mapped(schema, {}) },
			{ items: [welcome, thanks, welcome, thanks, welcome].map((templateId) => ({ json: { templateId } })) },
		);

		const reads = gateway.sandbox.requests.filter((r) => r.method === 'GET').map((r) => r.path);
		expect(reads.sort()).toEqual([`${ENDPOINTS.templates.path}/${thanks}`, `${ENDPOINTS.templates.path}/${welcome}`].sort());
		// Items run in parallel: each read lets its own items go, so the sends are compared as a set.
		const sent = gateway.sandbox.requests.filter((r) => r.method === 'POST').map((r) => (r.body as { template: IDataObject }).template);
		expect(sent.map((template) => `${String(template.name)} ${JSON.stringify(template.language)}`).sort()).toEqual(
			['thank_you', 'thank_you', 'welcome_message', 'welcome_message', 'welcome_message'].map(
				(name) => `${name} {"policy":"deterministic","code":"en_US"}`,
			),
		);
		expect(output[0]).toHaveLength(5);
	});

	it('a mistyped Template ID: the panel says no template has it, not that it has no placeholders', async () => {
		const result = (await runLoadOptions({
			node: new MessagingGateway(),
			parameters: { resource: 'message', operation: 'send', ...fromTemplate('99999') },
			credentials: credentials(),
			kind: 'resourceMapping',
			method: 'getTemplateParameterFields',
		})) as { fields: ResourceMapperField[]; emptyFieldsNotice?: string };
		expect(result.fields).toEqual([]);
		expect(result.emptyFieldsNotice).toBe(
			'No template has the ID "99999" (the gateway answered 404): check the Template ID. The id field in the output of Template > Create is the one to copy.',
		);
	});

	it('a template ID the gateway does not know: its items fail with the gateway message, one read, the others are sent', async () => {
		const welcome = await createTemplate([{ type: 'BODY', text: 'Welcome!' }], 'welcome_message');
		const schema = await listFields(welcome);
		gateway.sandbox.requests.length = 0;

		const { output } = await send(
			{ ...fromTemplate('={{ $json.templateId }}'), templateParameters: mapped(schema, {}) },
			{ items: ['999', welcome, '999'].map((templateId) => ({ json: { templateId } })), continueOnFail: true },
		);

		const items = output[0];
		expect(items.map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
		expect(items[0].json.error).toMatch(/Template 999 not found/);
		expect(items[0].json.httpCode).toBe('404');
		// One read's refusal, told for each item: its index, the field, nothing sent.
		expect(items[0].json.error).toBe('The gateway answered 404 for item 0: Template 999 not found');
		expect(items[2].json.error).toBe('The gateway answered 404 for item 2: Template 999 not found');
		expect(items[2].json.description).toBe('Check "Template ID" of item 2. Nothing was sent for this item.');
		expect(items[1].json.messageId).toEqual(expect.stringMatching(/^wamid\./));
		const reads = gateway.sandbox.requests.filter((r) => r.method === 'GET').map((r) => r.path);
		expect(reads.sort()).toEqual([`${ENDPOINTS.templates.path}/${welcome}`, `${ENDPOINTS.templates.path}/999`].sort());
		expect(gateway.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(1);
	});

	it('without Continue On Fail, an unknown template ID is a NodeApiError and nothing is sent', async () => {
		const error = await thrown(send({ ...fromTemplate('424242'), templateParameters: mapped([], {}) }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/Template 424242 not found/);
		expect(error.context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests.filter((r) => r.method === 'POST')).toHaveLength(0);
	});

	it('an empty Template ID names the field and the item, and reads and sends nothing', async () => {
		const error = await thrown(send({ ...fromTemplate(''), templateParameters: mapped([], {}) }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/^Template ID \(item 0\): is empty/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('a name and language typed before the fields were hidden are not sent: the template’s own are', async () => {
		const id = await createTemplate([{ type: 'BODY', text: 'Welcome!' }], 'welcome_message');
		// n8n drops the values of hidden fields before the node runs, so a stale Language Code cannot leak out.
		await send({ ...fromTemplate(id), templateName: 'order_shipped', templateLanguage: 'pt_BR', templateParameters: mapped([], {}) });
		const sent = gateway.sandbox.requests.find((r) => r.method === 'POST');
		expect((sent?.body as { template: IDataObject }).template).toMatchObject({
			name: 'welcome_message',
			language: { policy: 'deterministic', code: 'en_US' },
		});
	});

	it('a mapped value that is empty for an item: an error naming the item and the placeholder, nothing sent', async () => {
		const id = await createTemplate(orderShipped);
		const schema = await listFields(id);
		gateway.sandbox.requests.length = 0;

		const error = await thrown(
			send(
				{ ...fromTemplate(id), templateParameters: mapped(schema, { body_1: 'Ana', body_2: '={{ $json.order }}', button_1_1: '42' }) },
				{ items: [{ json: {} }] },
			),
		);

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			'Template Parameters › Body {{2}} (item 0): is empty; every placeholder of the template needs a value',
		);
		expect((error as NodeOperationError).context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('refuses a template with a header placeholder before sending (spec 2.2 has no header component)', async () => {
		const id = await createTemplate([
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}', example: { header_text: ['#42'] } },
			{ type: 'BODY', text: 'Hi {{1}}', example: { body_text: [['Ana']] } },
		]);
		const schema = await listFields(id);
		expect(schema.map((field) => field.id)).toEqual(['header_1', 'body_1']);
		gateway.sandbox.requests.length = 0;

		const error = await thrown(send({ ...fromTemplate(id), templateParameters: mapped(schema, { header_1: '#1', body_1: 'Ana' }) }));

		expect(error.message).toMatch(/^Template Parameters › Header \{\{1\}\} \(item 0\): the template has a placeholder in its header/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});

describe('gateway failures on send', () => {
	const text = { messageType: 'text', textBody: 'hi' };

	it('a 500 is one request and a NodeApiError', async () => {
		gateway.sandbox.failNext('messages', 1, '500');
		const error = await thrown(send(text));
		expect(error).toBeInstanceOf(NodeApiError);
		expect((error as NodeApiError).httpCode).toBe('500');
		expect(gateway.sandbox.requests).toHaveLength(1);
	});

	it('a dropped connection is one request (it may have been sent) and a NodeApiError', async () => {
		gateway.sandbox.failNext('messages', 1, 'drop');
		const error = await thrown(send(text));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(gateway.sandbox.requests).toHaveLength(1);
	});

	it('a 429 is retried after Retry-After and the message is accepted once', async () => {
		gateway.sandbox.failNext('messages', 1, '429', { retryAfterSeconds: 0 });
		const { output } = await send(text);
		expect(gateway.sandbox.requests.map((r) => r.status)).toEqual([429, 200]);
		expect(output[0][0].json.messageId).toEqual((gateway.sandbox.requests[1].responseBody as { messages: Array<{ id: string }> }).messages[0].id);
	});
});

describe('Send and Wait for Response', () => {
	const waitParameters = (extra: INodeParameters = {}): INodeParameters => ({
		resource: 'message',
		operation: 'sendAndWait',
		recipientPhoneNumber: '+55 11 98888-7777',
		message: 'Aprovar o reembolso de R$ 120?',
		...extra,
	});

	const wait = (parameters: INodeParameters, items?: InputItem[]) => runGateway(gateway.sandbox, parameters, { items });

	const webhook = (parameters: INodeParameters, request: Parameters<typeof runWebhook>[0]['request']) =>
		runWebhook({ node: new MessagingGateway(), parameters, credentials: credentials(), request });

	it('sends the question with a signed approve link and puts the execution to wait', async () => {
		const items: InputItem[] = [{ json: { order: 1 } }, { json: { order: 2 } }];
		const { output, waitTill } = await wait(waitParameters(), items);

		expect(gateway.sandbox.requests).toHaveLength(1);
		const body = gateway.sandbox.requests[0].body as { text: { body: string } };
		expect(body).toMatchObject({ ...envelope, type: 'text' });
		const [question, approve] = body.text.body.split('\n\n');
		expect(question).toBe('Aprovar o reembolso de R$ 120?');
		expect(approve).toMatch(/^\*Approve:\*\nhttp:\/\/127\.0\.0\.1:5678\/webhook-waiting\/\S+\?approved=true&signature=[0-9a-f]{64}$/);
		expect(waitTill).toBeInstanceOf(Date);
		// While waiting, the node passes its input on; one message for the execution, as n8n's send-and-wait nodes.
		expect(output[0].map((item) => item.json)).toEqual([{ order: 1 }, { order: 2 }]);
	});

	it('with approve and decline: two links, each signed for its own answer', async () => {
		await wait(waitParameters({ approvalOptions: { values: { approvalType: 'double', approveLabel: 'Sim', disapproveLabel: 'Não' } } }));
		const text = (gateway.sandbox.requests[0].body as { text: { body: string } }).text.body;
		expect(text).toMatch(/\*Sim:\*\n\S+approved=true&signature=[0-9a-f]{64}/);
		expect(text).toMatch(/\*Não:\*\n\S+approved=false&signature=[0-9a-f]{64}/);
	});

	it('a time limit sets when the wait ends', async () => {
		const before = Date.now();
		const { waitTill } = await wait(
			waitParameters({ options: { limitWaitTime: { values: { limitType: 'afterTimeInterval', resumeAmount: 2, resumeUnit: 'hours' } } } }),
		);
		expect(waitTill!.getTime() - before).toBeGreaterThanOrEqual(2 * 3_600_000);
		expect(waitTill!.getTime() - before).toBeLessThan(2 * 3_600_000 + 60_000);
	});

	it('refuses a bad recipient or an empty message without sending', async () => {
		expect((await thrown(wait(waitParameters({ recipientPhoneNumber: 'abc' })))).message).toMatch(/Recipient Phone Number/);
		expect((await thrown(wait(waitParameters({ message: '' })))).message).toMatch(/Message \(item 0\)/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('resumes with data.approved from the opened link', async () => {
		const approved = await webhook(waitParameters(), { method: 'GET', query: { approved: 'true', signature: 'x' } });
		expect(approved.result.workflowData).toEqual([[{ json: { data: { approved: true } } }]]);
		expect(String(approved.result.webhookResponse)).toMatch(/Got it/);
		const declined = await webhook(waitParameters(), { method: 'GET', query: { approved: 'false', signature: 'x' } });
		expect(declined.result.workflowData).toEqual([[{ json: { data: { approved: false } } }]]);
	});

	it('with confirmation: opening the link only shows a page; its POST resumes', async () => {
		const parameters = waitParameters({ options: { confirmationPage: true } });
		const opened = await webhook(parameters, { method: 'GET', query: { approved: 'true' } });
		expect(opened.result.workflowData).toBeUndefined();
		expect(String(opened.result.webhookResponse)).toMatch(/<form method="post">/);
		const confirmed = await webhook(parameters, { method: 'POST', query: { approved: 'true' }, body: {} });
		expect(confirmed.result.workflowData).toEqual([[{ json: { data: { approved: true } } }]]);
	});

	it('free text: the link opens a form; the posted answer resumes with data.text', async () => {
		const parameters = waitParameters({ responseType: 'freeText', options: { responseFormTitle: 'Reembolso' } });
		await wait(parameters);
		const text = (gateway.sandbox.requests[0].body as { text: { body: string } }).text.body;
		expect(text).toMatch(/\*Respond:\*\n\S+\?signature=[0-9a-f]{64}$/);

		const form = await webhook(parameters, { method: 'GET' });
		expect(form.result.workflowData).toBeUndefined();
		expect(String(form.result.webhookResponse)).toMatch(/<textarea name="response"/);

		const posted = await webhook(parameters, {
			method: 'POST',
			headers: { 'content-type': 'application/x-www-form-urlencoded' },
			rawBody: Buffer.from('response=Pode+reembolsar%2C+obrigado'),
			body: {},
		});
		expect(posted.result.workflowData).toEqual([[{ json: { data: { text: 'Pode reembolsar, obrigado' } } }]]);

		const parsed = await webhook(parameters, { method: 'POST', body: { response: ' Sim ' } });
		expect(parsed.result.workflowData).toEqual([[{ json: { data: { text: 'Sim' } } }]]);

		const empty = await webhook(parameters, { method: 'POST', body: { response: '  ' } });
		expect(empty.result.workflowData).toBeUndefined();
	});
});
