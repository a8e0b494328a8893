/** `POST /api/Messages`: every type of spec 2.2 accepted with the answer of 2.3, and malformed bodies refused. */
import { CHANNEL, ENDPOINTS } from '../../nodes/gateway/spec';
import { call, message, sendMessage, TO, VALID_MESSAGES } from './helpers';
import { startSandbox, type Sandbox } from './server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(() => sandbox.close());

describe('accepted messages', () => {
	it.each(Object.entries(VALID_MESSAGES))('sends a %s message and answers spec 2.3', async (_type, body) => {
		const result = await sendMessage(sandbox, body);
		expect(result.status).toBe(200);
		expect(result.json).toEqual({
			messaging_product: CHANNEL,
			contacts: [{ input: TO, wa_id: TO }],
			messages: [{ id: expect.stringMatching(/^wamid\./) }],
		});
	});

	it('gives every message its own id', async () => {
		const ids = new Set<string>();
		for (let i = 0; i < 50; i++) ids.add((await sendMessage(sandbox, VALID_MESSAGES.text)).json.messages[0].id);
		expect(ids.size).toBe(50);
	});

	it('accepts a reaction with an empty emoji (removes the reaction)', async () => {
		const body = message('reaction', { message_id: 'wamid.X', emoji: '' });
		expect((await sendMessage(sandbox, body)).status).toBe(200);
	});

	it.each(['image', 'video'])('accepts a %s with a caption (NOTES.md: the network takes it)', async (kind) => {
		expect((await sendMessage(sandbox, message(kind, { id: '1', caption: 'Seu pedido' }))).status).toBe(200);
	});

	it('accepts a template message without components', async () => {
		const body = message('template', { name: 'hello_world', language: { policy: 'deterministic', code: 'en_US' } });
		expect((await sendMessage(sandbox, body)).status).toBe(200);
	});

	it('marks a message as read and answers { success: true }', async () => {
		const result = await sendMessage(sandbox, { messaging_product: CHANNEL, status: 'read', message_id: 'wamid.ABC' });
		expect(result.status).toBe(200);
		expect(result.json).toEqual({ success: true });
	});
});

const buttons = (count: number, title = 'Opção') =>
	Array.from({ length: count }, (_, i) => ({ type: 'reply', reply: { id: `b${i}`, title: `${title} ${i}` } }));
const interactiveButtons = (action: unknown) =>
	message('interactive', { type: 'button', body: { text: 'Escolha' }, footer: null, action });
const listWithRows = (count: number) =>
	message('interactive', {
		type: 'list',
		header: { type: 'text', text: 'Menu' },
		body: { text: 'Escolha' },
		footer: { text: 'Rodapé' },
		action: {
			button: 'Ver',
			sections: [{ title: 'S', rows: Array.from({ length: count }, (_, i) => ({ id: `r${i}`, title: `Item ${i}`, description: '' })) }],
		},
	});
const { text: validText } = VALID_MESSAGES;

/** [case, body, the offending field, which the refusal's message must name]. */
const MALFORMED: Array<[string, unknown, string]> = [
	['another messaging_product', { ...validText, messaging_product: 'telegram' }, 'messaging_product'],
	['no recipient_type', { ...validText, recipient_type: undefined }, 'recipient_type'],
	['a recipient_type other than individual', { ...validText, recipient_type: 'group' }, 'recipient_type'],
	['a number with a plus sign', { ...validText, to: '+5511988887777' }, 'to'],
	['a number with spaces', { ...validText, to: '55 11 98888 7777' }, 'to'],
	['a number that is too short', { ...validText, to: '1234' }, 'to'],
	['a number as a JSON number', { ...validText, to: 5511988887777 }, 'to'],
	['an unknown type', message('poll', { question: 'x' }), 'type'],
	['a type object that does not match type', { ...message('text', undefined), image: { id: '1' } }, 'image'],
	['the type object missing', { ...validText, text: undefined }, 'text'],
	['two type objects', { ...validText, image: { id: '1' } }, 'image'],
	['an empty text body', message('text', { body: '' }), 'text.body'],
	['a text body that is not a string', message('text', { body: 42 }), 'text.body'],
	['a text body that is an object sent as text', message('text', { body: '[object Object]' }), 'text.body'],
	['a location without latitude', message('location', { longitude: '-46.65' }), 'location.latitude'],
	['a misspelt text field', message('text', { body: 'x', preview_url: true }), 'text.preview_url'],
	['an unknown top-level field', { ...validText, context: { message_id: 'wamid.X' } }, 'context'],
	[
		'a template language without policy',
		message('template', { name: 'x', language: { code: 'pt_BR' } }),
		'template.language.policy',
	],
	[
		'a template language code not in xx_XX form',
		message('template', { name: 'x', language: { policy: 'deterministic', code: 'pt-BR' } }),
		'template.language.code',
	],
	[
		'a template component of type header',
		message('template', {
			name: 'x',
			language: { policy: 'deterministic', code: 'pt_BR' },
			components: [{ type: 'header', parameters: [{ type: 'text', text: 'a' }] }],
		}),
		'template.components[0].type',
	],
	[
		'a template button with a numeric index',
		message('template', {
			name: 'x',
			language: { policy: 'deterministic', code: 'pt_BR' },
			components: [{ type: 'button', sub_type: 'url', index: 0, parameters: [{ type: 'text', text: 'a' }] }],
		}),
		'template.components[0].index',
	],
	[
		'a template button without sub_type',
		message('template', {
			name: 'x',
			language: { policy: 'deterministic', code: 'pt_BR' },
			components: [{ type: 'button', index: '0', parameters: [{ type: 'text', text: 'a' }] }],
		}),
		'template.components[0].sub_type',
	],
	[
		'a template parameter that is a number',
		message('template', {
			name: 'x',
			language: { policy: 'deterministic', code: 'pt_BR' },
			components: [{ type: 'body', parameters: [{ type: 'text', text: 12 }] }],
		}),
		'template.components[0].parameters[0].text',
	],
	['4 reply buttons', interactiveButtons({ buttons: buttons(4) }), 'interactive.action.buttons'],
	['no reply buttons', interactiveButtons({ buttons: [] }), 'interactive.action.buttons'],
	[
		'a reply button title over 20 characters',
		interactiveButtons({ buttons: [{ type: 'reply', reply: { id: 'a', title: 'Um título longo demais!' } }] }),
		'interactive.action.buttons[0].reply.title',
	],
	[
		'two reply buttons with the same id',
		interactiveButtons({
			buttons: [
				{ type: 'reply', reply: { id: 'a', title: 'Sim' } },
				{ type: 'reply', reply: { id: 'a', title: 'Não' } },
			],
		}),
		'interactive.action.buttons[1].reply.id',
	],
	[
		'a button of type url',
		interactiveButtons({ buttons: [{ type: 'url', reply: { id: 'a', title: 'Sim' } }] }),
		'interactive.action.buttons[0].type',
	],
	[
		'a footer that is a string',
		message('interactive', { type: 'button', body: { text: 'x' }, footer: 'rodapé', action: { buttons: buttons(1) } }),
		'interactive.footer',
	],
	['an interactive type other than button or list', message('interactive', { type: 'product', body: { text: 'x' } }), 'interactive.type'],
	['11 list rows', listWithRows(11), 'interactive.action.sections'],
	[
		'a list header of type image',
		message('interactive', {
			type: 'list',
			header: { type: 'image', text: 'x' },
			body: { text: 'x' },
			action: { button: 'Ver', sections: [{ title: 'S', rows: [{ id: 'a', title: 'A', description: '' }] }] },
		}),
		'interactive.header.type',
	],
	[
		'a list without the button label',
		message('interactive', {
			type: 'list',
			body: { text: 'x' },
			action: { sections: [{ title: 'S', rows: [{ id: 'a', title: 'A', description: '' }] }] },
		}),
		'interactive.action.button',
	],
	['latitude as a number', message('location', { latitude: -23.56, longitude: '-46.65', name: 'a', address: 'b' }), 'location.latitude'],
	['longitude as a number', message('location', { latitude: '-23.56', longitude: -46.65, name: 'a', address: 'b' }), 'location.longitude'],
	['a latitude out of range', message('location', { latitude: '95.0', longitude: '-46.65', name: 'a', address: 'b' }), 'location.latitude'],
	['a latitude that is not a number', message('location', { latitude: 'north', longitude: '1', name: 'a', address: 'b' }), 'location.latitude'],
	['contacts as an object, not an array', message('contacts', { name: { formatted_name: 'A' } }), 'contacts'],
	['a contact without formatted_name', message('contacts', [{ name: { first_name: 'Ana' } }]), 'contacts[0].name.formatted_name'],
	[
		'a contact phone type other than HOME or WORK',
		message('contacts', [{ name: { formatted_name: 'Ana' }, phones: [{ phone: '1', type: 'CELL' }] }]),
		'contacts[0].phones[0].type',
	],
	[
		'a contact birthday not in YYYY-MM-DD',
		message('contacts', [{ name: { formatted_name: 'Ana' }, birthday: '17/05/1990' }]),
		'contacts[0].birthday',
	],
	[
		'a contact value that is a number',
		message('contacts', [{ name: { formatted_name: 'Ana' }, addresses: [{ zip: 1310100 }] }]),
		'contacts[0].addresses[0].zip',
	],
	['an image given by link', message('image', { link: 'https://example.com/a.png' }), 'image.link'],
	['an audio with a caption (the network takes none on audio)', message('audio', { id: '1', caption: 'x' }), 'audio.caption'],
	['an image caption that is not text', message('image', { id: '1', caption: 7 }), 'image.caption'],
	['a media id that is not a media id', message('audio', { id: 'voice.ogg' }), 'audio.id'],
	['a document without id', message('document', { filename: 'a.pdf' }), 'document.id'],
	['a reaction without message_id', message('reaction', { emoji: '\uD83D\uDE00' }), 'reaction.message_id'],
	['mark-as-read with to', { messaging_product: CHANNEL, status: 'read', message_id: 'wamid.X', to: TO }, 'to'],
	['mark-as-read with type', { messaging_product: CHANNEL, status: 'read', message_id: 'wamid.X', type: 'text' }, 'type'],
	['mark-as-read without message_id', { messaging_product: CHANNEL, status: 'read' }, 'message_id'],
	['a status other than read', { messaging_product: CHANNEL, status: 'delivered', message_id: 'wamid.X' }, 'status'],
	['a body that is an array', [validText], 'body'],
];

describe('refused messages', () => {
	it.each(MALFORMED)('refuses %s with 400 naming the field', async (_case, body, field) => {
		const result = await sendMessage(sandbox, body);
		expect(result.status).toBe(400);
		expect(result.json.error).toMatchObject({ type: expect.any(String), code: 100, error_data: { details: expect.any(String) } });
		expect(result.json.error.message).toContain(`Invalid parameter: ${field} `);
	});
});

describe('template messages name a template the account has (the network refuses others)', () => {
	const OTHER_KEY = 'sandbox-other-key';
	let withOtherKey: Sandbox;
	beforeAll(async () => {
		withOtherKey = await startSandbox({ extraApiKeys: [OTHER_KEY] });
	});
	afterAll(() => withOtherKey.close());
	beforeEach(() => withOtherKey.reset());

	const templateMessage = (name: string, code: string) => message('template', { name, language: { policy: 'deterministic', code } });
	const createTemplate = (name: string, language: string, apiKey?: string) =>
		call(withOtherKey, 'POST', ENDPOINTS.templates.path, {
			endpoint: 'templates',
			headers: apiKey ? { apikey: apiKey } : {},
			body: { name, language, category: 'UTILITY', components: [{ type: 'BODY', text: 'Olá!' }] },
		});

	it('refuses a template that does not exist with the network\'s error (404, code 132001)', async () => {
		const result = await sendMessage(withOtherKey, templateMessage('order_updat', 'pt_BR'));
		expect(result.status).toBe(404);
		expect(result.json).toEqual({
			error: {
				message: '(#132001) Template name does not exist in the translation',
				type: 'OAuthException',
				code: 132001,
				error_data: { details: 'template name (order_updat) does not exist in pt_BR' },
				fbtrace_id: expect.any(String),
			},
		});
	});

	it('refuses an existing template in a language it does not have', async () => {
		const result = await sendMessage(withOtherKey, templateMessage('order_update', 'en_US'));
		expect(result.status).toBe(404);
		expect(result.json.error.error_data.details).toBe('template name (order_update) does not exist in en_US');
	});

	it('accepts the account\'s preset templates and the ones it created, not another key\'s', async () => {
		expect((await sendMessage(withOtherKey, templateMessage('hello_world', 'en_US'))).status).toBe(200);
		expect((await createTemplate('boas_vindas', 'pt_BR')).status).toBe(201);
		expect((await sendMessage(withOtherKey, templateMessage('boas_vindas', 'pt_BR'))).status).toBe(200);
		expect((await createTemplate('only_theirs', 'pt_BR', OTHER_KEY)).status).toBe(201);
		expect((await sendMessage(withOtherKey, templateMessage('only_theirs', 'pt_BR'))).status).toBe(404);
	});
});
