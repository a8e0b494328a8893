/**
 * What the gateway must receive when each saved workflow of this folder runs, in order: checked by the e2e run in a
 * real n8n (test/e2e/09-saved-workflows.e2e.ts) and, for workflows of one gateway node after the trigger, in
 * process (test/nodes/savedWorkflows.test.ts). A saved workflow and its expectation are never edited once released:
 * a change of the node that breaks one needs a new node version.
 */
export interface ExpectedRequest {
	method: 'GET' | 'POST' | 'PUT';
	/** The path, or its beginning when it ends with '/' (an id follows). */
	path: string;
	/** The `version` header (spec section 9). */
	version?: string;
	/** Matched with toMatchObject: the fields the request must carry. */
	body?: Record<string, unknown>;
}

const TO = '5511988887777';
const envelope = { messaging_product: 'whatsapp', recipient_type: 'individual', to: TO };
const message = (body: Record<string, unknown>): ExpectedRequest => ({
	method: 'POST',
	path: '/api/Messages',
	version: '5.0',
	body: { ...envelope, ...body },
});

export const EXPECTED_REQUESTS: Record<string, ExpectedRequest[]> = {
	'message-send-text': [message({ type: 'text', text: { body: 'Olá! Seu pedido saiu.' } })],
	'message-send-template': [
		{ method: 'POST', path: '/api/Templates', version: '5.0', body: { name: 'saved_order_update', language: 'pt_BR', category: 'UTILITY' } },
		message({
			type: 'template',
			template: {
				name: 'saved_order_update',
				language: { policy: 'deterministic', code: 'pt_BR' },
				components: [{ type: 'body', parameters: [{ type: 'text', text: 'Maria' }, { type: 'text', text: '#1001' }] }],
			},
		}),
	],
	'message-send-interactiveButtons': [
		message({
			type: 'interactive',
			interactive: {
				type: 'button',
				body: { text: 'Confirm your visit?' },
				footer: { text: 'Reply below' },
				action: { buttons: [{ type: 'reply', reply: { id: 'yes', title: 'Yes' } }, { type: 'reply', reply: { id: 'no', title: 'No' } }] },
			},
		}),
	],
	'message-send-interactiveList': [
		message({
			type: 'interactive',
			interactive: {
				type: 'list',
				header: { type: 'text', text: 'Menu' },
				body: { text: 'Choose a slot' },
				footer: { text: 'Thanks' },
				action: { button: 'Slots', sections: [{ title: 'Morning', rows: [{ id: 'm9', title: '9:00', description: 'Nine o’clock' }] }] },
			},
		}),
	],
	'message-send-contacts': [
		message({
			type: 'contacts',
			contacts: [
				{
					name: { formatted_name: 'Maria Silva', first_name: 'Maria', last_name: 'Silva' },
					org: { company: 'ACME' },
					phones: [{ phone: '+55 11 98888-7777', type: 'WORK' }],
					emails: [{ email: 'maria@example.com', type: 'WORK' }],
				},
			],
		}),
	],
	'message-send-location': [
		message({ type: 'location', location: { latitude: '-23.5614', longitude: '-46.6559', name: 'MASP', address: 'Av. Paulista, 1578' } }),
	],
	'message-send-image': [message({ type: 'image', image: { id: '1234567890', caption: 'Seu pedido' } })],
	'message-send-image-binary': [
		{ method: 'POST', path: '/api/Medias', version: '6.0', body: { files: [{ field: 'File', fileName: 'pixel.png', contentType: 'image/png' }] } },
		message({ type: 'image' }),
	],
	'message-send-audio': [message({ type: 'audio', audio: { id: '11' } })],
	'message-send-video': [message({ type: 'video', video: { id: '12', caption: 'Como usar' } })],
	'message-send-document': [message({ type: 'document', document: { id: '14', caption: 'Nota', filename: 'nota.pdf' } })],
	'message-send-sticker': [message({ type: 'sticker', sticker: { id: '13' } })],
	'message-send-reaction': [
		message({ type: 'reaction', reaction: { message_id: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFjNFQjBDMEY', emoji: '👍' } }),
	],
	'message-markAsRead': [
		{ method: 'POST', path: '/api/Messages', version: '5.0', body: { messaging_product: 'whatsapp', status: 'read', message_id: 'wamid.INCOMING42' } },
	],
	'template-create-get-edit': [
		{
			method: 'POST',
			path: '/api/Templates',
			version: '5.0',
			body: { name: 'saved_welcome', language: 'en_US', category: 'MARKETING', components: [{ type: 'BODY', text: 'Welcome to the club!' }, { type: 'FOOTER', text: 'Loja Exemplo' }] },
		},
		{ method: 'GET', path: '/api/Templates/', version: '5.0' },
		// Start From Current: the GET of the template again, then the whole content with the new body (spec 4.5).
		{ method: 'GET', path: '/api/Templates/', version: '5.0' },
		{
			method: 'PUT',
			path: '/api/Templates/',
			version: '5.0',
			body: { name: 'saved_welcome', category: 'MARKETING', components: [{ type: 'BODY', text: 'Welcome to the club, again!' }, { type: 'FOOTER', text: 'Loja Exemplo' }] },
		},
	],
	'template-create-v1': [
		{
			method: 'POST',
			path: '/api/Templates',
			version: '5.0',
			body: {
				name: 'saved_order_v1',
				language: 'pt_BR',
				category: 'UTILITY',
				components: [{ type: 'BODY', text: 'Olá {{1}}, seu pedido {{2}} foi enviado.', example: { body_text: [['Ana', '#123']] } }],
			},
		},
	],
	'webhook-create': [
		{
			method: 'POST',
			path: '/api/Webhooks/',
			version: '4.0',
			body: { endpoint: 'https://hooks.example.com/whatsapp', types: ['messages'], meta_version: 'v16', headers: { 'x-shared-token': 'abc123' } },
		},
	],
	'webhook-list': [
		{ method: 'POST', path: '/api/Webhooks/', version: '4.0', body: { endpoint: 'https://hooks.example.com/listed', types: ['messages'] } },
		{ method: 'GET', path: '/api/Webhooks', version: '4.0' },
	],
	'profile-get': [{ method: 'GET', path: '/api/Profiles', version: '4.0' }],
	'media-upload': [
		{ method: 'POST', path: '/api/Medias', version: '6.0', body: { fields: { messaging_product: 'whatsapp' }, files: [{ field: 'File', fileName: 'invoice.pdf', contentType: 'application/pdf' }] } },
	],
	'personData-upload': [{ method: 'POST', path: '/DataInserterProfiles/api/profile', body: { contentType: 'application/csv', records: 2 } }],
};

/** Whether a recorded request is the expected one by method and path (a path ending in '/' is a prefix). */
export function samePlace(expected: ExpectedRequest, request: { method: string; path: string }): boolean {
	if (expected.method !== request.method) return false;
	return expected.path.endsWith('/') && expected.path !== '/api/Webhooks/'
		? request.path.startsWith(expected.path)
		: request.path === expected.path;
}
