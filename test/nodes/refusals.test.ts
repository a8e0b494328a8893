/**
 * The catalogue of bad input (issue 10 and the issues before it): one row per bad input, run through the real node
 * against the sandbox. Each row must end in a NodeOperationError that names the item and the field, with nothing
 * sent that changes anything at the gateway (a GET to read a template is allowed). Then Continue On Fail: the bad
 * item becomes an error item in its place and the good items around it are sent.
 *
 * To add a row: give the node parameters (resource and operation included), the field the error must name, and
 * optionally input items (for expressions), credential changes and the reason the error must give.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { mkdtempSync, rmSync, truncateSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import type { MediaFormat } from '../../nodes/gateway/media';
import { mediaFile, SIGNATURES } from '../fixtures/media';
import type { InputItem } from '../harness';
import { bodyExamples, jsonItems, outputJson, rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

interface Refusal {
	/** The field the error names, as the editor shows it. */
	field: string;
	parameters: INodeParameters;
	/** The one input item; its index (0) is the item the error must name. */
	item?: IDataObject;
	items?: InputItem[];
	credentials?: Record<string, string>;
	/** What the error must also say. */
	reason?: RegExp;
}

const GOOD_PHONE = '+55 11 98888-7777';
/** An expression that hands the field the item's `value`: objects, lists and numbers reach the node as they are. */
const FROM_ITEM = '={{ $json.value }}';

const send = (parameters: INodeParameters): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	recipientPhoneNumber: GOOD_PHONE,
	...parameters,
});
const text = (parameters: INodeParameters = {}) => send({ messageType: 'text', textBody: 'hi', ...parameters });
const sendAndWait = (parameters: INodeParameters) =>
	({ resource: 'message', operation: 'sendAndWait', recipientPhoneNumber: GOOD_PHONE, message: 'Approve?', ...parameters }) as INodeParameters;
const templateMessage = (parameters: INodeParameters) =>
	send({ messageType: 'template', templateName: 'order_shipped', templateLanguage: 'pt_BR', ...parameters });
const location = (parameters: INodeParameters) => send({ messageType: 'location', latitude: '-23.56', longitude: '-46.65', ...parameters });
const createTemplate = (parameters: INodeParameters): INodeParameters => ({
	resource: 'template',
	operation: 'create',
	name: 'order_shipped',
	language: 'pt_BR',
	category: 'UTILITY',
	bodyText: 'Hi {{1}}',
	...bodyExamples({ 1: 'Ana' }),
	...parameters,
});
const editTemplate = (parameters: INodeParameters): INodeParameters => ({
	resource: 'template',
	operation: 'edit',
	templateId: '1234567890',
	...parameters,
});
const createWebhook = (parameters: INodeParameters): INodeParameters => ({
	resource: 'webhook',
	operation: 'create',
	endpoint: 'https://n8n.example.com/webhook/messages',
	types: ['messages'],
	...parameters,
});
const anObject = { value: { number: '+5511988887777' } };

/** One input item with a file of this format and size in binary property `data`, declared as `mimeType`. */
const file = (format: MediaFormat | 'unknown', size: number, mimeType: string): InputItem[] => [
	{ json: {}, binary: { data: { data: format === 'unknown' ? Buffer.alloc(size) : mediaFile(format, size), fileName: 'file', mimeType } } },
];
const mediaMessage = (messageType: string) => send({ messageType, mediaSource: 'binary', binaryPropertyName: 'data' });
const upload = (mediaKind: string): INodeParameters => ({ resource: 'media', operation: 'upload', binaryPropertyName: 'data', mediaKind });
const FILE_FIELD = 'Input Binary Field';
const mapperWithoutPlaceholders = { mappingMode: 'defineBelow', value: {}, schema: [] };

/** A 100,000,001-byte PDF in the filesystem, sparse: only its first bytes are written. */
let largeDirectory: string;
let largePdf: string;
beforeAll(() => {
	largeDirectory = mkdtempSync(join(tmpdir(), 'refusals-'));
	largePdf = join(largeDirectory, 'large.pdf');
	writeFileSync(largePdf, SIGNATURES.pdf);
	truncateSync(largePdf, 100_000_001);
});
afterAll(() => rmSync(largeDirectory, { recursive: true, force: true }));

const catalogue: Array<[string, Refusal]> = [
	// Issue 10, point 1: recipient numbers
	['a national number without Default Country', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '(11) 98888-7777' }), reason: /set Default Country/ }],
	['a national number with the trunk prefix, no Default Country', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '011 98888-7777' }), reason: /starts with 0/ }],
	['a Brazilian national number read in the US plan', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '(11) 98888-7777', defaultCountry: 'US' }), reason: /US \(\+1\)/ }],
	['+55 11 0000-0000 (not in the plan of Brazil)', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '+55 11 0000-0000' }), reason: /not a valid number of BR/ }],
	['+55 99999-9999 (no area code)', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '+55 99999-9999' }), reason: /not a valid number of BR/ }],
	['+55 11 99999-9999 (repeated digits)', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '+55 11 99999-9999' }), reason: /invented/ }],
	['+55 11 90000-0000 (one digit repeated)', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '+55 11 90000-0000' }), reason: /one digit repeated/ }],
	['a number with too many digits', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '+55 11 98888-7777-1234' }), reason: /too many digits/ }],
	['a number with too few digits', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '+55 1234' }) }],
	['an unknown country code', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '+999 1234 5678' }), reason: /country code/ }],
	['a recipient with letters', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: 'whatsapp:+5511988887777' }), reason: /not a phone number/ }],
	['an empty recipient', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: '' }), reason: /is empty/ }],
	['a recipient expression that gives an object', { field: 'Recipient Phone Number', parameters: text({ recipientPhoneNumber: FROM_ITEM }), item: anObject, reason: /got an object/ }],
	['a Default Country that is a name', { field: 'Default Country', parameters: text({ recipientPhoneNumber: '(11) 98888-7777', defaultCountry: 'Brazil' }), reason: /not a country code/ }],
	['a Default Country of the credential that is not a code', { field: 'Default Country', parameters: text(), credentials: { defaultCountry: 'XX' }, reason: /credential/ }],
	['Send and Wait to an invented number', { field: 'Recipient Phone Number', parameters: sendAndWait({ recipientPhoneNumber: '+55 11 99999-9999' }), reason: /invented/ }],
	['Send and Wait to a national number without Default Country', { field: 'Recipient Phone Number', parameters: sendAndWait({ recipientPhoneNumber: '98888-7777' }) }],

	// Issue 10, point 5: objects where text belongs
	['a text that is an object', { field: 'Text', parameters: text({ textBody: FROM_ITEM }), item: anObject, reason: /got an object/ }],
	['a template message name that is an object', { field: 'Template Name', parameters: templateMessage({ templateName: FROM_ITEM }), item: anObject }],
	['a template language that is a list', { field: 'Language Code', parameters: templateMessage({ templateLanguage: FROM_ITEM }), item: { value: ['pt_BR'] }, reason: /got a list/ }],
	['a location name that is an object', { field: 'Name', parameters: location({ locationName: FROM_ITEM }), item: anObject }],
	['a reaction emoji that is an object', { field: 'Emoji', parameters: send({ messageType: 'reaction', reactionMessageId: 'wamid.1', reactionEmoji: FROM_ITEM }), item: anObject }],
	['a media id that is an object', { field: 'Media ID', parameters: send({ messageType: 'image', mediaSource: 'id', mediaId: FROM_ITEM }), item: anObject }],
	['a mark-as-read id that is an object', { field: 'Message ID', parameters: { resource: 'message', operation: 'markAsRead', readMessageId: FROM_ITEM }, item: anObject }],
	['a Send and Wait message that is an object', { field: 'Message', parameters: sendAndWait({ message: FROM_ITEM }), item: anObject }],
	['a template name that is an object ("[object Object]" was created)', { field: 'Name', parameters: createTemplate({ name: FROM_ITEM }), item: anObject, reason: /got an object/ }],
	['a template language that is an object', { field: 'Language', parameters: createTemplate({ language: FROM_ITEM }), item: anObject }],
	['a template body that is an object', { field: 'Body Text', parameters: createTemplate({ bodyText: FROM_ITEM }), item: anObject }],
	['a template footer that is a list', { field: 'Footer Text', parameters: createTemplate({ footerText: FROM_ITEM }), item: { value: ['a'] } }],
	['a template id that is an object (Get)', { field: 'Template ID', parameters: { resource: 'template', operation: 'get', templateId: FROM_ITEM }, item: anObject }],
	['an edited name that is an object', { field: 'Update Fields › Name', parameters: editTemplate({ updateFields: { name: FROM_ITEM } }), item: anObject }],
	['a webhook endpoint that is an object', { field: 'Endpoint', parameters: createWebhook({ endpoint: FROM_ITEM }), item: anObject }],
	['a webhook phone that is an object', { field: 'Phone', parameters: createWebhook({ phone: FROM_ITEM }), item: anObject }],
	['a custom header value that is an object', { field: 'Custom Headers › header 1 › Value', parameters: createWebhook({ customHeaders: { header: [{ name: 'X-Secret', value: FROM_ITEM }] } }), item: anObject }],

	// Issue 10, point 6: template create
	['a template name with capitals', { field: 'Name', parameters: createTemplate({ name: 'Order_Shipped' }), reason: /lowercase letters, digits and underscores/ }],
	['a template name with a space and a mark', { field: 'Name', parameters: createTemplate({ name: 'order shipped!' }), reason: /e\.g\. order_shipped/ }],
	['a template name with a hyphen', { field: 'Name', parameters: createTemplate({ name: 'order-shipped' }) }],
	['an empty template name', { field: 'Name', parameters: createTemplate({ name: ' ' }) }],
	['a category from an expression that is not the spec\'s', { field: 'Category', parameters: createTemplate({ category: '={{ "TRANSACTIONAL" }}' }), reason: /AUTHENTICATION, MARKETING, UTILITY, TICKET_UPDATE/ }],
	['an empty category from an expression', { field: 'Category', parameters: createTemplate({ category: '={{ "" }}' }) }],
	['a hyphenated language', { field: 'Language', parameters: createTemplate({ language: 'en-US' }), reason: /underscore/ }],
	['an empty template body', { field: 'Body Text', parameters: createTemplate({ bodyText: '' }) }],
	['a placeholder gap', { field: 'Body Text', parameters: createTemplate({ bodyText: 'Hi {{1}}, order {{3}}', ...bodyExamples({ 1: 'a', 2: 'b', 3: 'c' }) }), reason: /without gaps/ }],
	['a placeholder without example', { field: 'Body Examples', parameters: createTemplate({ bodyText: 'Hi {{1}}, order {{2}}' }) }],
	['a URL button without example', { field: 'URL Buttons', parameters: createTemplate({ urlButtons: { button: [{ text: 'Go', url: 'https://shop.example/{{1}}' }] } }) }],
	['components JSON that does not parse', { field: 'Components (JSON)', parameters: createTemplate({ componentsInput: 'json', componentsJson: '[{"type": "BODY",' }) }],
	['components JSON without a body', { field: 'Components (JSON)', parameters: createTemplate({ componentsInput: 'json', componentsJson: '[{"type": "FOOTER", "text": "x"}]' }) }],

	// Template edit and get
	['an edit that sets nothing', { field: 'Update Fields', parameters: editTemplate({}), reason: /nothing to change/ }],
	['an edited name with capitals', { field: 'Update Fields › Name', parameters: editTemplate({ updateFields: { name: 'Order_Shipped' } }) }],
	['an edited language with a hyphen', { field: 'Update Fields › Language', parameters: editTemplate({ updateFields: { language: 'pt-BR' } }) }],
	['a template id with a path in it (Edit)', { field: 'Template ID', parameters: editTemplate({ templateId: '12/../../Webhooks', footerText: 'x' }) }],
	['an empty template id (Get)', { field: 'Template ID', parameters: { resource: 'template', operation: 'get', templateId: '' } }],

	// Issue 10, point 7: webhook create
	['a subscription type not in the spec', { field: 'Subscription Types', parameters: createWebhook({ types: FROM_ITEM }), item: { value: ['messages', 'message_status'] }, reason: /"message_status" is not a subscription type/ }],
	['subscription types as text with an unknown one', { field: 'Subscription Types', parameters: createWebhook({ types: '={{ "messages,statuses" }}' }), reason: /"statuses"/ }],
	['no subscription type', { field: 'Subscription Types', parameters: createWebhook({ types: [] }) }],
	['an http endpoint', { field: 'Endpoint', parameters: createWebhook({ endpoint: 'http://n8n.example.com/webhook' }), reason: /https/ }],
	['an endpoint that is not a URL', { field: 'Endpoint', parameters: createWebhook({ endpoint: 'n8n.example.com' }) }],
	['a custom header given twice', { field: 'Custom Headers', parameters: createWebhook({ customHeaders: { header: [{ name: 'X-A', value: '1' }, { name: 'x-a', value: '2' }] } }) }],
	['a custom header without name', { field: 'Custom Headers', parameters: createWebhook({ customHeaders: { header: [{ name: '', value: '1' }] } }) }],
	['an unknown meta version', { field: 'Meta Version', parameters: createWebhook({ metaVersion: '={{ "v99" }}' }) }],
	['no phone anywhere', { field: 'Phone', parameters: createWebhook({}), credentials: { phoneId: '' } }],

	// Issue 10, point 8: location
	['a location without latitude', { field: 'Latitude', parameters: send({ messageType: 'location', longitude: '-46.65' }), reason: /is required/ }],
	['a location without longitude', { field: 'Longitude', parameters: send({ messageType: 'location', latitude: '-23.56' }), reason: /is required/ }],
	['a latitude out of range', { field: 'Latitude', parameters: location({ latitude: 91 }), reason: /between -90 and 90/ }],
	['a longitude out of range', { field: 'Longitude', parameters: location({ longitude: '-180.5' }), reason: /between -180 and 180/ }],
	['a latitude that is not a number', { field: 'Latitude', parameters: location({ latitude: 'south' }), reason: /not a number/ }],

	// Message types (earlier issues)
	['an empty text', { field: 'Text', parameters: text({ textBody: '  ' }) }],
	['a template language not in the form xx_XX', { field: 'Language Code', parameters: templateMessage({ templateLanguage: 'portuguese' }) }],
	['a template message name with capitals', { field: 'Template Name', parameters: templateMessage({ templateName: 'Order_Shipped' }) }],
	['an empty template body parameter', { field: 'Body Parameters', parameters: templateMessage({ templateBodyParameters: { parameter: [{ text: ' ' }] } }) }],
	['From Template without the listed placeholders', { field: 'Template Parameters', parameters: templateMessage({ templateParameterSource: 'fromTemplate', templateId: '123' }) }],
	['four reply buttons', { field: 'Reply Buttons', parameters: send({ messageType: 'interactiveButtons', buttonsBody: 'b', replyButtons: { button: [1, 2, 3, 4].map((i) => ({ id: `${i}`, title: `B${i}` })) } }) }],
	['a button title over 20 characters', { field: 'Title', parameters: send({ messageType: 'interactiveButtons', buttonsBody: 'b', replyButtons: { button: [{ id: 'a', title: 'x'.repeat(21) }] } }) }],
	['eleven list rows', { field: 'Sections', parameters: send({ messageType: 'interactiveList', listBody: 'b', listButtonLabel: 'l', listSections: { section: [{ rows: { row: Array.from({ length: 11 }, (_, i) => ({ id: `r${i}`, title: `R${i}` })) } }] } }) }],
	['contacts JSON that does not parse', { field: 'Contacts (JSON)', parameters: send({ messageType: 'contacts', contactsInputMode: 'json', contactsJson: '[{' }) }],
	['a contact card without a name', { field: 'Contacts (JSON) › card 1 › name', parameters: send({ messageType: 'contacts', contactsInputMode: 'json', contactsJson: '[{"name": {}, "phones": [{"phone": "+5511988887777"}]}]' }) }],
	['a contact e-mail that is not one', { field: 'email', parameters: send({ messageType: 'contacts', contactsInputMode: 'json', contactsJson: '[{"name": {"formatted_name": "Ana"}, "emails": [{"email": "ana"}]}]' }) }],
	['an empty media id', { field: 'Media ID', parameters: send({ messageType: 'video', mediaSource: 'id', mediaId: '' }) }],
	['a reaction that is not an emoji', { field: 'Emoji', parameters: send({ messageType: 'reaction', reactionMessageId: 'wamid.1', reactionEmoji: 'ok' }) }],
	['a reaction without message id', { field: 'Message ID', parameters: send({ messageType: 'reaction', reactionMessageId: '', reactionEmoji: '👍' }) }],
	['an empty mark-as-read id', { field: 'Message ID', parameters: { resource: 'message', operation: 'markAsRead', readMessageId: ' ' } }],
	['an empty Send and Wait message', { field: 'Message', parameters: sendAndWait({ message: ' ' }) }],
	// Issue 10, point 2: a template given by its ID
	['From Template with an empty Template ID', { field: 'Template ID', parameters: send({ messageType: 'template', templateParameterSource: 'fromTemplate', templateId: '', templateParameters: mapperWithoutPlaceholders }) }],
	['From Template with a Template ID that is an object', { field: 'Template ID', parameters: send({ messageType: 'template', templateParameterSource: 'fromTemplate', templateId: FROM_ITEM, templateParameters: mapperWithoutPlaceholders }), item: anObject }],
	// Issue 10, point 3: media formats per kind, from the file's bytes and its declared type
	['a PDF sent as an image', { field: FILE_FIELD, parameters: mediaMessage('image'), items: file('pdf', 2000, 'application/pdf'), reason: /Image files must be JPEG or PNG; this file is PDF/ }],
	['a GIF sent as an image', { field: FILE_FIELD, parameters: mediaMessage('image'), items: file('gif', 2000, 'image/gif'), reason: /this file is GIF/ }],
	['a PNG sent as a sticker', { field: FILE_FIELD, parameters: mediaMessage('sticker'), items: file('png', 2000, 'image/png'), reason: /Sticker files must be WebP; this file is PNG/ }],
	['a QuickTime (MOV) video', { field: FILE_FIELD, parameters: mediaMessage('video'), items: file('quicktime', 2000, 'video/quicktime'), reason: /Video files must be MP4 or 3GPP; this file is QuickTime/ }],
	['a WebM video', { field: FILE_FIELD, parameters: mediaMessage('video'), items: file('matroska', 2000, 'video/webm'), reason: /this file is WebM/ }],
	['OGG audio without the opus codec', { field: FILE_FIELD, parameters: mediaMessage('audio'), items: file('ogg-vorbis', 2000, 'audio/ogg'), reason: /this file is OGG Vorbis/ }],
	['WAV audio', { field: FILE_FIELD, parameters: mediaMessage('audio'), items: file('wav', 2000, 'audio/wav'), reason: /Audio files must be AAC, MP4, MPEG audio \(MP3\), AMR or OGG Opus; this file is WAV/ }],
	['an image whose bytes are no known format', { field: FILE_FIELD, parameters: mediaMessage('image'), items: file('unknown', 2000, 'image/jpeg'), reason: /not a format it recognises \(declared image\/jpeg\)/ }],
	['a JPEG declared as image/png', { field: FILE_FIELD, parameters: mediaMessage('image'), items: file('jpeg', 2000, 'image/png'), reason: /declared image\/png but its content is JPEG/ }],
	['a PDF declared as image/jpeg, sent as a document', { field: FILE_FIELD, parameters: mediaMessage('document'), items: file('pdf', 2000, 'image/jpeg'), reason: /declared image\/jpeg but its content is PDF/ }],
	['a PNG uploaded as a sticker (Media > Upload)', { field: FILE_FIELD, parameters: upload('sticker'), items: file('png', 2000, 'image/png'), reason: /Sticker files must be WebP/ }],
	['a PDF uploaded as a video (Media > Upload)', { field: FILE_FIELD, parameters: upload('video'), items: file('pdf', 2000, 'application/pdf'), reason: /this file is PDF/ }],
	// Issue 10, point 3: sizes in decimal bytes (5 MB = 5,000,000 bytes)
	['an image of 5,000,001 bytes', { field: FILE_FIELD, parameters: mediaMessage('image'), items: file('jpeg', 5_000_001, 'image/jpeg'), reason: /5,000,001 bytes; image files are at most 5 MB \(5,000,000 bytes\)/ }],
	['a sticker of 100,001 bytes', { field: FILE_FIELD, parameters: mediaMessage('sticker'), items: file('webp', 100_001, 'image/webp'), reason: /at most 100 KB \(100,000 bytes\)/ }],
	['a video of 16,000,001 bytes', { field: FILE_FIELD, parameters: mediaMessage('video'), items: file('mp4', 16_000_001, 'video/mp4'), reason: /video files are at most 16 MB \(16,000,000 bytes\)/ }],
	['an audio of 16,000,001 bytes', { field: FILE_FIELD, parameters: mediaMessage('audio'), items: file('aac', 16_000_001, 'audio/aac'), reason: /audio files are at most 16 MB \(16,000,000 bytes\)/ }],
	['an image of 5,000,001 bytes left to detection (Media > Upload)', { field: FILE_FIELD, parameters: upload('auto'), items: file('png', 5_000_001, 'image/png'), reason: /image files are at most 5 MB/ }],
	['a document of 100,000,001 bytes (filesystem binary)', {
		field: FILE_FIELD,
		parameters: mediaMessage('document'),
		get items(): InputItem[] {
			return [{ json: {}, binary: { data: { data: { filePath: largePdf }, fileName: 'large.pdf', mimeType: 'application/pdf' } } }];
		},
		reason: /100,000,001 bytes; document files are at most 100 MB \(100,000,000 bytes\)/,
	}],
];

const escape = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

describe('the catalogue of bad input: an error naming the item and the field, nothing sent', () => {
	it.each(catalogue)('%s', async (_name, refusal) => {
		const items = refusal.items ?? jsonItems([refusal.item ?? {}]);
		const error = await rejectionOf(
			runGateway(gateway.sandbox, refusal.parameters, { items, credentials: refusal.credentials }),
		);

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.context.itemIndex).toBe(0);
		expect(error.message).toMatch(new RegExp(`${escape(refusal.field)}.*\\(item 0\\)|\\(item 0\\).*${escape(refusal.field)}`));
		if (refusal.reason) expect(error.message).toMatch(refusal.reason);
		expect(error.message).not.toMatch(/\[object Object\]/);
		expect(gateway.sandbox.requests.filter((request) => request.method !== 'GET')).toEqual([]);
	});
});

describe('with Continue On Fail: the bad item becomes an error item and the good items around it are sent', () => {
	it('message send: bad recipients and an object text between good items', async () => {
		const items = jsonItems([
			{ phone: '+55 11 98888-7777', text: 'one' },
			{ phone: '(11) 98888-7777', text: 'two' },
			{ phone: '+55 21 99876-1234', text: 'three' },
			{ phone: '+55 11 99999-9999', text: 'four' },
			{ phone: '+1 415 555 2671', text: { body: 'five' } },
			{ phone: '+44 7911 123456', text: 'six' },
		]);
		const result = await runGateway(
			gateway.sandbox,
			{ resource: 'message', operation: 'send', messageType: 'text', recipientPhoneNumber: '={{ $json.phone }}', textBody: '={{ $json.text }}' },
			{ items, continueOnFail: true },
		);

		const output = outputJson(result);
		expect(result.output[0].map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4, 5].map((item) => ({ item })));
		expect(output.map((json) => (json.error ? 'error' : 'sent'))).toEqual(['sent', 'error', 'sent', 'error', 'error', 'sent']);
		expect(output[1].error).toMatch(/^Recipient Phone Number \(item 1\):.*Default Country/);
		expect(output[3].error).toMatch(/^Recipient Phone Number \(item 3\):.*invented/);
		expect(output[4].error).toMatch(/^Text \(item 4\): must be text, got an object/);
		// Sends may run in parallel: the gateway sees them in any order.
		expect(gateway.sandbox.requests.map((request) => (request.body as IDataObject).to).sort()).toEqual([
			'447911123456',
			'5511988887777',
			'5521998761234',
		]);
	});

	it('template create: a name the network refuses and a foreign category, between good templates', async () => {
		const items = jsonItems([
			{ name: 'order_shipped', category: 'UTILITY' },
			{ name: 'Order_Shipped', category: 'UTILITY' },
			{ name: 'promo_spring', category: 'marketing' },
			{ name: 'promo_summer', category: 'PROMOTION' },
			{ name: 'ticket_open', category: 'TICKET_UPDATE' },
		]);
		const result = await runGateway(
			gateway.sandbox,
			createTemplate({ name: '={{ $json.name }}', category: '={{ $json.category }}' }),
			{ items, continueOnFail: true },
		);

		const output = outputJson(result);
		expect(output.map((json) => json.error ?? 'created')).toEqual([
			'created',
			expect.stringMatching(/^Name \(item 1\): "Order_Shipped" is not a template name/),
			'created',
			expect.stringMatching(/^Category \(item 3\): "PROMOTION" is not a category/),
			'created',
		]);
		expect(gateway.sandbox.requests.map((request) => (request.body as IDataObject).name)).toEqual([
			'order_shipped',
			'promo_spring',
			'ticket_open',
		]);
		expect((gateway.sandbox.requests[1].body as IDataObject).category).toBe('MARKETING');
	});

	it('webhook create: an unknown subscription type between good webhooks', async () => {
		const items = jsonItems([{ types: ['messages'] }, { types: ['messages', 'message_status'] }, { types: 'messages,security' }]);
		const result = await runGateway(gateway.sandbox, createWebhook({ types: '={{ $json.types }}' }), { items, continueOnFail: true });

		const output = outputJson(result);
		expect(output[1].error).toMatch(/^Subscription Types \(item 1\): "message_status"/);
		expect(output[0].error).toBeUndefined();
		expect(output[2].error).toBeUndefined();
		expect(gateway.sandbox.requests.map((request) => (request.body as IDataObject).types)).toEqual([
			['messages'],
			['messages', 'security'],
		]);
	});

	it('location: a pin without coordinates is an error item, the others are sent', async () => {
		const items = jsonItems([{ lat: '-23.56', lng: '-46.65' }, { lat: '', lng: '' }, { lat: -22.9, lng: -43.2 }]);
		const result = await runGateway(
			gateway.sandbox,
			send({ messageType: 'location', latitude: '={{ $json.lat }}', longitude: '={{ $json.lng }}' }),
			{ items, continueOnFail: true },
		);

		const output = outputJson(result);
		expect(output[1].error).toMatch(/^Latitude \(item 1\): is required/);
		const pins = gateway.sandbox.requests.map((request) => (request.body as { location: IDataObject }).location);
		expect(pins).toHaveLength(2);
		expect(pins).toEqual(
			expect.arrayContaining([
				{ latitude: '-23.56', longitude: '-46.65' },
				{ latitude: '-22.9', longitude: '-43.2' },
			]),
		);
	});

	it('media send: files of the wrong format or over the decimal limit are error items, the good files are sent', async () => {
		const items: InputItem[] = [
			file('jpeg', 4_000_000, 'image/jpeg'),
			file('pdf', 3000, 'application/pdf'),
			file('png', 5_000_000, 'image/png'),
			file('png', 5_000_001, 'image/png'),
			file('gif', 3000, 'image/gif'),
		].flat();
		const result = await runGateway(gateway.sandbox, mediaMessage('image'), { items, continueOnFail: true });

		const output = outputJson(result);
		expect(result.output[0].map((item) => item.pairedItem)).toEqual([0, 1, 2, 3, 4].map((item) => ({ item })));
		expect(output.map((json) => json.error ?? 'sent')).toEqual([
			'sent',
			expect.stringMatching(/^Input Binary Field "data" \(item 1\): Image files must be JPEG or PNG; this file is PDF/),
			'sent',
			expect.stringMatching(/^Input Binary Field "data" \(item 3\): The file is 5,000,001 bytes/),
			expect.stringMatching(/^Input Binary Field "data" \(item 4\): Image files must be JPEG or PNG; this file is GIF/),
		]);
		const uploads = gateway.sandbox.requests.filter((request) => request.path === '/api/Medias');
		expect(uploads.map((request) => (request.body as { files: Array<{ size: number; contentType: string }> }).files[0].size).sort()).toEqual([
			4_000_000,
			5_000_000,
		]);
		expect(gateway.sandbox.requests.filter((request) => request.path === '/api/Messages')).toHaveLength(2);
	}, 60_000);
});
