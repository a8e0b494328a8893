/**
 * Interactive list message (spec 2.2, type `interactive`, interactive type `list`): header text, body, footer, the
 * label of the button that opens the list, and sections of rows (id, title, description), at most 10 rows in all
 * (NETWORK_LIMITS). Row ids are unique across sections because the reply carries only the id.
 * An empty header, footer, section title or row description is left out rather than sent as an empty string.
 */
import type { INodeProperties } from 'n8n-workflow';

import { NETWORK_LIMITS } from '../../../../gateway/spec';
import {
	collectionEntries,
	MessageInputError,
	type MessagePayload,
	optionalText,
	requiredText,
	showForMessageTypes,
} from './common';

const show = showForMessageTypes(['interactiveList']);

export const fields: INodeProperties[] = [
	{
		displayName: 'Header Text',
		name: 'listHeader',
		type: 'string',
		default: '',
		placeholder: 'e.g. Our menu',
		description: 'Optional title above the body; leave empty for none',
		displayOptions: show,
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
		displayOptions: show,
	},
	{
		displayName: 'Footer Text',
		name: 'listFooter',
		type: 'string',
		default: '',
		placeholder: 'e.g. Slots are held for 10 minutes',
		description: 'Optional small text below the body; leave empty for none',
		displayOptions: show,
	},
	{
		displayName: 'List Button Label',
		name: 'listButtonLabel',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. See options',
		description: 'Label of the button that opens the list',
		displayOptions: show,
	},
	{
		displayName: 'Sections',
		name: 'listSections',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Section',
		default: {},
		description: `Groups of rows the recipient picks from; at most ${NETWORK_LIMITS.maxListRows} rows in all sections together`,
		displayOptions: show,
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

export function build(params: InteractiveListParams): InteractiveListPayload {
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
