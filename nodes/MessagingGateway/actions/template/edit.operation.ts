/**
 * Template > Edit (`PUT /api/Templates/{id}`, version 5.0). The gateway replaces the whole template, so by default
 * the node reads the current template first and changes only what the user set. The current template is always
 * read, also to refuse before sending an edit the rules forbid (spec sections 3, 4.5 and 8): a status other than
 * approved, rejected or paused. The category is always the current one: an edit cannot change it.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { gatewayRequest } from '../../../gateway/transport';
import { componentType, mergeComponents, type GatewayTemplate } from '../../templates/components';
import { editRefusal, TEMPLATE_EDIT_RULES } from '../../templates/editRules';
import { asNodeError, inputError, optionsWithTimeout, readTextOption, timeoutMsOf } from '../common';
import { assertLanguage, assertTemplateName, readTemplateId, templateIdField } from './common';
import { assertComponents, componentFields, readComponents } from './components.fields';

const show = { resource: ['template'], operation: ['edit'] };

export const description: INodeProperties[] = [
	templateIdField('edit'),
	{
		displayName:
			'The gateway replaces the whole template on edit: name, language, category and every component. Only approved, rejected or paused templates can be edited, and an approved one at most 10 times in 30 days or once in 24 hours.',
		name: 'editNotice',
		type: 'notice',
		default: '',
		displayOptions: { show },
	},
	{
		displayName: 'Start From Current Template',
		name: 'startFromCurrent',
		type: 'boolean',
		default: true,
		description:
			'Whether to keep what is not set below from the current template. Off, the components set below are the whole new content (for example to remove a footer).',
		displayOptions: { show },
	},
	{
		displayName: 'Update Fields',
		name: 'updateFields',
		type: 'collection',
		placeholder: 'Add Field',
		default: {},
		// No Category: an edit cannot change it (spec section 8), so the current one is always sent.
		description: 'Fields left out keep their current value. The category cannot be changed by an edit.',
		displayOptions: { show },
		options: [
			{
				displayName: 'Language',
				name: 'language',
				type: 'string',
				default: '',
				placeholder: 'e.g. pt_BR',
				description: 'Locale code of the template, in the form xx_XX',
			},
			{
				displayName: 'Name',
				name: 'name',
				type: 'string',
				default: '',
				placeholder: 'e.g. order_shipped',
			},
		],
	},
	...componentFields('edit'),
	optionsWithTimeout(show),
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readTemplateId.call(this, itemIndex);
	const startFromCurrent = this.getNodeParameter('startFromCurrent', itemIndex, true) as boolean;
	const updates = this.getNodeParameter('updateFields', itemIndex, {}) as IDataObject;
	const name = readTextOption.call(this, updates.name, itemIndex, 'Update Fields › Name');
	if (name !== '') assertTemplateName.call(this, itemIndex, name, 'Update Fields › Name');
	const language = readTextOption.call(this, updates.language, itemIndex, 'Update Fields › Language');
	if (updates.language !== undefined) assertLanguage.call(this, itemIndex, language, 'Update Fields › Language');
	const read = readComponents.call(this, itemIndex);
	assertComponents.call(this, itemIndex, read, !startFromCurrent);
	if (startFromCurrent && !read.components.length && !name && !language) {
		// Sending the same content again would still count against the edit quota of an approved template.
		throw inputError(
			this.getNode(),
			itemIndex,
			'Update Fields',
			'nothing to change: set a field or a component to edit',
			'With Start From Current Template on, only what you set is changed, and nothing was set. Nothing was sent.',
		);
	}

	const current = (
		await gatewayRequest.call(this, {
			endpoint: 'templates',
			method: 'GET',
			pathSuffix: `/${encodeURIComponent(id)}`,
			itemIndex,
			timeoutMs: timeoutMsOf.call(this, itemIndex),
		})
	).body as GatewayTemplate;

	const refusal = editRefusal(current);
	if (refusal) {
		throw inputError(this.getNode(), itemIndex, 'Template ID', `template ${id} cannot be edited: ${refusal}`, `${TEMPLATE_EDIT_RULES} Nothing was sent.`);
	}

	const currentComponents = Array.isArray(current.components) ? current.components : [];
	const components = startFromCurrent ? mergeComponents(currentComponents, read.components) : read.components;
	if (!components.some((component) => componentType(component) === 'BODY')) {
		throw inputError(
			this.getNode(),
			itemIndex,
			'Body Text',
			'the edited template would have no body',
			'A template needs a BODY component with text. Nothing was sent.',
		);
	}
	const body: IDataObject = {
		name: name || current.name,
		language: language || current.language,
		category: current.category,
		components: components as IDataObject[],
	};

	let response;
	try {
		response = await gatewayRequest.call(this, {
			endpoint: 'templates',
			method: 'PUT',
			pathSuffix: `/${encodeURIComponent(id)}`,
			body,
			itemIndex,
			timeoutMs: timeoutMsOf.call(this, itemIndex),
		});
	} catch (error) {
		if (error instanceof NodeApiError) {
			// The gateway's refusal rarely says which edit rule was broken; the rules help the user find it.
			error.description = [error.description, `Edit rules: ${TEMPLATE_EDIT_RULES}`].filter(Boolean).join('\n\n');
		}
		throw asNodeError(this.getNode(), error, itemIndex);
	}
	return { ...response.body, id, ...body };
}
