/**
 * Template > Create (`POST /api/Templates`, version 5.0). The content is checked first (a body with text, numbered
 * placeholders with examples); the gateway answers 201 when it created the template and 200 when a template of
 * that name already exists, which it leaves unchanged (spec sections 3 and 4.4).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { PHONE_ID_QUERY_PARAM } from '../../../gateway/spec';
import { gatewayRequest } from '../../../gateway/transport';
import { readTextOption, readTextParameter, timeoutMsOf, timeoutOption } from '../common';
import { assertCategory, assertLanguage, assertTemplateName, CATEGORY_DESCRIPTION, categoryOptions } from './common';
import { assertComponents, componentFields, readComponents } from './components.fields';

const show = { resource: ['template'], operation: ['create'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Name',
		name: 'name',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. order_shipped',
		description: 'Name of the template; the network expects lowercase letters, digits and underscores',
		displayOptions: { show },
	},
	{
		displayName: 'Language',
		name: 'language',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. pt_BR',
		description: 'Locale code of the template, in the form xx_XX',
		displayOptions: { show },
	},
	{
		displayName: 'Category',
		name: 'category',
		type: 'options',
		options: categoryOptions,
		default: 'UTILITY',
		description: CATEGORY_DESCRIPTION,
		displayOptions: { show },
	},
	...componentFields('create'),
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			timeoutOption,
			{
				displayName: 'Phone ID',
				name: 'phoneId',
				type: 'string',
				default: '',
				description: 'Phone ID of the network account to create the template for, when it is not the credential’s',
			},
		],
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const name = assertTemplateName.call(this, itemIndex, readTextParameter.call(this, 'name', itemIndex, 'Name'));
	const language = readTextParameter.call(this, 'language', itemIndex, 'Language');
	assertLanguage.call(this, itemIndex, language);
	const category = assertCategory.call(this, itemIndex, readTextParameter.call(this, 'category', itemIndex, 'Category'));
	const read = readComponents.call(this, itemIndex);
	assertComponents.call(this, itemIndex, read, true);
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const phoneId = readTextOption.call(this, options.phoneId, itemIndex, 'Options › Phone ID');

	const response = await gatewayRequest.call(this, {
		endpoint: 'templates',
		method: 'POST',
		qs: phoneId ? { [PHONE_ID_QUERY_PARAM]: phoneId } : undefined,
		body: { name, language, category, components: read.components as IDataObject[] },
		itemIndex,
		timeoutMs: timeoutMsOf.call(this, itemIndex),
	});

	const created = response.statusCode === 201;
	return {
		name,
		language,
		...response.body,
		created,
		// 200: a template of this name already exists and the gateway left it as it was.
		unchanged: !created,
	};
}
