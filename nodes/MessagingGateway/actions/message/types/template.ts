/**
 * Template message (spec 2.2, type `template`): name, language `{ policy: 'deterministic', code: 'xx_XX' }` and the
 * components that fill the template's placeholders: one `body` component with the texts for {{1}}, {{2}}, ... in
 * order, and one `button` component (sub_type `url`, index as numeric text) per URL button with a dynamic suffix.
 *
 * Either everything is entered by hand (the first way, still the default), or the template is given by its ID: a
 * resource mapper reads it in the editor and lists one required field per placeholder, and when the node runs the
 * send operation reads it again (once per ID per run, send.operation.ts) for the name and language it is sent
 * under, so that they cannot disagree with the template. `build()` stays pure: it gets them as parameters.
 */
import type { INodeProperties } from 'n8n-workflow';

import { buildMessageComponents, checkTemplateName, parametersFromIds } from '../../../templates/components';

import {
	collectionEntries,
	MessageInputError,
	type MessagePayload,
	isPlainObject,
	readString,
	requiredText,
	showForMessageTypes,
} from './common';

/** The node parameter that carries the template ID (methods/templateParameters.ts lists its placeholders from it). */
export const TEMPLATE_ID_PARAMETER = 'templateId';

/**
 * A ready resource-mapper field for a template message. Its value is `{ value: { body_1: '…', … } }`; build the
 * message components with `buildMessageComponents(parametersFromIds(Object.keys(value)), value)`.
 */
function templateParametersField(
	name: string,
	displayOptions: INodeProperties['displayOptions'],
): INodeProperties {
	return {
		displayName: 'Template Parameters',
		name,
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		required: true,
		typeOptions: {
			loadOptionsDependsOn: [TEMPLATE_ID_PARAMETER],
			resourceMapper: {
				resourceMapperMethod: 'getTemplateParameterFields',
				mode: 'add',
				fieldWords: { singular: 'parameter', plural: 'parameters' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
		displayOptions,
	};
}

const show = showForMessageTypes(['template']);

/** Values of the "Template Details" choice; a workflow saved before the choice existed has none and means by hand. */
export type TemplateParameterSource = 'manual' | 'fromTemplate';
const showByHand = showForMessageTypes(['template'], { templateParameterSource: ['manual'] });
const showFromTemplate = showForMessageTypes(['template'], { templateParameterSource: ['fromTemplate'] });

const MAPPER_FIELD = 'Template Parameters';
const CHOICE_FIELD = 'Template Details';

export const fields: INodeProperties[] = [
	{
		displayName: CHOICE_FIELD,
		name: 'templateParameterSource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Define by Hand',
				value: 'manual',
				description:
					'Enter the template’s name and language, the texts of the body placeholders in order and of the URL buttons by position',
			},
			{
				name: 'From Template',
				value: 'fromTemplate',
				description:
					'Give the template’s ID: its name and language are read from the template, and one field is listed per placeholder it has',
			},
		],
		default: 'manual',
		description: 'How the template to send and the texts of its placeholders ({{1}}, {{2}}, ...) are given',
		displayOptions: show,
	},
	{
		displayName: 'Template Name',
		name: 'templateName',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. order_shipped',
		description:
			'Name of an approved template, exactly as registered (lowercase letters, digits and underscores)',
		displayOptions: showByHand,
	},
	{
		displayName: 'Language Code',
		name: 'templateLanguage',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. pt_BR',
		description: 'Locale of the template version to send, in the form xx_XX such as pt_BR or en_US',
		displayOptions: showByHand,
	},
	{
		displayName: 'Template ID',
		name: TEMPLATE_ID_PARAMETER,
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 123456789012345',
		description:
			'The message is sent under this template’s own name and language, read by its ID when the node runs; with a fixed ID the editor lists its placeholders below',
		hint: 'Where to find it: the id field in the output of Template > Create, the operation that registered the template (Template > Get reads a template by it). The gateway lists no templates to pick from.',
		displayOptions: showFromTemplate,
	},
	templateParametersField('templateParameters', showFromTemplate),
	{
		displayName: 'Body Parameters',
		name: 'templateBodyParameters',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Body Parameter',
		default: {},
		description: 'Texts that fill the placeholders of the template body in order: the first fills {{1}}, the second {{2}}, and so on',
		displayOptions: showByHand,
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
		displayOptions: showByHand,
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
	templateParameterSource?: unknown;
	/** The resource mapper's value: `{ mappingMode, value: { body_1: '…' }, schema: [{ id: 'body_1', … }] }`. */
	templateParameters?: unknown;
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
	const checkedName = checkTemplateName(name);
	if ('problem' in checkedName) throw new MessageInputError('Template Name', checkedName.problem);
	const fromTemplate = isFromTemplate(params);
	// From a template, name and language are the template's own (identityOfTemplate), sent as the network has them.
	const code = fromTemplate
		? requiredText(params.templateLanguage, 'Language Code', 'the template has no language')
		: normalizeLanguageCode(params.templateLanguage);

	const components = templateComponents(params);

	return { type: 'template', template: { name, language: { policy: 'deterministic', code }, components } };
}

/** The components that fill the placeholders; checked on their own before a template given by ID is read. */
export function templateComponents(params: TemplateParams): TemplateComponent[] {
	return isFromTemplate(params) ? componentsFromTemplate(params.templateParameters) : componentsByHand(params);
}

/** Whether the template is given by its ID (its name and language then come from the template). */
export function isFromTemplate(params: TemplateParams): boolean {
	return parameterSource(params.templateParameterSource) === 'fromTemplate';
}

/** The name and language of a template as the gateway answers it (spec 2.5, read response). */
export interface TemplateIdentity {
	templateName: string;
	templateLanguage: string;
}

/**
 * The name and language to send a template under, from the template read by ID. A name or language also typed
 * (a workflow that still carries them) must be the template's own: a mismatch is refused naming both.
 */
export function identityOfTemplate(
	template: unknown,
	templateId: string,
	typed: { templateName?: unknown; templateLanguage?: unknown } = {},
): TemplateIdentity {
	const read = isPlainObject(template) ? template : {};
	const name = typeof read.name === 'string' ? read.name.trim() : '';
	const language = typeof read.language === 'string' ? read.language.trim() : '';
	// The template's own language is taken as it is: it is what the network registered.
	if (name === '' || language === '' || /\s/.test(name + language)) {
		throw new MessageInputError(
			'Template ID',
			`the gateway's answer for template ${templateId} has no usable ${name === '' || /\s/.test(name) ? 'name' : 'language'}`,
		);
	}
	const typedName = readString(typed.templateName ?? '', 'Template Name').trim();
	if (typedName !== '' && typedName !== name) {
		throw new MessageInputError('Template Name', `"${typedName}" is not the name of template ${templateId}, which is "${name}"`);
	}
	const typedLanguage = readString(typed.templateLanguage ?? '', 'Language Code').trim();
	const sameLanguage = (a: string, b: string) => a.replace('-', '_').toLowerCase() === b.replace('-', '_').toLowerCase();
	if (typedLanguage !== '' && !sameLanguage(typedLanguage, language)) {
		throw new MessageInputError(
			'Language Code',
			`"${typedLanguage}" is not the language of template ${templateId}, which is "${language}"`,
		);
	}
	return { templateName: name, templateLanguage: language };
}

function parameterSource(value: unknown): TemplateParameterSource {
	if (value === undefined || value === null || value === '' || value === 'manual') return 'manual';
	if (value === 'fromTemplate') return 'fromTemplate';
	throw new MessageInputError(CHOICE_FIELD, `"${readString(value, CHOICE_FIELD)}" is not a choice; use Define by Hand or From Template`);
}

function componentsByHand(params: TemplateParams): TemplateComponent[] {
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

	return components;
}

/**
 * The components from the resource mapper's value. The placeholders the template has are the mapper's `schema` (the
 * fields listed when the template was read in the editor); a value for an id that is not in it is left out, since
 * the template no longer has that placeholder. Every listed placeholder needs a value.
 */
function componentsFromTemplate(mapper: unknown): TemplateComponent[] {
	const schema = isPlainObject(mapper) ? mapper.schema : undefined;
	if (!Array.isArray(schema)) {
		// Without a schema the placeholders were never listed: sending no parameters would hide the mistake.
		throw new MessageInputError(
			MAPPER_FIELD,
			'the placeholders of the template were never listed; enter a fixed Template ID and let the editor load its parameters',
		);
	}
	const ids = schema.map((field) => (isPlainObject(field) ? readString(field.id, MAPPER_FIELD) : ''));
	const parameters = parametersFromIds(ids);
	const rawValues = isPlainObject(mapper) && isPlainObject(mapper.value) ? mapper.value : {};

	const header = parameters.find((parameter) => parameter.component === 'header');
	if (header) {
		// Spec 2.2 knows only `body` and `button` message components, so a header placeholder cannot be filled.
		throw new MessageInputError(
			`${MAPPER_FIELD} › ${header.displayName}`,
			'the template has a placeholder in its header, which a message cannot fill (the gateway takes only body and URL-button parameters); use a template whose header has no placeholder',
		);
	}

	const values: Record<string, string> = {};
	for (const parameter of parameters) {
		values[parameter.id] = readString(rawValues[parameter.id], `${MAPPER_FIELD} › ${parameter.displayName}`);
	}
	const { components, missing } = buildMessageComponents(parameters, values);
	if (missing.length > 0) {
		const others = missing.length > 1 ? ` (also empty: ${missing.slice(1).join(', ')})` : '';
		throw new MessageInputError(
			`${MAPPER_FIELD} › ${missing[0]}`,
			`is empty; every placeholder of the template needs a value${others}`,
		);
	}
	return components.map((component): TemplateComponent =>
		component.type === 'button'
			? { type: 'button', sub_type: 'url', index: component.index ?? '0', parameters: component.parameters }
			: { type: 'body', parameters: component.parameters },
	);
}
