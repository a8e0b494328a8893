/**
 * Interactive reply-buttons message (spec 2.2, type `interactive`, interactive type `button`): a body, a footer that
 * is null when absent, and 1-3 reply buttons with unique ids and titles of at most 20 characters (NETWORK_LIMITS).
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

const show = showForMessageTypes(['interactiveButtons']);

export const fields: INodeProperties[] = [
	{
		displayName: 'Body Text',
		name: 'buttonsBody',
		type: 'string',
		typeOptions: { rows: 3 },
		default: '',
		required: true,
		placeholder: 'e.g. Do you confirm your appointment tomorrow at 10:00?',
		description: 'The message text shown above the buttons',
		displayOptions: show,
	},
	{
		displayName: 'Footer Text',
		name: 'buttonsFooter',
		type: 'string',
		default: '',
		placeholder: 'e.g. Reply by tapping a button',
		description: 'Optional small text below the body; leave empty for none',
		displayOptions: show,
	},
	{
		displayName: 'Reply Buttons',
		name: 'replyButtons',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Reply Button',
		default: {},
		description: `Between 1 and ${NETWORK_LIMITS.maxReplyButtons} buttons. When the recipient taps one, its ID comes back in the reply notification.`,
		displayOptions: show,
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

export function build(params: InteractiveButtonsParams): InteractiveButtonsPayload {
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
