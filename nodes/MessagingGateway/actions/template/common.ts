/** Fields and checks shared by the template operations. */
import type { IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { checkTemplateCategory, checkTemplateName } from '../../templates/components';
import { TEMPLATE_CATEGORIES } from '../../../gateway/spec';
import { checkLanguage } from '../../templates/check';
import { inputError, readTextParameter } from '../common';

export const categoryOptions = TEMPLATE_CATEGORIES.map((category) => ({
	name: category.charAt(0) + category.slice(1).toLowerCase(),
	value: category,
}));

export const CATEGORY_DESCRIPTION =
	'Categories of version 5.0. An expression may also give TICKET_UPDATE, which the gateway takes; other values are refused.';

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
	const id = readTextParameter.call(this, 'templateId', itemIndex, 'Template ID');
	if (!id) throw inputError(this.getNode(), itemIndex, 'Template ID', 'is empty; enter the ID returned when the template was created');
	if (/[/?#\s]/.test(id)) {
		throw inputError(this.getNode(), itemIndex, 'Template ID', `"${id}" is not an ID: it holds a slash, space, ? or #`);
	}
	return id;
}

/** A template name of lowercase letters, digits and underscores, or an error naming the field and the item. */
export function assertTemplateName(this: IExecuteFunctions, itemIndex: number, name: string, field = 'Name'): string {
	const checked = checkTemplateName(name);
	if ('problem' in checked) throw inputError(this.getNode(), itemIndex, field, checked.problem);
	return checked.value;
}

/** A category of the gateway (any letter case, sent in capitals), or an error naming the field and the item. */
export function assertCategory(this: IExecuteFunctions, itemIndex: number, category: string, field = 'Category'): string {
	const checked = checkTemplateCategory(category);
	if ('problem' in checked) throw inputError(this.getNode(), itemIndex, field, checked.problem);
	return checked.value;
}

export function assertLanguage(this: IExecuteFunctions, itemIndex: number, language: string, field = 'Language'): void {
	const problem = checkLanguage(language);
	if (problem) throw inputError(this.getNode(), itemIndex, field, problem);
}
