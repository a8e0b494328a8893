/**
 * Templates' content (spec section 2.5): the components' shapes, building them from the node's fields, reading them
 * from JSON, merging a partial change into a current template for an edit; the numbered placeholders of their texts
 * (`{{1}}`, `{{2}}`, ...); and the checks of a template's name and category made before anything is sent (an
 * expression may give any text); the parameters a template message must fill (spec section 2.2, type `template`):
 * one per numbered placeholder of the header text, body text and URL buttons, listed so that users need not count
 * placeholders, and the message's `components` built from their values. Pure logic, no n8n imports.
 */

import { TEMPLATE_CATEGORIES_ACCEPTED, TEMPLATE_COMPONENT_FORMATS, TEMPLATE_NAME_PATTERN } from '../../gateway/spec';

export interface TemplateButton {
	type: string;
	text?: string;
	url?: string;
	example?: string[];
	[key: string]: unknown;
}

export interface TemplateComponent {
	type: string;
	format?: string;
	text?: string;
	example?: { body_text?: string[][]; header_text?: string[]; header_handle?: string[]; [key: string]: unknown };
	buttons?: TemplateButton[];
	[key: string]: unknown;
}

/** A template as the gateway returns it (spec section 2.5, read response). */
export interface GatewayTemplate {
	id?: string;
	name?: string;
	language?: string;
	category?: string;
	status?: string;
	components?: TemplateComponent[];
	[key: string]: unknown;
}

export const COMPONENT_FORMATS = TEMPLATE_COMPONENT_FORMATS;

/** The network's order of components in a template; types it does not know go last. */
const COMPONENT_ORDER = ['HEADER', 'BODY', 'FOOTER', 'BUTTONS'];

/** What the node's component fields hold, already read from the node parameters. Empty means "not set". */
export interface ComponentsBuilderInput {
	bodyText?: string;
	bodyFormat?: string;
	bodyExamples?: string[];
	header?: { format: string; text?: string; example?: string };
	footerText?: string;
	urlButtons?: Array<{ text: string; url: string; example?: string }>;
}

export function componentType(component: TemplateComponent): string {
	return String(component.type ?? '').toUpperCase();
}

/** Builds the components the user set; sections left empty produce no component. */
export function buildComponents(input: ComponentsBuilderInput): TemplateComponent[] {
	const components: TemplateComponent[] = [];

	if (input.header?.format) components.push(buildHeader(input.header));

	if (input.bodyText?.trim()) {
		const body: TemplateComponent = { type: 'BODY', format: input.bodyFormat || 'TEXT', text: input.bodyText };
		const examples = input.bodyExamples ?? [];
		if (examples.length) body.example = { body_text: [examples] };
		components.push(body);
	}

	if (input.footerText?.trim()) components.push({ type: 'FOOTER', text: input.footerText });

	if (input.urlButtons?.length) {
		components.push({
			type: 'BUTTONS',
			buttons: input.urlButtons.map((button) => {
				const built: TemplateButton = { type: 'URL', text: button.text, url: button.url };
				if (button.example) built.example = [button.example];
				return built;
			}),
		});
	}
	return components;
}

function buildHeader(header: NonNullable<ComponentsBuilderInput['header']>): TemplateComponent {
	const format = header.format.toUpperCase();
	if (format === 'TEXT') {
		const built: TemplateComponent = { type: 'HEADER', format, text: header.text ?? '' };
		if (header.example) built.example = { header_text: [header.example] };
		return built;
	}
	// A media header is reviewed with a sample file handle; a static location header takes nothing more.
	const built: TemplateComponent = { type: 'HEADER', format };
	if (format !== 'LOCATION' && header.example) built.example = { header_handle: [header.example] };
	return built;
}

/**
 * Reads components given as JSON: an array of components, or an object with a `components` array (a whole
 * template pasted in). Returns an error sentence instead when the value has another shape.
 */
export function parseComponentsJson(value: unknown): { components: TemplateComponent[] } | { error: string } {
	let parsed = value;
	if (typeof value === 'string') {
		if (!value.trim()) return { error: 'is empty: give an array of components such as [{ "type": "BODY", ... }]' };
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			return { error: `is not valid JSON (${(error as Error).message})` };
		}
	}
	if (parsed && typeof parsed === 'object' && !Array.isArray(parsed) && 'components' in parsed) {
		parsed = (parsed as { components: unknown }).components;
	}
	if (!Array.isArray(parsed)) return { error: 'must be an array of components such as [{ "type": "BODY", ... }]' };
	for (const [index, component] of parsed.entries()) {
		if (!component || typeof component !== 'object' || Array.isArray(component)) {
			return { error: `entry ${index + 1} is not an object` };
		}
		if (typeof (component as TemplateComponent).type !== 'string' || !(component as TemplateComponent).type) {
			return { error: `entry ${index + 1} has no "type" (BODY, HEADER, FOOTER or BUTTONS)` };
		}
	}
	return { components: parsed as TemplateComponent[] };
}

/**
 * The components of an edit that starts from the current template: each changed component replaces the current
 * ones of the same type, the others are kept, and the result is in the network's order.
 */
export function mergeComponents(current: TemplateComponent[], changes: TemplateComponent[]): TemplateComponent[] {
	const changedTypes = new Set(changes.map(componentType));
	const kept = current.filter((component) => !changedTypes.has(componentType(component)));
	return sortComponents([...kept, ...changes]);
}

export function sortComponents(components: TemplateComponent[]): TemplateComponent[] {
	const rank = (component: TemplateComponent) => {
		const position = COMPONENT_ORDER.indexOf(componentType(component));
		return position === -1 ? COMPONENT_ORDER.length : position;
	};
	// Array.prototype.sort is stable, so components of the same rank keep their order.
	return [...components].sort((a, b) => rank(a) - rank(b));
}

// ---- Placeholders ----

/** Anything between double braces; what is inside decides whether it is a valid numbered placeholder. */
const PLACEHOLDER_PATTERN = /\{\{([^{}]*)\}\}/g;

export interface PlaceholderScan {
	/** The distinct placeholder numbers, ascending. */
	numbers: number[];
	/** Placeholders that are not a positive whole number, as written (for example `{{name}}` or `{{0}}`). */
	invalid: string[];
}

export function scanPlaceholders(text: string): PlaceholderScan {
	const numbers = new Set<number>();
	const invalid: string[] = [];
	for (const match of text.matchAll(PLACEHOLDER_PATTERN)) {
		const inside = match[1].trim();
		if (/^[1-9]\d*$/.test(inside)) numbers.add(Number(inside));
		else invalid.push(match[0]);
	}
	return { numbers: [...numbers].sort((a, b) => a - b), invalid };
}

/** The numbers from 1 to the highest one used that the text skips (`{{1}} {{3}}` → [2]). */
export function missingPlaceholderNumbers(numbers: number[]): number[] {
	const used = new Set(numbers);
	const highest = numbers.length ? Math.max(...numbers) : 0;
	const missing: number[] = [];
	for (let n = 1; n <= highest; n++) if (!used.has(n)) missing.push(n);
	return missing;
}

export function placeholder(n: number): string {
	return `{{${n}}}`;
}

/**
 * The numbers {{1}} to the highest placeholder of a text, gaps included: one example field each, in order (a gap is
 * refused later by the template check, which names it).
 */
export function placeholderSlots(text: string): number[] {
	const { numbers } = scanPlaceholders(text);
	const highest = numbers.length ? numbers[numbers.length - 1] : 0;
	return Array.from({ length: highest }, (_, i) => i + 1);
}

/**
 * Numbered placeholders that n8n reads as numbers because the text is an expression: `=Hi {{1}}` gives "Hi 1". The
 * editor makes a text an expression when one holding {{ }} is pasted into an empty field. A placeholder written
 * inside an expression block as text (`{{ "Hi {{1}" + "}" }}`) stays a placeholder and is not reported.
 */
export function placeholdersReadAsNumbers(raw: unknown): string[] {
	if (typeof raw !== 'string' || !raw.startsWith('=')) return [];
	const found: string[] = [];
	let depth = 0;
	for (let i = 1; i < raw.length; i++) {
		if (raw.startsWith('{{', i)) {
			const bare = depth === 0 ? /^\{\{\s*\d+\s*\}\}/.exec(raw.slice(i)) : null;
			if (bare) {
				found.push(bare[0]);
				i += bare[0].length - 1;
				continue;
			}
			depth++;
			i++;
		} else if (depth > 0 && raw.startsWith('}}', i)) {
			depth--;
			i++;
		}
	}
	return found;
}

// ---- Name and category ----

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

// ---- A template message's parameters ----

export interface TemplateParameter {
	/** Stable key of the parameter: `header_1`, `body_2`, `button_0_1` (button position 0, placeholder 1). */
	id: string;
	/** Label for the user, such as `Body {{2}}` or `Button 1 "Track order" URL {{1}}`. */
	displayName: string;
	component: 'header' | 'body' | 'button';
	/** The placeholder's number within its text. */
	number: number;
	/** Position of the button among the template's buttons (message `index`), for button parameters. */
	buttonIndex?: number;
	/** The example value the template was reviewed with, when it has one. */
	example?: string;
}

export function listTemplateParameters(template: GatewayTemplate): TemplateParameter[] {
	const parameters: TemplateParameter[] = [];
	const components = Array.isArray(template.components) ? template.components : [];

	for (const component of components) {
		const type = componentType(component);
		if (type === 'HEADER' && typeof component.text === 'string') {
			for (const n of scanPlaceholders(component.text).numbers) {
				parameters.push({
					id: `header_${n}`,
					displayName: `Header ${placeholder(n)}`,
					component: 'header',
					number: n,
					example: stringAt(component.example?.header_text, n - 1),
				});
			}
		}
		if (type === 'BODY' && typeof component.text === 'string') {
			const examples = Array.isArray(component.example?.body_text) ? component.example?.body_text?.[0] : undefined;
			for (const n of scanPlaceholders(component.text).numbers) {
				parameters.push({
					id: `body_${n}`,
					displayName: `Body ${placeholder(n)}`,
					component: 'body',
					number: n,
					example: stringAt(examples, n - 1),
				});
			}
		}
		if (type === 'BUTTONS' && Array.isArray(component.buttons)) {
			component.buttons.forEach((button, buttonIndex) => {
				if (typeof button.url !== 'string') return;
				const label = button.text ? ` "${button.text}"` : '';
				for (const n of scanPlaceholders(button.url).numbers) {
					parameters.push({
						id: `button_${buttonIndex}_${n}`,
						displayName: `Button ${buttonIndex + 1}${label} URL ${placeholder(n)}`,
						component: 'button',
						number: n,
						buttonIndex,
						example: stringAt(button.example, n - 1),
					});
				}
			});
		}
	}
	return parameters;
}

function stringAt(values: unknown, index: number): string | undefined {
	if (!Array.isArray(values)) return undefined;
	const value: unknown = values[index];
	return typeof value === 'string' && value ? value : undefined;
}

export interface MessageTemplateComponent {
	type: 'header' | 'body' | 'button';
	sub_type?: 'url';
	index?: string;
	parameters: Array<{ type: 'text'; text: string }>;
}

/**
 * The `components` of a template message (spec section 2.2) from a value per parameter id. Parameters without a
 * value are returned in `missing` (by display name) so the caller can refuse before sending.
 */
export function buildMessageComponents(
	parameters: TemplateParameter[],
	values: Record<string, unknown>,
): { components: MessageTemplateComponent[]; missing: string[] } {
	const missing: string[] = [];
	const groups = new Map<string, MessageTemplateComponent>();

	for (const parameter of parameters) {
		const raw = values[parameter.id];
		const text = raw === undefined || raw === null ? '' : String(raw);
		if (!text.trim()) {
			missing.push(parameter.displayName);
			continue;
		}
		const key = parameter.component === 'button' ? `button_${parameter.buttonIndex}` : parameter.component;
		let group = groups.get(key);
		if (!group) {
			group =
				parameter.component === 'button'
					? { type: 'button', sub_type: 'url', index: String(parameter.buttonIndex), parameters: [] }
					: { type: parameter.component, parameters: [] };
			groups.set(key, group);
		}
		// The network fills placeholders in the order of the parameters; the list comes in ascending number order.
		group.parameters.push({ type: 'text', text });
	}

	const order = (component: MessageTemplateComponent) =>
		component.type === 'header' ? -2 : component.type === 'body' ? -1 : Number(component.index);
	const components = [...groups.values()].sort((a, b) => order(a) - order(b));
	return { components, missing };
}

const PARAMETER_ID = /^(?:(header|body)_([1-9]\d*)|button_(\d+)_([1-9]\d*))$/;

/**
 * The parameters named by ids such as `body_2` or `button_1_1` (the keys of a resource mapper's value), in the order
 * a message lists them, so that a message can be built without reading the template again. Other keys are ignored.
 */
export function parametersFromIds(ids: string[]): TemplateParameter[] {
	const parameters: TemplateParameter[] = [];
	for (const id of ids) {
		const match = PARAMETER_ID.exec(id);
		if (!match) continue;
		if (match[1]) {
			const component = match[1] as 'header' | 'body';
			const number = Number(match[2]);
			const label = component === 'header' ? 'Header' : 'Body';
			parameters.push({ id, displayName: `${label} ${placeholder(number)}`, component, number });
		} else {
			const buttonIndex = Number(match[3]);
			const number = Number(match[4]);
			parameters.push({
				id,
				displayName: `Button ${buttonIndex + 1} URL ${placeholder(number)}`,
				component: 'button',
				number,
				buttonIndex,
			});
		}
	}
	const rank = (parameter: TemplateParameter) =>
		parameter.component === 'header' ? -2 : parameter.component === 'body' ? -1 : (parameter.buttonIndex ?? 0);
	return parameters.sort((a, b) => rank(a) - rank(b) || a.number - b.number);
}
