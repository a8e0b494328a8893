/**
 * Template > Create and Edit: one example field per numbered placeholder of the Body Text ({{1}}, {{2}}, …), listed
 * from the text as the user types it, so that nobody counts placeholders or adds examples one by one.
 */
import type { ILoadOptionsFunctions, INodeProperties, ResourceMapperFields } from 'n8n-workflow';

import { placeholder, placeholderSlots, placeholdersReadAsNumbers } from '../templates/components';

/** The node parameter whose placeholders get an example field each. */
export const BODY_TEXT_PARAMETER = 'bodyText';

/** The resource-mapper field id of placeholder n: its number (`'1'` for {{1}}). */
export const bodyExampleId = (n: number) => String(n);

/** resourceMapping: a text field per placeholder of the Body Text, {{1}} first. */
export async function getBodyExampleFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	// The text as typed in the editor (raw: an expression keeps its leading '=').
	const raw = this.getCurrentNodeParameter(BODY_TEXT_PARAMETER);
	const readAsNumbers = placeholdersReadAsNumbers(raw);
	if (readAsNumbers.length) {
		return {
			fields: [],
			emptyFieldsNotice: `The Body Text is an expression, so n8n reads ${readAsNumbers.join(', ')} as numbers: switch it to Fixed to get one example field per placeholder`,
		};
	}
	const text = typeof raw === 'string' ? raw : '';
	const slots = placeholderSlots(text);
	return {
		fields: slots.map((n) => ({
			id: bodyExampleId(n),
			displayName: `Example for ${placeholder(n)}`,
			// Checked by the node itself, which names the item and the placeholder (n8n's own check names neither).
			required: false,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		})),
		emptyFieldsNotice: text.trim().startsWith('=')
			? 'The Body Text is an expression: its placeholders are known only when the node runs. Keep it Fixed to get one example field per placeholder, or give the components as JSON.'
			: noPlaceholderNotice(text),
	};
}

/**
 * The editor sends the Body Text resolved: a text with {{1}} pasted into the empty field became an expression, which
 * reaches this method as "Hi 1, ..." (no '=' left to see). Numbers 1, 2, ... standing alone where placeholders would
 * be are what such a text looks like, so the notice says what the run-time error says (components.fields.ts).
 */
export function noPlaceholderNotice(text: string): string {
	const numbers = [...new Set(text.match(/(?<![\d.,])[1-9](?!\d|[.,]\d)/g) ?? [])].map(Number).sort((a, b) => a - b);
	if (numbers[0] !== 1) return 'The Body Text has no placeholders {{1}}, {{2}}: no examples are needed';
	const read = numbers.filter((n, i) => n === i + 1).map((n) => placeholder(n));
	return `The Body Text reads the number${read.length > 1 ? 's' : ''} ${numbers.slice(0, read.length).join(', ')} where ${read.join(', ')} may have been: a text with {{ }} pasted into an empty field becomes an expression, and n8n reads ${read.join(', ')} as ${read.length > 1 ? 'numbers' : 'a number'}. If the field shows Expression, switch it to Fixed to get one example field per placeholder (Execute refuses the expression for the same reason).`;
}

/** The Body Examples field: its value is `{ value: { '1': 'Ana', '2': '#42' } }`. */
export function bodyExamplesField(displayOptions: INodeProperties['displayOptions']): INodeProperties {
	return {
		displayName: 'Body Examples',
		name: 'bodyExampleValues',
		type: 'resourceMapper',
		noDataExpression: true,
		default: { mappingMode: 'defineBelow', value: null },
		description:
			'An example value for each placeholder of the Body Text; the network reviews the template with them',
		hint: 'One field per placeholder {{1}}, {{2}}… of the Body Text, listed as you type it',
		typeOptions: {
			loadOptionsDependsOn: [BODY_TEXT_PARAMETER],
			resourceMapper: {
				resourceMapperMethod: 'getBodyExampleFields',
				mode: 'add',
				valuesLabel: 'Body Examples',
				fieldWords: { singular: 'example', plural: 'examples' },
				addAllFields: true,
				multiKeyMatch: false,
				supportAutoMap: false,
			},
		},
		displayOptions,
	};
}
