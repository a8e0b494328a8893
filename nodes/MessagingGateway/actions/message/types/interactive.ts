/**
 * Interactive messages (spec 2.2, type `interactive`): for each, the fields the editor shows and a pure builder.
 *
 * - Reply buttons (interactive type `button`): a body, a footer that is null when absent, and 1-3 reply buttons with
 *   unique ids and titles of at most 20 characters (NETWORK_LIMITS).
 * - List (interactive type `list`): header text, body, footer, the label of the button that opens the list, and
 *   sections of rows (id, title, description), at most 10 rows in all (NETWORK_LIMITS). Row ids are unique across
 *   sections because the reply carries only the id. An empty header, footer, section title or row description is left
 *   out rather than sent as an empty string.
 */
import type { INodeProperties } from 'n8n-workflow';

import { NETWORK_LIMITS } from '../../../../gateway/spec';
import {
	characterCount,
	collectionEntries,
	MessageInputError,
	type MessagePayload,
	optionalText,
	requiredText,
	showForMessageTypes,
} from './common';

// ---- Reply buttons ----

const buttonsShow = showForMessageTypes(['interactiveButtons']);

export const buttonsFields: INodeProperties[] = [
	{
		displayName: 'Body Text',
		name: 'buttonsBody',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: 'e.g. Do you confirm your appointment tomorrow at 10:00?',
		description: 'The message text shown above the buttons',
		displayOptions: buttonsShow,
	},
	{
		displayName: 'Footer Text',
		name: 'buttonsFooter',
		type: 'string',
		default: '',
		placeholder: 'e.g. Reply by tapping a button',
		description: 'Optional small text below the body; leave empty for none',
		displayOptions: buttonsShow,
	},
	{
		displayName: 'Reply Buttons',
		name: 'replyButtons',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Reply Button',
		default: {},
		description: `Between 1 and ${NETWORK_LIMITS.maxReplyButtons} buttons. When the recipient taps one, its ID comes back in the reply notification.`,
		displayOptions: buttonsShow,
		options: [
			{
				displayName: 'Button',
				name: 'button',
				values: [
					{
						displayName: 'ID',
						name: 'id',
						type: 'string',
						default: '',
						placeholder: 'e.g. confirm',
						description: 'Identifier returned when this button is tapped; unique among the buttons',
					},
					{
						displayName: 'Title',
						name: 'title',
						type: 'string',
						default: '',
						placeholder: 'e.g. Confirm',
						description: `Label on the button, at most ${NETWORK_LIMITS.maxReplyButtonTitleLength} characters`,
					},
				],
			},
		],
	},
];

export interface InteractiveButtonsParams {
	buttonsBody?: unknown;
	buttonsFooter?: unknown;
	replyButtons?: unknown;
}

export type ReplyButton = { type: 'reply'; reply: { id: string; title: string } };
export type InteractiveButtonsPayload = MessagePayload<
	'interactive',
	{
		type: 'button';
		body: { text: string };
		footer: { text: string } | null;
		action: { buttons: ReplyButton[] };
	}
>;

export function buildButtons(params: InteractiveButtonsParams): InteractiveButtonsPayload {
	const body = requiredText(params.buttonsBody, 'Body Text', 'enter the text shown above the buttons');
	const footer = optionalText(params.buttonsFooter, 'Footer Text');

	const entries = collectionEntries(params.replyButtons, 'button', 'Reply Buttons');
	const { maxReplyButtons, maxReplyButtonTitleLength } = NETWORK_LIMITS;
	if (entries.length < 1 || entries.length > maxReplyButtons) {
		throw new MessageInputError(
			'Reply Buttons',
			`has ${entries.length} buttons; add between 1 and ${maxReplyButtons}`,
		);
	}

	const seenIds = new Set<string>();
	const buttons = entries.map((entry, i): ReplyButton => {
		const field = `Reply Buttons › button ${i + 1}`;
		const id = requiredText(entry.id, `${field} › ID`, 'enter the identifier returned when the button is tapped');
		if (seenIds.has(id)) throw new MessageInputError(`${field} › ID`, `"${id}" is used by another button; IDs must be unique`);
		seenIds.add(id);
		const title = requiredText(entry.title, `${field} › Title`, 'enter the label shown on the button');
		if (characterCount(title) > maxReplyButtonTitleLength) {
			throw new MessageInputError(
				`${field} › Title`,
				`"${title}" has ${characterCount(title)} characters; at most ${maxReplyButtonTitleLength} are allowed`,
			);
		}
		return { type: 'reply', reply: { id, title } };
	});

	return {
		type: 'interactive',
		interactive: {
			type: 'button',
			body: { text: body },
			footer: footer === '' ? null : { text: footer },
			action: { buttons },
		},
	};
}

// ---- List ----

const listShow = showForMessageTypes(['interactiveList']);

export const listFields: INodeProperties[] = [
	{
		displayName: 'Header Text',
		name: 'listHeader',
		type: 'string',
		default: '',
		placeholder: 'e.g. Our menu',
		description: 'Optional title above the body; leave empty for none',
		displayOptions: listShow,
	},
	{
		displayName: 'Body Text',
		name: 'listBody',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: 'e.g. Choose a delivery slot',
		description: 'The message text shown above the list button',
		displayOptions: listShow,
	},
	{
		displayName: 'Footer Text',
		name: 'listFooter',
		type: 'string',
		default: '',
		placeholder: 'e.g. Slots are held for 10 minutes',
		description: 'Optional small text below the body; leave empty for none',
		displayOptions: listShow,
	},
	{
		displayName: 'List Button Label',
		name: 'listButtonLabel',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. See options',
		description: 'Label of the button that opens the list',
		displayOptions: listShow,
	},
	{
		displayName: 'Sections',
		name: 'listSections',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Section',
		default: {},
		description: `Groups of rows the recipient picks from; at most ${NETWORK_LIMITS.maxListRows} rows in all sections together`,
		displayOptions: listShow,
		options: [
			{
				displayName: 'Section',
				name: 'section',
				values: [
					{
						displayName: 'Section Title',
						name: 'title',
						type: 'string',
						default: '',
						placeholder: 'e.g. Morning',
						description: 'Heading of the section; needed when there is more than one section',
					},
					{
						displayName: 'Rows',
						name: 'rows',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true, sortable: true },
						placeholder: 'Add Row',
						default: {},
						options: [
							{
								displayName: 'Row',
								name: 'row',
								values: [
									{
										displayName: 'ID',
										name: 'id',
										type: 'string',
										default: '',
										placeholder: 'e.g. slot_0900',
										description: 'Identifier returned when this row is picked; unique in the whole list',
									},
									{
										displayName: 'Title',
										name: 'title',
										type: 'string',
										default: '',
										placeholder: 'e.g. 09:00 - 10:00',
										description: 'Main text of the row',
									},
									{
										displayName: 'Description',
										name: 'description',
										type: 'string',
										default: '',
										description: 'Optional second line of the row',
									},
								],
							},
						],
					},
				],
			},
		],
	},
];

export interface InteractiveListParams {
	listHeader?: unknown;
	listBody?: unknown;
	listFooter?: unknown;
	listButtonLabel?: unknown;
	listSections?: unknown;
}

export type ListRow = { id: string; title: string; description?: string };
export type ListSection = { title?: string; rows: ListRow[] };
export type InteractiveListPayload = MessagePayload<
	'interactive',
	{
		type: 'list';
		header?: { type: 'text'; text: string };
		body: { text: string };
		footer?: { text: string };
		action: { button: string; sections: ListSection[] };
	}
>;

export function buildList(params: InteractiveListParams): InteractiveListPayload {
	const header = optionalText(params.listHeader, 'Header Text');
	const body = requiredText(params.listBody, 'Body Text', 'enter the text shown above the list button');
	const footer = optionalText(params.listFooter, 'Footer Text');
	const button = requiredText(params.listButtonLabel, 'List Button Label', 'enter the label of the button that opens the list');

	const sectionEntries = collectionEntries(params.listSections, 'section', 'Sections');
	if (sectionEntries.length === 0) throw new MessageInputError('Sections', 'add at least one section with one row');

	const seenIds = new Set<string>();
	let rowCount = 0;
	const sections = sectionEntries.map((entry, s): ListSection => {
		const sectionField = `Sections › section ${s + 1}`;
		const title = optionalText(entry.title, `${sectionField} › Section Title`);
		if (title === '' && sectionEntries.length > 1) {
			throw new MessageInputError(`${sectionField} › Section Title`, 'is required when the list has more than one section');
		}
		const rowEntries = collectionEntries(entry.rows, 'row', `${sectionField} › Rows`);
		if (rowEntries.length === 0) throw new MessageInputError(`${sectionField} › Rows`, 'add at least one row');
		const rows = rowEntries.map((rowEntry, r): ListRow => {
			const rowField = `${sectionField} › row ${r + 1}`;
			const id = requiredText(rowEntry.id, `${rowField} › ID`, 'enter the identifier returned when the row is picked');
			if (seenIds.has(id)) throw new MessageInputError(`${rowField} › ID`, `"${id}" is used by another row; IDs must be unique in the list`);
			seenIds.add(id);
			const rowTitle = requiredText(rowEntry.title, `${rowField} › Title`, 'enter the text of the row');
			const description = optionalText(rowEntry.description, `${rowField} › Description`);
			return description === '' ? { id, title: rowTitle } : { id, title: rowTitle, description };
		});
		rowCount += rows.length;
		return title === '' ? { rows } : { title, rows };
	});
	if (rowCount > NETWORK_LIMITS.maxListRows) {
		throw new MessageInputError('Sections', `have ${rowCount} rows in all; at most ${NETWORK_LIMITS.maxListRows} are allowed`);
	}

	return {
		type: 'interactive',
		interactive: {
			type: 'list',
			...(header === '' ? {} : { header: { type: 'text' as const, text: header } }),
			body: { text: body },
			...(footer === '' ? {} : { footer: { text: footer } }),
			action: { button, sections },
		},
	};
}
