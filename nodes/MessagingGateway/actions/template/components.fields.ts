/**
 * The component fields shared by Template > Create and Template > Edit (spec section 2.5): a builder for the body,
 * header, footer and URL buttons, or the components as JSON. Also reads them back, checks them (templates/check.ts)
 * and turns a problem into an error that names the item and the field.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { bodyExampleId, bodyExamplesField } from '../../methods';
import { checkTemplateComponents, type TemplateProblem } from '../../templates/check';
import {
	buildComponents,
	COMPONENT_FORMATS,
	parseComponentsJson,
	placeholder,
	placeholderSlots,
	placeholdersReadAsNumbers,
	type TemplateComponent,
} from '../../templates/components';
import { inputError, readTextOption, readTextParameter } from '../common';

type TemplateOperation = 'create' | 'edit';

/**
 * Node version 1 took the body examples as a list added one by one (`bodyExamples`); from 1.1 they are one field per
 * placeholder (`bodyExampleValues`). Version 1 nodes keep their list.
 */
export const BODY_EXAMPLES_PER_PLACEHOLDER_SINCE = 1.1;

const bodyTextDescription =
	'The message text. Placeholders are written {{1}}, {{2}} and so on. Keep the field Fixed: an expression reads {{1}} as the number 1 (in an expression, take the text from data, e.g. {{ $json.text }}).';

const formatOption = (format: string) => ({ name: format.charAt(0) + format.slice(1).toLowerCase(), value: format });

export function componentFields(operation: TemplateOperation): INodeProperties[] {
	const show = { resource: ['template'], operation: [operation] };
	const showFields = { show: { ...show, componentsInput: ['fields'] } };
	const keepsCurrent = operation === 'edit' ? ' With Start From Current Template on, leave empty to keep the current one.' : '';

	return [
		{
			displayName: 'Components',
			name: 'componentsInput',
			type: 'options',
			noDataExpression: true,
			options: [
				{ name: 'Using Fields Below', value: 'fields', description: 'Body, header, footer and URL buttons' },
				{ name: 'Using JSON', value: 'json', description: 'The components array as the gateway takes it' },
			],
			default: 'fields',
			displayOptions: { show },
		},
		{
			displayName: 'Body Text',
			name: 'bodyText',
			type: 'string',
			typeOptions: { rows: 4 },
			default: '',
			required: operation === 'create',
			placeholder: 'e.g. Hello {{1}}, your order {{2}} has shipped',
			description: bodyTextDescription + keepsCurrent,
			displayOptions: showFields,
		},
		{
			displayName: 'Body Format',
			name: 'bodyFormat',
			type: 'options',
			options: COMPONENT_FORMATS.map(formatOption),
			default: 'TEXT',
			description:
				'Format of the body component, almost always Text. The media of a template goes in its Header, not here.',
			displayOptions: showFields,
		},
		bodyExamplesField({
			show: { ...showFields.show, '@version': [{ _cnd: { gte: BODY_EXAMPLES_PER_PLACEHOLDER_SINCE } }] },
		}),
		{
			displayName: 'Body Examples',
			name: 'bodyExamples',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add Example',
			default: {},
			description:
				'One example value per placeholder of the body, in order: the first for {{1}}, the second for {{2}}. The network reviews the template with them.',
			displayOptions: { show: { ...showFields.show, '@version': [{ _cnd: { lt: BODY_EXAMPLES_PER_PLACEHOLDER_SINCE } }] } },
			options: [
				{
					displayName: 'Example',
					name: 'example',
					values: [{ displayName: 'Value', name: 'value', type: 'string', default: '', placeholder: 'e.g. Ana' }],
				},
			],
		},
		{
			displayName: 'Header',
			name: 'header',
			type: 'fixedCollection',
			placeholder: 'Add Header',
			default: {},
			description: `Optional header of the template.${keepsCurrent}`,
			displayOptions: showFields,
			options: [
				{
					displayName: 'Header',
					name: 'header',
					values: [
						{
							displayName: 'Format',
							name: 'format',
							type: 'options',
							options: COMPONENT_FORMATS.map(formatOption),
							default: 'TEXT',
							description:
								'Location is a static location header (service and marketing templates; live location sharing is not available)',
						},
						{
							displayName: 'Text',
							name: 'text',
							type: 'string',
							default: '',
							description: 'Header text; it may hold one placeholder {{1}}',
							displayOptions: { show: { format: ['TEXT'] } },
						},
						{
							displayName: 'Example',
							name: 'example',
							type: 'string',
							default: '',
							description:
								'For a text header: the example value of {{1}}. For an image, video or document header: the handle of a sample file.',
							displayOptions: { show: { format: ['TEXT', 'IMAGE', 'VIDEO', 'DOCUMENT'] } },
						},
					],
				},
			],
		},
		{
			displayName: 'Footer Text',
			name: 'footerText',
			type: 'string',
			default: '',
			description: `Optional footer line.${keepsCurrent}`,
			displayOptions: showFields,
		},
		{
			displayName: 'URL Buttons',
			name: 'urlButtons',
			type: 'fixedCollection',
			typeOptions: { multipleValues: true, sortable: true },
			placeholder: 'Add URL Button',
			default: {},
			description: `Optional buttons that open a web address.${keepsCurrent}`,
			displayOptions: showFields,
			options: [
				{
					displayName: 'Button',
					name: 'button',
					values: [
						{ displayName: 'Text', name: 'text', type: 'string', default: '', placeholder: 'e.g. Track order' },
						{
							displayName: 'URL',
							name: 'url',
							type: 'string',
							default: '',
							placeholder: 'e.g. https://shop.example.com/track/{{1}}',
							description: 'Web address; it may end with the placeholder {{1}}, filled when the message is sent',
						},
						{
							displayName: 'Example',
							name: 'example',
							type: 'string',
							default: '',
							placeholder: 'e.g. https://shop.example.com/track/42',
							description: 'Example of the full address, needed when the URL has {{1}}',
						},
					],
				},
			],
		},
		{
			displayName: 'Components (JSON)',
			name: 'componentsJson',
			type: 'json',
			default: '[\n  {\n    "type": "BODY",\n    "text": "Hello {{1}}",\n    "example": { "body_text": [["Ana"]] }\n  }\n]',
			description: `Array of components: BODY, HEADER, FOOTER, BUTTONS.${keepsCurrent}`,
			displayOptions: { show: { ...show, componentsInput: ['json'] } },
		},
	];
}

/** Field names of the builder by the place of a problem, to name the field in errors. */
function fieldOf(problem: TemplateProblem, input: string): string {
	if (input === 'json') return 'Components (JSON)';
	if (problem.place === 'BODY') return problem.aspect === 'examples' ? 'Body Examples' : 'Body Text';
	if (problem.place === 'HEADER') return 'Header';
	if (problem.place === 'FOOTER') return 'Footer Text';
	if (problem.place === 'BUTTONS') return 'URL Buttons';
	return 'Components';
}

export interface ReadComponents {
	/** How the user gave the components: 'fields' or 'json'. */
	input: string;
	components: TemplateComponent[];
}

/** The components the user set on this item, read from the builder fields or the JSON field. */
export function readComponents(this: IExecuteFunctions, itemIndex: number): ReadComponents {
	const input = this.getNodeParameter('componentsInput', itemIndex, 'fields') as string;
	if (input === 'json') {
		const parsed = parseComponentsJson(this.getNodeParameter('componentsJson', itemIndex, ''));
		if ('error' in parsed) {
			throw inputError(this.getNode(), itemIndex, 'Components (JSON)', parsed.error);
		}
		return { input, components: parsed.components };
	}

	refusePlaceholdersReadAsNumbers.call(this, itemIndex);
	const text = (value: unknown, field: string) => readTextOption.call(this, value, itemIndex, field);
	const optionalText = (value: unknown, field: string) => text(value, field) || undefined;
	const header = this.getNodeParameter('header.header', itemIndex, {}) as IDataObject;
	const buttons = this.getNodeParameter('urlButtons.button', itemIndex, []) as IDataObject[];
	const bodyText = readTextParameter.call(this, 'bodyText', itemIndex, 'Body Text', { keepSpaces: true });
	const components = buildComponents({
		bodyText,
		bodyFormat: readTextParameter.call(this, 'bodyFormat', itemIndex, 'Body Format') || 'TEXT',
		bodyExamples: readBodyExamples.call(this, itemIndex, bodyText),
		header: header.format
			? {
					format: text(header.format, 'Header › Format'),
					text: optionalText(header.text, 'Header › Text'),
					example: optionalText(header.example, 'Header › Example'),
				}
			: undefined,
		footerText: readTextParameter.call(this, 'footerText', itemIndex, 'Footer Text', { keepSpaces: true }),
		urlButtons: buttons.map((button, i) => ({
			text: text(button.text, `URL Buttons › button ${i + 1} › Text`),
			url: text(button.url, `URL Buttons › button ${i + 1} › URL`),
			example: optionalText(button.example, `URL Buttons › button ${i + 1} › Example`),
		})),
	});
	return { input, components };
}

/**
 * Refuses a text field whose placeholders n8n reads as numbers because it is an expression (`=Hi {{1}}` would create
 * a template "Hi 1"). Reads the fields as saved, before n8n resolves them; nothing has been sent.
 */
function refusePlaceholdersReadAsNumbers(this: IExecuteFunctions, itemIndex: number): void {
	const saved = this.getNode().parameters;
	const header = (saved.header as IDataObject | undefined)?.header as IDataObject | undefined;
	const buttons = ((saved.urlButtons as IDataObject | undefined)?.button ?? []) as IDataObject[];
	const fields: Array<[string, unknown]> = [
		['Body Text', saved.bodyText],
		['Header › Text', header?.text],
		...buttons.map((button, i): [string, unknown] => [`URL Buttons › button ${i + 1} › URL`, button.url]),
	];
	for (const [field, raw] of fields) {
		const read = placeholdersReadAsNumbers(raw);
		if (!read.length) continue;
		throw inputError(
			this.getNode(),
			itemIndex,
			field,
			`is an expression, so n8n reads ${read.join(', ')} as ${read.length === 1 ? 'a number' : 'numbers'}, not as ${read.length === 1 ? 'a placeholder' : 'placeholders'}: switch the field to Fixed (a text with {{ }} pasted into an empty field becomes an expression), or take the text from data, e.g. {{ $json.text }}`,
		);
	}
}

/**
 * The body's example values in placeholder order. From version 1.1 one field per placeholder of the body text:
 * values of placeholders the text no longer has are left out (their fields are gone from the panel too).
 */
function readBodyExamples(this: IExecuteFunctions, itemIndex: number, bodyText: string): string[] {
	if (this.getNode().typeVersion < BODY_EXAMPLES_PER_PLACEHOLDER_SINCE) {
		const examples = this.getNodeParameter('bodyExamples.example', itemIndex, []) as IDataObject[];
		return examples.map((example, i) => readTextOption.call(this, example.value, itemIndex, `Body Examples › example ${i + 1}`));
	}
	const values = (this.getNodeParameter('bodyExampleValues.value', itemIndex, {}) ?? {}) as IDataObject;
	return placeholderSlots(bodyText).map((n) =>
		readTextOption.call(this, values[bodyExampleId(n)] ?? '', itemIndex, `Body Examples › Example for ${placeholder(n)}`),
	);
}

/** Refuses the item when its components break the placeholder rules, naming the field; nothing has been sent. */
export function assertComponents(
	this: IExecuteFunctions,
	itemIndex: number,
	read: ReadComponents,
	requireBody: boolean,
): void {
	const problems = checkTemplateComponents(read.components, { requireBody });
	if (!problems.length) return;
	const [first] = problems;
	throw inputError(
			this.getNode(),
			itemIndex,
		fieldOf(first, read.input),
		first.message,
		problems.map((problem) => `${fieldOf(problem, read.input)}: ${problem.message}.`).join('\n') +
			'\nNothing was sent to the gateway.',
	);
}
