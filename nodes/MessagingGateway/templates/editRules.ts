/**
 * The rules of editing a template (spec sections 3, 4.5 and 8), as checks made before sending and as the text that
 * explains a refusal by the gateway. Pure logic, no n8n imports.
 */
import { TEMPLATE_EDITABLE_STATUSES, TEMPLATE_EDIT_QUOTA } from '../../gateway/spec';
import type { GatewayTemplate } from './components';

const APPROVED_EDIT_QUOTA = `at most ${TEMPLATE_EDIT_QUOTA.perThirtyDays} edits in 30 days, or ${TEMPLATE_EDIT_QUOTA.perDay} edit in 24 hours`;

export const TEMPLATE_EDIT_RULES =
	`Only templates whose status is ${TEMPLATE_EDITABLE_STATUSES.join(', ')} can be edited. ` +
	`An approved template allows ${APPROVED_EDIT_QUOTA}; rejected and paused templates can be edited without limit. ` +
	'An edit cannot change the category: a template of another category is a new template.';

export const CATEGORY_CHANGE_REASON =
	'The category of a template cannot be changed by an edit; create a new template with the other category instead';

function normalise(value: unknown): string {
	return String(value ?? '')
		.trim()
		.toUpperCase();
}

/**
 * Why the current template may not be edited into the requested one, or undefined when it may. An absent status
 * or category is left to the gateway to judge.
 */
export function editRefusal(current: GatewayTemplate, requestedCategory?: string): string | undefined {
	const status = normalise(current.status);
	if (status && !(TEMPLATE_EDITABLE_STATUSES as readonly string[]).includes(status)) {
		return (
			`The template's status is ${status}: only templates whose status is ` +
			`${TEMPLATE_EDITABLE_STATUSES.join(', ')} can be edited`
		);
	}
	const currentCategory = normalise(current.category);
	const wanted = normalise(requestedCategory);
	if (wanted && currentCategory && wanted !== currentCategory) {
		return `${CATEGORY_CHANGE_REASON} (current category ${currentCategory}, requested ${wanted})`;
	}
	return undefined;
}
