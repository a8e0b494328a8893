/** Text message (spec 2.2, type `text`): `{ text: { body } }`. */
import type { INodeProperties } from 'n8n-workflow';

import { type MessagePayload, requiredText, showForMessageTypes } from './common';

export const fields: INodeProperties[] = [
	{
		displayName: 'Text',
		name: 'textBody',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Hello! Your order has shipped.',
		description:
			'The message text. Line breaks are kept; *bold*, _italic_ and ~strikethrough~ use the network\'s own formatting.',
		displayOptions: showForMessageTypes(['text']),
	},
];

export interface TextParams {
	textBody?: unknown;
}

export type TextPayload = MessagePayload<'text', { body: string }>;

export function build(params: TextParams): TextPayload {
	// Not trimmed: leading spaces or a final line break may be intended; only an all-blank text is refused.
	requiredText(params.textBody, 'Text', 'enter the message to send');
	return { type: 'text', text: { body: String(params.textBody) } };
}
