/**
 * The parameters a template message must fill (spec section 2.2, type `template`): one per numbered placeholder of
 * the template's header text, body text and URL buttons. Lists them so that users need not count placeholders, and
 * builds the message's `components` from the values. Pure logic, no n8n imports.
 */
import { componentType, type GatewayTemplate, placeholder, scanPlaceholders } from './components';

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
