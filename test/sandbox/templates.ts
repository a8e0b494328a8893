/**
 * Templates (spec sections 2.5, 3, 4.4 to 4.6, 8): body checks of creation and edit, the edit rules (editable
 * states, no category change, the edit quota of approved templates) and the answers.
 */
import { randomInt } from 'node:crypto';

import {
	TEMPLATE_CATEGORIES_ACCEPTED,
	TEMPLATE_COMPONENT_FORMATS as COMPONENT_FORMATS,
	TEMPLATE_EDITABLE_STATUSES,
	TEMPLATE_EDIT_QUOTA,
	TEMPLATE_NAME_PATTERN,
} from '../../nodes/gateway/spec';
import { array, LOCALE_PATTERN, matching, object, oneOf, onlyKeys, optionalString, required, string } from './check';
import { GatewayError, invalid } from './errors';

const HOUR = 3600_000;
const DAY = 24 * HOUR;

export interface SandboxTemplate {
	id: string;
	name: string;
	language: string;
	category: string;
	components: unknown[];
	status: string;
	createdAt: string;
	/** Every accepted edit, with the status the template had then: only edits of approved templates count. */
	edits: Array<{ at: number; statusBefore: string }>;
}

export interface TemplateContent {
	name: string;
	language: string;
	category: string;
	components: unknown[];
}

/** Checks the body of `POST /api/Templates` and `PUT /api/Templates/{id}` (both carry the whole content). */
export function validateTemplateContent(body: unknown): TemplateContent {
	const template = object(body, 'body');
	onlyKeys(template, '', ['name', 'language', 'category', 'components']);
	required(template, '', ['name', 'language', 'category', 'components']);
	const name = matching(template.name, 'name', TEMPLATE_NAME_PATTERN, 'lowercase letters, digits and underscores');
	const language = matching(template.language, 'language', LOCALE_PATTERN, 'a locale code of the form xx_XX');
	const category = oneOf(template.category, 'category', TEMPLATE_CATEGORIES_ACCEPTED);
	const components = array(template.components, 'components', { min: 1 });
	let bodyCount = 0;
	components.forEach((item, i) => {
		const path = `components[${i}]`;
		const component = object(item, path);
		const type = oneOf(component.type, `${path}.type`, ['BODY', 'HEADER', 'FOOTER', 'BUTTONS']);
		if (type === 'BODY') {
			bodyCount++;
			validateBody(component, path);
		} else if (type === 'HEADER') {
			onlyKeys(component, path, ['type', 'format', 'text', 'example']);
			const format = oneOf(component.format, `${path}.format`, COMPONENT_FORMATS);
			if (format === 'TEXT') string(component.text, `${path}.text`);
		} else if (type === 'FOOTER') {
			onlyKeys(component, path, ['type', 'text']);
			string(component.text, `${path}.text`);
		} else {
			validateButtons(component, path);
		}
	});
	if (bodyCount !== 1) throw invalid('components', `must hold exactly one BODY component with text, got ${bodyCount}`);
	return { name, language, category, components };
}

function validateBody(component: Record<string, unknown>, path: string): void {
	onlyKeys(component, path, ['type', 'format', 'text', 'example']);
	if (component.format !== undefined) oneOf(component.format, `${path}.format`, COMPONENT_FORMATS);
	const text = string(component.text, `${path}.text`);
	const count = placeholderCount(text, `${path}.text`);
	if (count === 0) {
		if (component.example !== undefined) object(component.example, `${path}.example`);
		return;
	}
	const example = object(component.example, `${path}.example`);
	const rows = array(example.body_text, `${path}.example.body_text`, { min: 1 });
	const values = array(rows[0], `${path}.example.body_text[0]`);
	for (let n = 1; n <= count; n++) {
		string(values[n - 1], `${path}.example.body_text[0][${n - 1}]`);
	}
	if (values.length > count) {
		throw invalid(`${path}.example.body_text[0]`, `has ${values.length} example values for ${count} placeholder(s)`);
	}
}

/** Placeholders are `{{1}}`, `{{2}}`, ... numbered from 1 without gaps; returns the highest number. */
function placeholderCount(text: string, field: string): number {
	const numbers = new Set<number>();
	for (const match of text.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)) {
		if (!/^[1-9]\d*$/.test(match[1])) throw invalid(field, `has the placeholder ${match[0]}, placeholders are numbered {{1}}, {{2}}, ...`);
		numbers.add(Number(match[1]));
	}
	const highest = Math.max(0, ...numbers);
	for (let n = 1; n <= highest; n++) {
		if (!numbers.has(n)) throw invalid(field, `has placeholders up to {{${highest}}} but no {{${n}}}: number them from 1 without gaps`);
	}
	return highest;
}

function validateButtons(component: Record<string, unknown>, path: string): void {
	onlyKeys(component, path, ['type', 'buttons']);
	array(component.buttons, `${path}.buttons`, { min: 1 }).forEach((item, i) => {
		const buttonPath = `${path}.buttons[${i}]`;
		const button = object(item, buttonPath);
		onlyKeys(button, buttonPath, ['type', 'text', 'url', 'example']);
		oneOf(button.type, `${buttonPath}.type`, ['URL']);
		string(button.text, `${buttonPath}.text`);
		const url = matching(button.url, `${buttonPath}.url`, /^https?:\/\/\S+$/, 'an http(s) URL');
		const variables = [...url.matchAll(/\{\{\s*([^}]*?)\s*\}\}/g)].map((m) => m[1]);
		if (variables.some((v) => v !== '1')) throw invalid(`${buttonPath}.url`, 'may only hold the placeholder {{1}}');
		if (variables.length > 0) {
			const examples = array(button.example, `${buttonPath}.example`, { min: 1 });
			examples.forEach((e, j) => string(e, `${buttonPath}.example[${j}]`));
		} else if (button.example !== undefined) {
			array(button.example, `${buttonPath}.example`).forEach((e, j) => optionalString(e, `${buttonPath}.example[${j}]`));
		}
	});
}

/** Ids look like the network's: 15 digits. */
export function newTemplateId(existing: Map<string, unknown>): string {
	let id: string;
	do id = `${randomInt(1, 10)}${String(randomInt(0, 1e7)).padStart(7, '0')}${String(randomInt(0, 1e7)).padStart(7, '0')}`;
	while (existing.has(id));
	return id;
}

/** The edit rules of spec sections 3, 4.5 and 8; throws the refusal, or returns when the edit may proceed. */
export function checkEditAllowed(template: SandboxTemplate, content: TemplateContent, now: number): void {
	if (!(TEMPLATE_EDITABLE_STATUSES as readonly string[]).includes(template.status)) {
		throw new GatewayError(
			400,
			`Template ${template.id} is ${template.status}: only templates in status ${TEMPLATE_EDITABLE_STATUSES.join(', ')} can be edited`,
		);
	}
	if (content.category !== template.category) {
		throw invalid(
			'category',
			`cannot be changed by an edit (${template.category} to ${content.category}): a category change needs a new template`,
		);
	}
	// Name and language identify a template (creating the same pair again returns the existing one).
	if (content.name !== template.name) throw invalid('name', `cannot be changed by an edit (template is '${template.name}')`);
	if (content.language !== template.language) {
		throw invalid('language', `cannot be changed by an edit (template is '${template.language}')`);
	}
	if (template.status !== 'APPROVED') return; // Edits of rejected or paused templates are unlimited.
	const approvedEdits = template.edits.filter((edit) => edit.statusBefore === 'APPROVED');
	const lastDay = approvedEdits.filter((edit) => now - edit.at < DAY).length;
	const lastMonth = approvedEdits.filter((edit) => now - edit.at < 30 * DAY).length;
	if (lastDay >= TEMPLATE_EDIT_QUOTA.perDay || lastMonth >= TEMPLATE_EDIT_QUOTA.perThirtyDays) {
		throw new GatewayError(
			400,
			`Template edit quota exceeded: an approved template can be edited at most ${TEMPLATE_EDIT_QUOTA.perDay} time(s) in 24 hours and ${TEMPLATE_EDIT_QUOTA.perThirtyDays} times in 30 days ` +
				`(edits in the last 24 hours: ${lastDay}, in the last 30 days: ${lastMonth})`,
			{ type: 'OAuthException', code: 100 },
		);
	}
}

export function templateView(template: SandboxTemplate): unknown {
	const { name, components, language, status, category, id } = template;
	return { name, components, language, status, category, id };
}

/**
 * Templates every sandbox account has approved on the network from the start, as a real account has templates made
 * before the node was used (Meta's `hello_world` among them): sends of these work without creating them first.
 */
export const PRESET_TEMPLATES: ReadonlyArray<{ name: string; language: string }> = [
	{ name: 'hello_world', language: 'en_US' },
	{ name: 'order_update', language: 'pt_BR' },
	{ name: 'order_shipped', language: 'pt_BR' },
	{ name: 'pedido_enviado', language: 'pt_BR' },
];

/**
 * A template message must name a template of the caller in that language: a preset one or one it created. Otherwise
 * the network's refusal: HTTP 404, code 132001 "Template name does not exist in the translation".
 */
export function checkTemplateOfMessage(
	body: unknown,
	templates: ReadonlyMap<string, SandboxTemplate & { apiKey: string }>,
	apiKey: string,
): void {
	const message = body as { type?: unknown; template?: { name?: unknown; language?: { code?: unknown } } };
	if (message.type !== 'template') return;
	const name = String(message.template?.name);
	const language = String(message.template?.language?.code);
	const own = [...templates.values()].find((template) => template.apiKey === apiKey && template.name === name && template.language === language);
	// The network refuses a paused or disabled template with its own codes (docs/network-errors.md).
	if (own?.status === 'PAUSED') {
		throw new GatewayError(400, '(#132015) Cannot send message as the template is paused', { code: 132015, details: `template ${name} (${language}) is paused` });
	}
	if (own?.status === 'DISABLED') {
		throw new GatewayError(400, '(#132016) Cannot send message as the template is disabled', { code: 132016, details: `template ${name} (${language}) is disabled` });
	}
	const known = own !== undefined || PRESET_TEMPLATES.some((template) => template.name === name && template.language === language);
	if (known) return;
	throw new GatewayError(404, '(#132001) Template name does not exist in the translation', {
		type: 'OAuthException',
		code: 132001,
		details: `template name (${name}) does not exist in ${language}`,
	});
}
