/** Fields and checks shared by the template operations. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { TEMPLATE_CATEGORIES } from '../../../gateway/spec';
import { checkLanguage } from '../../templates/check';

export const categoryOptions = TEMPLATE_CATEGORIES.map((category) => ({
	name: category.charAt(0) + category.slice(1).toLowerCase(),
	value: category,
}));

export const CATEGORY_DESCRIPTION =
	'Categories of version 5.0. An expression may give another value the gateway knows, such as TICKET_UPDATE.';

export function templateIdField(operation: string): INodeProperties {
	return {
		displayName: 'Template ID',
		name: 'templateId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 1234567890123456',
		description: 'ID of the template, as returned when it was created',
		displayOptions: { show: { resource: ['template'], operation: [operation] } },
	};
}

export function readTemplateId(this: IExecuteFunctions, itemIndex: number): string {
	const id = String(this.getNodeParameter('templateId', itemIndex, '') ?? '').trim();
	if (!id) throw new NodeOperationError(this.getNode(), 'Template ID is empty', { itemIndex });
	if (/[/?#\s]/.test(id)) {
		throw new NodeOperationError(this.getNode(), `Template ID "${id}" is not an ID: it holds a slash, space, ? or #`, {
			itemIndex,
		});
	}
	return id;
}

export function assertLanguage(this: IExecuteFunctions, itemIndex: number, language: string): void {
	const problem = checkLanguage(language);
	if (problem) throw new NodeOperationError(this.getNode(), `Language ${problem}`, { itemIndex });
}
