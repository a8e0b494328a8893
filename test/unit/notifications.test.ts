import * as fs from 'fs';
import * as path from 'path';

import {
	filterNotificationItems,
	parseNotification,
	type NotificationItem,
} from '../../nodes/MessagingGatewayTrigger/notifications';
import { knownNetworkError } from '../../nodes/gateway/networkErrors';

/**
 * The samples of gateway-spec notes (`/work/shared/spec/notifications/`), copied verbatim so that the suite runs
 * anywhere. A test below checks the copies against the shared directory when it is present.
 */
const METADATA = { display_phone_number: '5511900001111', phone_number_id: '104857600000001' };

const SAMPLES: Record<string, Record<string, unknown>> = {
	'incoming-button-reply.value.json': {
		messaging_product: 'whatsapp',
		metadata: METADATA,
		contacts: [{ profile: { name: 'Bruno Lima' }, wa_id: '5521977776666' }],
		messages: [
			{
				context: { from: '5511900001111', id: 'wamid.HBgNNTUxMTkwMDAwMTExMRUCABEYEjA5RkI' },
				from: '5521977776666',
				id: 'wamid.HBgNNTUyMTk3Nzc3NjY2NhUCABIYFEZGMDE',
				timestamp: '1763800050',
				type: 'interactive',
				interactive: { type: 'button_reply', button_reply: { id: 'confirm-yes', title: 'Sim' } },
			},
		],
	},
	'incoming-image-and-location.value.json': {
		messaging_product: 'whatsapp',
		metadata: METADATA,
		contacts: [{ profile: { name: 'Carla Dias' }, wa_id: '5531966665555' }],
		messages: [
			{
				from: '5531966665555',
				id: 'wamid.IMG0001',
				timestamp: '1763800100',
				type: 'image',
				image: { caption: 'nota fiscal', mime_type: 'image/jpeg', sha256: '3f1c0b3c9a7d', id: '1234567890123456' },
			},
			{
				from: '5531966665555',
				id: 'wamid.LOC0001',
				timestamp: '1763800101',
				type: 'location',
				location: { latitude: -23.5613, longitude: -46.6565, name: 'Escritório', address: 'Av. Paulista, 1000' },
			},
		],
	},
	'incoming-text.meta-envelope.json': {
		object: 'whatsapp_business_account',
		entry: [
			{
				id: '102290129340398',
				changes: [
					{
						field: 'messages',
						value: {
							messaging_product: 'whatsapp',
							metadata: METADATA,
							contacts: [{ profile: { name: 'Ana Souza' }, wa_id: '5511988887777' }],
							messages: [
								{
									from: '5511988887777',
									id: 'wamid.ENVELOPE0001',
									timestamp: '1763800400',
									type: 'text',
									text: { body: 'segunda mensagem' },
								},
							],
						},
					},
				],
			},
		],
	},
	'incoming-text.value.json': {
		messaging_product: 'whatsapp',
		metadata: METADATA,
		contacts: [{ profile: { name: 'Ana Souza' }, wa_id: '5511988887777' }],
		messages: [
			{
				from: '5511988887777',
				id: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1',
				timestamp: '1763800000',
				type: 'text',
				text: { body: 'Olá, quero saber do meu pedido' },
			},
		],
	},
	'status-delivered.value.json': {
		messaging_product: 'whatsapp',
		metadata: METADATA,
		statuses: [
			{
				id: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjgxQkVF',
				status: 'delivered',
				timestamp: '1763800200',
				recipient_id: '5511988887777',
				conversation: { id: 'c0ffee00000000000000000000000001', origin: { type: 'service' } },
				pricing: { billable: true, pricing_model: 'CBP', category: 'service' },
			},
		],
	},
	'status-failed.value.json': {
		messaging_product: 'whatsapp',
		metadata: METADATA,
		statuses: [
			{
				id: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjk5',
				status: 'failed',
				timestamp: '1763800300',
				recipient_id: '5511988887777',
				errors: [
					{
						code: 131047,
						title: 'Re-engagement message',
						message: 'Re-engagement message',
						error_data: {
							details:
								'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
						},
					},
				],
			},
		],
	},
	'template-status.value.json': {
		event: 'REJECTED',
		message_template_id: 987654321012345,
		message_template_name: 'pedido_enviado',
		message_template_language: 'pt_BR',
		reason: 'INVALID_FORMAT',
	},
};

const FIXTURE_SAMPLES_DIR = path.join(__dirname, '..', 'fixtures', 'notifications');

/** The flat fields of a message item that does not apply to anything, to spread the applicable ones over. */
const NO_MESSAGE_FIELDS = {
	event: 'message',
	text: null,
	replyId: null,
	mediaId: null,
	location: null,
	context: null,
	phoneNumberId: '104857600000001',
	displayPhoneNumber: '5511900001111',
	metadata: METADATA,
};

/** A value notification of one customer sending the given messages. */
function incoming(messages: Record<string, unknown>[], contactName = 'Ana Souza', waId = '5511988887777') {
	return {
		messaging_product: 'whatsapp',
		metadata: METADATA,
		contacts: [{ profile: { name: contactName }, wa_id: waId }],
		messages,
	};
}

function itemsOf(payload: unknown): NotificationItem[] {
	const parsed = parseNotification(payload);
	if (!parsed.isNotification) throw new Error(`expected a notification, got: ${parsed.reason}`);
	return parsed.items;
}

/** The one message item of a notification of one message from Ana Souza. */
function onlyMessageItem(message: Record<string, unknown>): NotificationItem {
	const items = itemsOf(incoming([message]));
	expect(items).toHaveLength(1);
	return items[0];
}

const ANA = { profile: { name: 'Ana Souza' }, wa_id: '5511988887777' };
const ANA_MESSAGE = {
	from: '5511988887777',
	contactName: 'Ana Souza',
	timestamp: '2025-11-22T08:26:40.000Z',
	timestampUnix: 1763800000,
	contact: ANA,
};

describe('the samples of the specification', () => {
	it('the literal copies here equal every sample of test/fixtures/notifications', () => {
		const files = fs.readdirSync(FIXTURE_SAMPLES_DIR).filter((file) => file.endsWith('.json'));
		expect(files.sort()).toEqual(Object.keys(SAMPLES).sort());
		for (const file of files) {
			expect(JSON.parse(fs.readFileSync(path.join(FIXTURE_SAMPLES_DIR, file), 'utf8'))).toEqual(SAMPLES[file]);
		}
	});

	it('incoming text (value alone, as the gateway sends)', () => {
		const sample = SAMPLES['incoming-text.value.json'];
		expect(parseNotification(sample)).toEqual({
			isNotification: true,
			form: 'value',
			items: [
				{
					...NO_MESSAGE_FIELDS,
					...ANA_MESSAGE,
					messageId: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1',
					type: 'text',
					text: 'Olá, quero saber do meu pedido',
					message: (sample.messages as unknown[])[0],
				},
			],
		});
	});

	it('incoming text in Meta\'s envelope', () => {
		const sample = SAMPLES['incoming-text.meta-envelope.json'];
		const value = (sample.entry as any)[0].changes[0].value;
		expect(parseNotification(sample)).toEqual({
			isNotification: true,
			form: 'envelope',
			items: [
				{
					...NO_MESSAGE_FIELDS,
					...ANA_MESSAGE,
					messageId: 'wamid.ENVELOPE0001',
					timestamp: '2025-11-22T08:33:20.000Z',
					timestampUnix: 1763800400,
					type: 'text',
					text: 'segunda mensagem',
					message: value.messages[0],
				},
			],
		});
	});

	it('a reply button: title as text, id as replyId, the replied-to message as context', () => {
		const sample = SAMPLES['incoming-button-reply.value.json'];
		expect(itemsOf(sample)).toEqual([
			{
				...NO_MESSAGE_FIELDS,
				messageId: 'wamid.HBgNNTUyMTk3Nzc3NjY2NhUCABIYFEZGMDE',
				from: '5521977776666',
				contactName: 'Bruno Lima',
				timestamp: '2025-11-22T08:27:30.000Z',
				timestampUnix: 1763800050,
				type: 'interactive',
				text: 'Sim',
				replyId: 'confirm-yes',
				context: { from: '5511900001111', id: 'wamid.HBgNNTUxMTkwMDAwMTExMRUCABEYEjA5RkI' },
				message: (sample.messages as unknown[])[0],
				contact: { profile: { name: 'Bruno Lima' }, wa_id: '5521977776666' },
			},
		]);
	});

	it('two messages in one notification: one item each, in order', () => {
		const sample = SAMPLES['incoming-image-and-location.value.json'];
		const carla = { profile: { name: 'Carla Dias' }, wa_id: '5531966665555' };
		const messages = sample.messages as unknown[];
		expect(itemsOf(sample)).toEqual([
			{
				...NO_MESSAGE_FIELDS,
				messageId: 'wamid.IMG0001',
				from: '5531966665555',
				contactName: 'Carla Dias',
				timestamp: '2025-11-22T08:28:20.000Z',
				timestampUnix: 1763800100,
				type: 'image',
				text: 'nota fiscal',
				mediaId: '1234567890123456',
				message: messages[0],
				contact: carla,
			},
			{
				...NO_MESSAGE_FIELDS,
				messageId: 'wamid.LOC0001',
				from: '5531966665555',
				contactName: 'Carla Dias',
				timestamp: '2025-11-22T08:28:21.000Z',
				timestampUnix: 1763800101,
				type: 'location',
				location: { latitude: -23.5613, longitude: -46.6565, name: 'Escritório', address: 'Av. Paulista, 1000' },
				message: messages[1],
				contact: carla,
			},
		]);
	});

	it('a delivered status', () => {
		const sample = SAMPLES['status-delivered.value.json'];
		expect(parseNotification(sample)).toEqual({
			isNotification: true,
			form: 'value',
			items: [
				{
					event: 'status',
					status: 'delivered',
					messageId: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjgxQkVF',
					recipientId: '5511988887777',
					recipient: '5511988887777',
					timestamp: '2025-11-22T08:30:00.000Z',
					timestampUnix: 1763800200,
					errors: null,
					errorCode: null,
					errorMessage: null,
					reason: null,
					hint: null,
					conversationCategory: 'service',
					pricingCategory: 'service',
					billable: true,
					conversation: { id: 'c0ffee00000000000000000000000001', origin: { type: 'service' } },
					pricing: { billable: true, pricing_model: 'CBP', category: 'service' },
					phoneNumberId: '104857600000001',
					displayPhoneNumber: '5511900001111',
					statusUpdate: (sample.statuses as unknown[])[0],
					metadata: METADATA,
				},
			],
		});
	});

	it('a failed status: the errors, with the code and the details of the first one', () => {
		const sample = SAMPLES['status-failed.value.json'];
		const statusUpdate = (sample.statuses as any[])[0];
		expect(itemsOf(sample)).toEqual([
			{
				event: 'status',
				status: 'failed',
				messageId: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjk5',
				recipientId: '5511988887777',
				recipient: '5511988887777',
				timestamp: '2025-11-22T08:31:40.000Z',
				timestampUnix: 1763800300,
				errors: statusUpdate.errors,
				errorCode: 131047,
				errorMessage:
					'Message failed to send because more than 24 hours have passed since the customer last replied to this number.',
				reason: knownNetworkError(131047)?.reason,
				hint: 'Send an approved template instead (Message Type: Template).',
				conversationCategory: null,
				pricingCategory: null,
				billable: null,
				conversation: null,
				pricing: null,
				phoneNumberId: '104857600000001',
				displayPhoneNumber: '5511900001111',
				statusUpdate,
				metadata: METADATA,
			},
		]);
	});

	it('a template status update', () => {
		const sample = SAMPLES['template-status.value.json'];
		expect(parseNotification(sample)).toEqual({
			isNotification: true,
			form: 'value',
			items: [
				{
					event: 'template_status',
					status: 'REJECTED',
					templateId: '987654321012345',
					templateName: 'pedido_enviado',
					templateLanguage: 'pt_BR',
					reason: 'INVALID_FORMAT',
					notification: sample,
				},
			],
		});
	});
});

describe('each type of incoming message', () => {
	const base = { from: '5511988887777', id: 'wamid.X1', timestamp: '1763800000' };

	it('text', () => {
		const message = { ...base, type: 'text', text: { body: 'oi' } };
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type: 'text',
			text: 'oi',
			message,
		});
	});

	it.each([
		['image', { caption: 'foto', mime_type: 'image/jpeg', sha256: 'aa', id: 'MEDIA-IMG' }, 'foto'],
		['video', { caption: 'vídeo', mime_type: 'video/mp4', sha256: 'bb', id: 'MEDIA-VID' }, 'vídeo'],
		['document', { caption: 'contrato', filename: 'c.pdf', mime_type: 'application/pdf', id: 'MEDIA-DOC' }, 'contrato'],
		['image', { mime_type: 'image/png', sha256: 'cc', id: 'MEDIA-IMG2' }, null],
		['audio', { mime_type: 'audio/ogg; codecs=opus', sha256: 'dd', id: 'MEDIA-AUD', voice: true }, null],
		['sticker', { mime_type: 'image/webp', sha256: 'ee', id: 'MEDIA-STK', animated: false }, null],
	])('%s: the media id and the caption as text', (type, media, caption) => {
		const message = { ...base, type, [type]: media };
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type,
			text: caption,
			mediaId: media.id,
			message,
		});
	});

	it('location', () => {
		const location = { latitude: -22.9, longitude: -43.2, name: 'Praia', address: 'Av. Atlântica' };
		const message = { ...base, type: 'location', location };
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type: 'location',
			location,
			message,
		});
	});

	it('contacts: the cards stay in the original message', () => {
		const contacts = [
			{ name: { formatted_name: 'Davi Reis', first_name: 'Davi' }, phones: [{ phone: '+55 11 9', type: 'CELL' }] },
		];
		const message = { ...base, type: 'contacts', contacts };
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type: 'contacts',
			message,
		});
	});

	it('interactive list reply: row title as text, row id as replyId', () => {
		const message = {
			...base,
			type: 'interactive',
			interactive: { type: 'list_reply', list_reply: { id: 'row-2', title: 'Segunda opção', description: 'desc' } },
		};
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type: 'interactive',
			text: 'Segunda opção',
			replyId: 'row-2',
			message,
		});
	});

	it('interactive button reply', () => {
		const message = {
			...base,
			type: 'interactive',
			interactive: { type: 'button_reply', button_reply: { id: 'b-no', title: 'Não' } },
		};
		expect(onlyMessageItem(message)).toMatchObject({ type: 'interactive', text: 'Não', replyId: 'b-no' });
	});

	it('button (quick reply of a template): its text, its payload as replyId, the template as context', () => {
		const message = {
			...base,
			context: { from: '5511900001111', id: 'wamid.TEMPLATE1' },
			type: 'button',
			button: { text: 'Quero saber mais', payload: 'MORE_INFO' },
		};
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type: 'button',
			text: 'Quero saber mais',
			replyId: 'MORE_INFO',
			context: { from: '5511900001111', id: 'wamid.TEMPLATE1' },
			message,
		});
	});

	it('reaction: the reaction stays in the original message', () => {
		const message = { ...base, type: 'reaction', reaction: { message_id: 'wamid.SENT1', emoji: '👍' } };
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type: 'reaction',
			message,
		});
	});

	it('unsupported: an item all the same, with the errors in the original message', () => {
		const message = {
			...base,
			type: 'unsupported',
			errors: [{ code: 131051, title: 'Message type unknown', message: 'Message type unknown' }],
		};
		expect(onlyMessageItem(message)).toEqual({
			...NO_MESSAGE_FIELDS,
			...ANA_MESSAGE,
			messageId: 'wamid.X1',
			type: 'unsupported',
			message,
		});
	});

	it('a numeric timestamp is accepted; a missing one gives null, not an invalid date', () => {
		expect(onlyMessageItem({ ...base, timestamp: 1763800000, type: 'text', text: { body: 'a' } })).toMatchObject({
			timestamp: '2025-11-22T08:26:40.000Z',
			timestampUnix: 1763800000,
		});
		const withoutTimestamp = { from: '5511988887777', id: 'wamid.X2', type: 'text', text: { body: 'a' } };
		expect(onlyMessageItem(withoutTimestamp)).toMatchObject({
			timestamp: null,
			timestampUnix: null,
		});
	});
});

describe('several messages, contacts, entries and changes', () => {
	it('each message gets the name of its own sender', () => {
		const payload = {
			messaging_product: 'whatsapp',
			metadata: METADATA,
			contacts: [
				{ profile: { name: 'Ana Souza' }, wa_id: '5511988887777' },
				{ profile: { name: 'Bruno Lima' }, wa_id: '5521977776666' },
			],
			messages: [
				{ from: '5521977776666', id: 'wamid.B', timestamp: '1763800000', type: 'text', text: { body: 'b' } },
				{ from: '5511988887777', id: 'wamid.A', timestamp: '1763800001', type: 'text', text: { body: 'a' } },
				{ from: '5599999999999', id: 'wamid.C', timestamp: '1763800002', type: 'text', text: { body: 'c' } },
			],
		};
		expect(itemsOf(payload).map((item) => [item.messageId, item.contactName, item.text])).toEqual([
			['wamid.B', 'Bruno Lima', 'b'],
			['wamid.A', 'Ana Souza', 'a'],
			['wamid.C', null, 'c'],
		]);
		expect(itemsOf(payload)[2].contact).toBeNull();
	});

	it('an envelope with several entries and changes: every item, in order, each with its own phone', () => {
		const otherMetadata = { display_phone_number: '5511900002222', phone_number_id: '104857600000002' };
		const payload = {
			object: 'whatsapp_business_account',
			entry: [
				{
					id: 'WABA1',
					changes: [
						{
							field: 'messages',
							value: incoming([
								{ from: '5511988887777', id: 'wamid.1', timestamp: '1', type: 'text', text: { body: 'um' } },
							]),
						},
						{ field: 'messages', value: SAMPLES['status-delivered.value.json'] },
					],
				},
				{
					id: 'WABA2',
					changes: [
						{
							field: 'messages',
							value: {
								messaging_product: 'whatsapp',
								metadata: otherMetadata,
								contacts: [{ profile: { name: 'Bruno Lima' }, wa_id: '5521977776666' }],
								messages: [
									{ from: '5521977776666', id: 'wamid.2', timestamp: '2', type: 'text', text: { body: 'dois' } },
									{ from: '5521977776666', id: 'wamid.3', timestamp: '3', type: 'sticker', sticker: { id: 'STK' } },
								],
							},
						},
						{ field: 'message_template_status_update', value: SAMPLES['template-status.value.json'] },
					],
				},
			],
		};
		const parsed = parseNotification(payload);
		expect(parsed).toMatchObject({ isNotification: true, form: 'envelope' });
		const summary = itemsOf(payload).map((item) => [
			item.event,
			item.messageId ?? item.templateId,
			item.phoneNumberId ?? null,
		]);
		expect(summary).toEqual([
			['message', 'wamid.1', '104857600000001'],
			['status', 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjgxQkVF', '104857600000001'],
			['message', 'wamid.2', '104857600000002'],
			['message', 'wamid.3', '104857600000002'],
			['template_status', '987654321012345', null],
		]);
	});

	it('an envelope change of another subscription field is passed on under its field name', () => {
		const value = { phone_number: '5511900001111', event: 'VERIFIED_ACCOUNT' };
		const envelope = {
			object: 'whatsapp_business_account',
			entry: [{ id: 'W', changes: [{ field: 'account_update', value }] }],
		};
		expect(parseNotification(envelope)).toEqual({
			isNotification: true,
			form: 'envelope',
			items: [{ event: 'account_update', field: 'account_update', value }],
		});
	});

	it('errors not tied to a message become one error item', () => {
		const errors = [{ code: 131000, title: 'Something went wrong', message: 'Something went wrong' }];
		expect(itemsOf({ messaging_product: 'whatsapp', metadata: METADATA, errors })).toEqual([
			{
				event: 'error',
				errors,
				phoneNumberId: '104857600000001',
				displayPhoneNumber: '5511900001111',
				metadata: METADATA,
			},
		]);
	});

	it('a notification with an empty list of messages is a notification with no items', () => {
		expect(parseNotification(incoming([]))).toEqual({ isNotification: true, form: 'value', items: [] });
	});
});

describe('what is not a notification', () => {
	it.each([
		['null', null],
		['a string', 'hello'],
		['a number', 42],
		['an array', [SAMPLES['incoming-text.value.json']]],
		['an empty object', {}],
		['an object of other keys', { hello: 'world', messaging_product: 'whatsapp' }],
		['messages that is no list', { messaging_product: 'whatsapp', metadata: METADATA, messages: 'hi' }],
		['a template event without id', { event: 'APPROVED' }],
		['an envelope with no entries', { object: 'whatsapp_business_account', entry: [] }],
		['an envelope of garbage entries', { object: 'whatsapp', entry: [1, 'x', { changes: [null, 3] }] }],
		['an envelope whose object is no string', { object: 3, entry: [{ changes: [{ field: 'messages', value: {} }] }] }],
	])('%s', (_label, payload) => {
		const parsed = parseNotification(payload);
		expect(parsed.isNotification).toBe(false);
		expect(parsed).toMatchObject({ reason: expect.stringContaining('Not a notification') });
	});
});

describe('filters', () => {
	const notification = {
		messaging_product: 'whatsapp',
		metadata: METADATA,
		contacts: [ANA],
		messages: [
			{ from: '5511988887777', id: 'wamid.T', timestamp: '1', type: 'text', text: { body: 't' } },
			{ from: '5511988887777', id: 'wamid.I', timestamp: '2', type: 'image', image: { id: 'M' } },
		],
		statuses: [
			{ id: 'wamid.S1', status: 'sent', timestamp: '3', recipient_id: '5511988887777' },
			{ id: 'wamid.S2', status: 'read', timestamp: '4', recipient_id: '5511988887777' },
			{ id: 'wamid.S3', status: 'failed', timestamp: '5', recipient_id: '5511988887777', errors: [] },
		],
	};
	const items = itemsOf(notification);
	const ids = (kept: NotificationItem[]) => kept.map((item) => item.messageId);

	it('without options: every message, no status update', () => {
		expect(ids(filterNotificationItems(items, {}))).toEqual(['wamid.T', 'wamid.I']);
		expect(ids(filterNotificationItems(items, { statusUpdates: 'none' }))).toEqual(['wamid.T', 'wamid.I']);
	});

	it('all status updates', () => {
		expect(ids(filterNotificationItems(items, { statusUpdates: 'all' }))).toEqual([
			'wamid.T',
			'wamid.I',
			'wamid.S1',
			'wamid.S2',
			'wamid.S3',
		]);
	});

	it('chosen status updates only', () => {
		expect(ids(filterNotificationItems(items, { statusUpdates: 'chosen', statuses: ['failed', 'read'] }))).toEqual([
			'wamid.T',
			'wamid.I',
			'wamid.S2',
			'wamid.S3',
		]);
		const noneChosen = filterNotificationItems(items, { statusUpdates: 'chosen', statuses: [] });
		expect(ids(noneChosen)).toEqual(['wamid.T', 'wamid.I']);
	});

	it('chosen message types only; status updates are not message types', () => {
		expect(ids(filterNotificationItems(items, { messageTypes: ['image'], statusUpdates: 'all' }))).toEqual([
			'wamid.I',
			'wamid.S1',
			'wamid.S2',
			'wamid.S3',
		]);
		expect(filterNotificationItems(items, { messageTypes: ['audio'] })).toEqual([]);
	});

	it('template status updates are always kept', () => {
		const templateItems = itemsOf(SAMPLES['template-status.value.json']);
		const kept = filterNotificationItems(templateItems, { messageTypes: ['text'], statusUpdates: 'none' });
		expect(kept).toEqual(templateItems);
	});
});
