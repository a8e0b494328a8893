/**
 * Checks from the spec made before anything is sent, for values that the editor's own choices cannot hold back (an
 * expression may give any text): template names and categories, webhook subscription types. Pure: no n8n imports.
 */
import { TEMPLATE_CATEGORIES_ACCEPTED, TEMPLATE_NAME_PATTERN, WEBHOOK_EVENT_TYPES } from './spec';

export type Checked<T> = { value: T } | { problem: string };

/** A template name as the network takes it; `Order_Shipped` or `order shipped!` is refused with the rule. */
export function checkTemplateName(name: string): Checked<string> {
	if (name === '') return { problem: 'is empty; enter a name of lowercase letters, digits and underscores, e.g. order_shipped' };
	if (!TEMPLATE_NAME_PATTERN.test(name)) {
		const suggestion = name
			.toLowerCase()
			.replace(/[^a-z0-9]+/g, '_')
			.replace(/^_+|_+$/g, '');
		const instead = suggestion && TEMPLATE_NAME_PATTERN.test(suggestion) ? `, e.g. ${suggestion}` : '';
		return { problem: `"${name}" is not a template name: use only lowercase letters, digits and underscores${instead}` };
	}
	return { value: name };
}

/** A category of spec 2.5 in any letter case, returned in capitals. */
export function checkTemplateCategory(category: string): Checked<(typeof TEMPLATE_CATEGORIES_ACCEPTED)[number]> {
	const upper = category.trim().toUpperCase();
	const known = TEMPLATE_CATEGORIES_ACCEPTED.find((accepted) => accepted === upper);
	if (known) return { value: known };
	if (upper === '') return { problem: `is empty; choose one of ${TEMPLATE_CATEGORIES_ACCEPTED.join(', ')}` };
	return { problem: `"${category}" is not a category of the gateway; use one of ${TEMPLATE_CATEGORIES_ACCEPTED.join(', ')}` };
}

/**
 * Webhook subscription types: a list (the editor's choice), or from an expression a list or comma-separated text.
 * Every type must be one of spec section 6; repeats are dropped (the gateway refuses a type given twice).
 */
export function checkWebhookTypes(value: unknown): Checked<string[]> {
	const list = typeof value === 'string' ? value.split(',') : value;
	if (!Array.isArray(list)) return { problem: `must be a list of subscription types, got ${JSON.stringify(value)}` };
	const types: string[] = [];
	for (const entry of list) {
		if (typeof entry !== 'string') return { problem: `must hold subscription types as text, got ${JSON.stringify(entry)}` };
		const type = entry.trim();
		if (type === '') continue;
		if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) {
			return { problem: `"${type}" is not a subscription type of the gateway; use ${WEBHOOK_EVENT_TYPES.join(', ')}` };
		}
		if (!types.includes(type)) types.push(type);
	}
	if (types.length === 0) return { problem: 'is empty: choose at least one, such as Messages' };
	return { value: types };
}
