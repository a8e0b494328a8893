/**
 * Template message (spec 2.2, type `template`): name, language `{ policy: 'deterministic', code: 'xx_XX' }` and the
 * components that fill the template's placeholders: one `body` component with the texts for {{1}}, {{2}}, ... in
 * order, and one `button` component (sub_type `url`, index as numeric text) per URL button with a dynamic suffix.
 */
import type { INodeProperties } from 'n8n-workflow';

import {
	collectionEntries,
	MessageInputError,
	type MessagePayload,
	readString,
	requiredText,
	showForMessageTypes,
} from './common';

const show = showForMessageTypes(['template']);

export const fields: INodeProperties[] = [
	{
		displayName: 'Template Name',
		name: 'templateName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. order_shipped',
		description: 'Name of an approved template, exactly as registered (lowercase letters, digits and underscores)',
		displayOptions: show,
	},
	{
		displayName: 'Language Code',
		name: 'templateLanguage',
		type: 'string',
		default: 'pt_BR',
		required: true,
		placeholder: 'e.g. pt_BR',
		description: 'Locale of the template version to send, in the form xx_XX such as pt_BR or en_US',
		displayOptions: show,
	},
	{
		displayName: 'Body Parameters',
		name: 'templateBodyParameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Body Parameter',
		default: {},
		description: 'Texts that fill the placeholders of the template body in order: the first fills {{1}}, the second {{2}}, and so on',
		displayOptions: show,
		options: [
			{
				displayName: 'Parameter',
				name: 'parameter',
				values: [
					{
						displayName: 'Text',
						name: 'text',
						type: 'string',
						default: '',
						description: 'The text that replaces this placeholder',
					},
				],
			},
		],
	},
	{
		displayName: 'URL Button Parameters',
		name: 'templateButtonParameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add URL Button Parameter',
		default: {},
		description: 'For URL buttons whose address ends in {{1}}: the text appended to the address of each button',
		displayOptions: show,
		options: [
			{
				displayName: 'Button',
				name: 'button',
				values: [
					{
						displayName: 'Button Index',
						name: 'index',
						type: 'number',
						typeOptions: { minValue: 0 },
						default: 0,
						description: 'Position of the button in the template, counting from 0',
					},
					{
						displayName: 'Text',
						name: 'text',
						type: 'string',
						default: '',
						placeholder: 'e.g. order/12345',
						description: 'The text that replaces {{1}} in the address of this button',
					},
				],
			},
		],
	},
];

export interface TemplateParams {
	templateName?: unknown;
	templateLanguage?: unknown;
	templateBodyParameters?: unknown;
	templateButtonParameters?: unknown;
}

type TextParameter = { type: 'text'; text: string };
export type TemplateComponent =
	| { type: 'body'; parameters: TextParameter[] }
	| { type: 'button'; sub_type: 'url'; index: string; parameters: TextParameter[] };

export type TemplatePayload = MessagePayload<
	'template',
	{ name: string; language: { policy: 'deterministic'; code: string }; components: TemplateComponent[] }
>;

/** `pt-BR`, `pt_br`, ` PT_BR ` → `pt_BR`; anything that is not two letters, a separator and two letters is refused. */
export function normalizeLanguageCode(value: unknown, field = 'Language Code'): string {
	const raw = requiredText(value, field, 'use the form xx_XX, e.g. pt_BR');
	const match = /^([a-z]{2})[_-]([a-z]{2})$/i.exec(raw);
	if (!match) throw new MessageInputError(field, `"${raw}" is not in the form xx_XX, e.g. pt_BR or en_US`);
	return `${match[1].toLowerCase()}_${match[2].toUpperCase()}`;
}

export function build(params: TemplateParams): TemplatePayload {
	const name = requiredText(params.templateName, 'Template Name', 'enter the name of an approved template');
	if (/\s/.test(name)) throw new MessageInputError('Template Name', `"${name}" contains spaces; template names never do`);
	const code = normalizeLanguageCode(params.templateLanguage);

	const components: TemplateComponent[] = [];

	const bodyEntries = collectionEntries(params.templateBodyParameters, 'parameter', 'Body Parameters');
	if (bodyEntries.length > 0) {
		const parameters = bodyEntries.map((entry, i) => {
			const text = readString(entry.text, `Body Parameters › {{${i + 1}}}`);
			// The network refuses an empty placeholder value, so say which one before anything is sent.
			if (text.trim() === '') {
				throw new MessageInputError(`Body Parameters › {{${i + 1}}}`, 'is empty; every placeholder needs a text');
			}
			return { type: 'text' as const, text };
		});
		components.push({ type: 'body', parameters });
	}

	const seenIndexes = new Set<number>();
	for (const [i, entry] of collectionEntries(params.templateButtonParameters, 'button', 'URL Button Parameters').entries()) {
		const field = `URL Button Parameters › entry ${i + 1}`;
		const index = Number(readString(entry.index, `${field} › Button Index`).trim() || NaN);
		if (!Number.isInteger(index) || index < 0) {
			throw new MessageInputError(`${field} › Button Index`, `must be a whole number from 0, got "${String(entry.index)}"`);
		}
		if (seenIndexes.has(index)) {
			throw new MessageInputError(`${field} › Button Index`, `button ${index} is given twice; a URL button takes one text`);
		}
		seenIndexes.add(index);
		const text = readString(entry.text, `${field} › Text`);
		if (text.trim() === '') throw new MessageInputError(`${field} › Text`, 'is empty; enter the text for {{1}} of the button address');
		components.push({ type: 'button', sub_type: 'url', index: String(index), parameters: [{ type: 'text', text }] });
	}

	return { type: 'template', template: { name, language: { policy: 'deterministic', code }, components } };
}
