/**
 * Template components (spec section 2.5): the shapes, building them from the node's fields, reading them from JSON,
 * and merging a partial change into a current template for an edit. Pure logic, no n8n imports.
 */

import { TEMPLATE_COMPONENT_FORMATS } from '../../gateway/spec';

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
