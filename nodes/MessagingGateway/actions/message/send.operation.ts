/**
 * Message > Send: one message of the chosen type to one recipient per item. For each item, in order: its recipient
 * and its message are read and checked (bad input sends nothing), its recipient's turn is taken (messages to one
 * recipient leave in item order), its campaign key claimed when it has a Campaign Name (before anything of it
 * leaves), its media uploaded or its template read when the message needs them, and the message sent (run.ts: the
 * pace, the network's waits, Retry On Fail). The output is the gateway's answer, with the campaign's fields when the
 * item has one; an item a campaign does not send says why (campaign/record.ts).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { hasUnknownOutcome } from '../../../gateway/errors';
import { apiError } from '../../../gateway/requestErrors';
import type { MediaKind } from '../../../gateway/spec';
import { asNodeError, readTextParameter } from '../common';
import { Campaign } from '../campaign/campaign';
import type { ItemOutcome } from '../campaign/marks';
import { uploadMediaFromBinary, uploadMediaFromUrl } from '../media/uploadMedia';
import { MessageRun } from './run';
import { buildLocation, buildMedia, buildReaction, buildText, locationFields, mediaFields, reactionFields, readMediaInput, textFields } from './types/basic';
import { messageBody, type MessagePayload, type MessageTypeChoice } from './types/common';
import { build as buildContacts, fields as contactsFields } from './types/contacts';
import { buildButtons, buildList, buttonsFields, listFields } from './types/interactive';
import {
	build as buildTemplate,
	fields as templateFields,
	identityOfTemplate,
	isFromTemplate,
	TEMPLATE_ID_PARAMETER,
	templateComponents,
} from './types/template';

export const messageTypeField: INodeProperties = {
	displayName: 'Message Type',
	name: 'messageType',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['message'], operation: ['send'] } },
	options: [
		{ name: 'Audio', value: 'audio', description: 'An audio file (AAC, MP4, MPEG, AMR or OGG with the opus codec)' },
		{ name: 'Contacts', value: 'contacts', description: 'One or more contact cards' },
		{ name: 'Document', value: 'document', description: 'Any file, with a caption and file name' },
		{ name: 'Image', value: 'image', description: 'A JPEG or PNG image, with an optional caption' },
		{ name: 'Interactive Buttons', value: 'interactiveButtons', description: 'A text with up to three reply buttons' },
		{ name: 'Interactive List', value: 'interactiveList', description: 'A text with a button that opens a list of options' },
		{ name: 'Location', value: 'location', description: 'A place on the map' },
		{ name: 'Reaction', value: 'reaction', description: 'An emoji reaction to a message, or its removal' },
		{ name: 'Sticker', value: 'sticker', description: 'A WebP sticker' },
		{ name: 'Template', value: 'template', description: 'An approved template; the only kind that may start a conversation' },
		{ name: 'Text', value: 'text', description: 'A text message' },
		{ name: 'Video', value: 'video', description: 'An MP4 or 3GP video, with an optional caption' },
	],
	default: 'text',
};

export const typeFields = [
	...textFields,
	...templateFields,
	...buttonsFields,
	...listFields,
	...contactsFields,
	...locationFields,
	...mediaFields,
	...reactionFields,
];

export const description: INodeProperties[] = [messageTypeField, ...typeFields];

/** The builders of the types that need nothing but their fields (media and templates by ID need a request first). */
export const BUILDERS: Record<Exclude<MessageTypeChoice, MediaKind>, (params: IDataObject) => MessagePayload> = {
	text: buildText,
	template: buildTemplate,
	interactiveButtons: buildButtons,
	interactiveList: buildList,
	contacts: buildContacts,
	location: buildLocation,
	reaction: buildReaction,
};

/** The top-level fields of each type, by the editor's displayOptions: the parameters its builder reads. */
export const FIELDS_OF = new Map<MessageTypeChoice, string[]>(
	messageTypeField.options?.map((option) => {
		const choice = (option as { value: MessageTypeChoice }).value;
		const names = typeFields.filter((field) => (field.displayOptions?.show?.messageType as unknown[] | undefined)?.includes(choice)).map((field) => field.name);
		return [choice, names];
	}),
);

/** What the router names a refusal's place by (common.ts describeRefusal). */
const WHERE = { resource: 'message', operation: 'send' } as const;

export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const run = await MessageRun.open(this);
	// Each item's recipient is read once: a campaign reads them all first (they decide its send order).
	const recipients = new Map<number, string>();
	const recipientOf = (itemIndex: number) => {
		if (!recipients.has(itemIndex)) recipients.set(itemIndex, run.recipientOf(itemIndex));
		return recipients.get(itemIndex) as string;
	};
	// A Campaign Name saved (an expression may give one to some items only): the run keeps a campaign record.
	const campaignName = (run.node.parameters.campaign as IDataObject | undefined)?.name;
	const campaign = campaignName !== undefined && campaignName !== '' ? Campaign.open(this, items.length, recipientOf) : null;
	// The templates read by ID in this run: each ID once, items in progress share a pending read.
	const templates = new Map<string, Promise<unknown>>();
	let problems: string[] = [];
	try {
		const order = campaign?.order ?? items.map((_, itemIndex) => itemIndex);
		const output = await run.forEachItem(
			order,
			(itemIndex) => ({ ...WHERE, templateSource: String(run.param('templateParameterSource', itemIndex, 'manual')) }),
			async (itemIndex) => {
				const to = recipientOf(itemIndex);
				// Taken now, before any await: messages to one recipient leave in the order their items start.
				const turn = run.turnOf(to);
				let outcome: ItemOutcome = 'free';
				let failed = false;
				try {
					const choice = run.param('messageType', itemIndex, 'text') as MessageTypeChoice;
					const params: IDataObject = {};
					for (const name of FIELDS_OF.get(choice) ?? []) params[name] = run.param(name, itemIndex) as IDataObject[string];
					const message = run.check(itemIndex, () => readMessage(choice, params));
					const claim = campaign ? await campaign.claim(itemIndex) : { send: true as const };
					if (!claim.send) return claim.output;
					const payload = await payloadOf.call(this, run, templates, itemIndex, message);
					const sent = await run.send(itemIndex, messageBody(to, payload), {
						turn,
						message,
						beforeRequest: () => campaign?.checkLock(itemIndex),
					});
					outcome = 'sent';
					return campaign?.fieldsOf(itemIndex) ? { ...sent, sent: true, status: 'sent', ...campaign.fieldsOf(itemIndex) } : sent;
				} catch (error) {
					failed = true;
					outcome = outcomeOf(error);
					throw asNodeError(run.node, error, itemIndex);
				} finally {
					turn.done(failed);
					campaign?.ended(itemIndex, outcome);
				}
			},
			(itemIndex) => campaign?.fieldsOf(itemIndex) && { sent: false, status: 'failed', ...campaign.fieldsOf(itemIndex) },
		);
		run.close(output);
		return output;
	} finally {
		problems = (await campaign?.close()) ?? [];
		for (const problem of problems) {
			this.addExecutionHints({ message: problem, type: 'warning', location: 'outputPane' });
			this.logger.warn(`Messaging Gateway: ${problem}`);
		}
	}
}

/** What an item's message is before anything of it leaves: a payload, or what a request must first give. */
type Message =
	| { kind: 'ready'; payload: MessagePayload }
	| { kind: 'media'; input: ReturnType<typeof readMediaInput> }
	| { kind: 'templateById'; params: IDataObject };

/** Reads and checks the item's message of the chosen type (pure builders: a MessageInputError names the field). */
function readMessage(choice: MessageTypeChoice, params: IDataObject): Message {
	if (!(choice in BUILDERS)) return { kind: 'media', input: readMediaInput(choice as MediaKind, params) };
	// From Template: the placeholders are checked first, then the name and language are read from the template.
	if (choice === 'template' && isFromTemplate(params)) {
		templateComponents(params);
		return { kind: 'templateById', params };
	}
	return { kind: 'ready', payload: BUILDERS[choice as Exclude<MessageTypeChoice, MediaKind>](params) };
}

/** The payload once its media is uploaded (a file, or a URL downloaded) or its template read by ID. */
async function payloadOf(
	this: IExecuteFunctions,
	run: MessageRun,
	templates: Map<string, Promise<unknown>>,
	itemIndex: number,
	message: Message,
): Promise<MessagePayload> {
	if (message.kind === 'ready') return message.payload;
	if (message.kind === 'media') {
		const { input } = message;
		if (input.from.source === 'id') return buildMedia(input, input.from.mediaId);
		const uploaded =
			input.from.source === 'url'
				? await uploadMediaFromUrl.call(this, run, itemIndex, input.from.url, input.kind)
				: await uploadMediaFromBinary.call(this, run, itemIndex, input.from.binaryPropertyName, input.kind);
		return buildMedia(input, uploaded.id, uploaded.fileName);
	}
	const templateId = readTextParameter.call(this, TEMPLATE_ID_PARAMETER, itemIndex, 'Template ID', {
		required: 'enter the ID of the template to send (as Template > Create or Get answers it)',
	});
	if (!templates.has(templateId)) {
		templates.set(
			templateId,
			run.request({ endpoint: 'templates', method: 'GET', pathSuffix: `/${encodeURIComponent(templateId)}`, itemIndex }).then((answer) => answer.body),
		);
	}
	const template = await sharedRead(run, templates.get(templateId) as Promise<unknown>, itemIndex);
	// Hidden fields are normally empty here; a workflow that still carries a typed name or language is checked.
	const typed = { templateName: run.param('templateName', itemIndex, ''), templateLanguage: run.param('templateLanguage', itemIndex, '') };
	const identity = run.check(itemIndex, () => identityOfTemplate(template, templateId, typed));
	return run.check(itemIndex, () => buildTemplate({ ...message.params, ...identity }));
}

/**
 * Waits for a read the run's items share (a template read once for all items with its ID); its error is given again
 * under this item's index (an error names one item).
 */
async function sharedRead<T>(run: MessageRun, read: Promise<T>, itemIndex: number): Promise<T> {
	try {
		return await read;
	} catch (error) {
		if (!(error instanceof NodeApiError)) throw asNodeError(run.node, error, itemIndex);
		const again = apiError(run.context, (error.errorResponse ?? { message: error.message }) as JsonObject, {
			message: error.message,
			description: error.description ?? undefined,
			httpCode: error.httpCode ?? undefined,
			itemIndex,
		});
		again.context = { ...error.context, itemIndex };
		throw again;
	}
}

/**
 * What a failed item leaves in its campaign's record: a message whose request may have arrived stays claimed
 * (unknown: never sent again); a refusal of the message itself is recorded (a run again does not repeat it); anything
 * else sent nothing of the message (a bad input, an upload or a template read that failed even of unknown outcome, a
 * refusal that stops the run, a cancel before it left): its key is free again.
 */
function outcomeOf(error: unknown): ItemOutcome {
	const context = (error as { context?: { messageRequest?: 'refused' | 'unknown' } }).context;
	if (context?.messageRequest === 'unknown' && hasUnknownOutcome(error)) return 'unknown';
	return context?.messageRequest === 'refused' ? 'refused' : 'free';
}
