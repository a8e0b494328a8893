/**
 * Lists the parameters of a template (one per numbered placeholder of its header, body and URL buttons) so that a
 * template message can be filled without counting placeholders by hand. The template is read by its ID
 * (`GET /api/Templates/{id}`), the only way the gateway offers to look a template up.
 */
import type { ILoadOptionsFunctions, INodePropertyOptions, ResourceMapperFields } from 'n8n-workflow';

import { NodeApiError } from 'n8n-workflow';

import { gatewayRequest } from '../../gateway/transport';
import { asNodeError } from '../actions/common';
import { TEMPLATE_ID_PARAMETER } from '../actions/message/types/template';
import { type GatewayTemplate, listTemplateParameters, type TemplateParameter } from '../templates/components';

const NO_TEMPLATE_NOTICE = 'Enter a fixed Template ID above to list the template’s parameters';

async function loadTemplateParameters(this: ILoadOptionsFunctions): Promise<TemplateParameter[] | undefined> {
	const raw = this.getCurrentNodeParameter(TEMPLATE_ID_PARAMETER);
	const id = typeof raw === 'string' || typeof raw === 'number' ? String(raw).trim() : '';
	// An expression can only be resolved when the node runs, with an input item.
	if (!id || id.startsWith('=')) return undefined;
	const response = await gatewayRequest.call(this, {
		endpoint: 'templates',
		method: 'GET',
		pathSuffix: `/${encodeURIComponent(id)}`,
	});
	return listTemplateParameters(response.body as GatewayTemplate);
}

function describe(parameter: TemplateParameter): string {
	return parameter.example ? `Example: ${parameter.example}` : `Fills ${parameter.displayName}`;
}

/** loadOptions: the parameters as options (value = parameter id such as `body_1`). */
export async function getTemplateParameters(this: ILoadOptionsFunctions): Promise<INodePropertyOptions[]> {
	const parameters = (await loadTemplateParameters.call(this)) ?? [];
	return parameters.map((parameter) => ({
		name: parameter.displayName,
		value: parameter.id,
		description: describe(parameter),
	}));
}

/**
 * Longest label of a Values to Send field: a longer one (a URL example cannot wrap) widened the field past the
 * panel's edge, with a horizontal scrollbar, even though n8n cuts the label's text short.
 */
const MAX_LABEL_CHARS = 32;

/** `Body {{1}} (e.g. Ana)`; the placeholder alone when its example would make the label too long. */
export function fieldLabel(parameter: TemplateParameter): string {
	const example = parameter.example?.trim();
	const withExample = `${parameter.displayName} (e.g. ${example})`;
	return example && withExample.length <= MAX_LABEL_CHARS ? withExample : parameter.displayName;
}

/** What the panel says when the gateway has no template with the ID: the send would fail the same way. */
export function missingTemplateNotice(id: unknown): string {
	return `No template has the ID "${String(id).trim()}" (the gateway answered 404): check the Template ID. The id field in the output of Template > Create is the one to copy.`;
}

/**
 * resourceMapping: one required text field per parameter, keyed by parameter id (`header_1`, `body_2`, `button_0_1`).
 * A template that does not exist says so, rather than "no placeholders" (a send with that ID fails with a 404).
 */
export async function getTemplateParameterFields(this: ILoadOptionsFunctions): Promise<ResourceMapperFields> {
	let parameters: TemplateParameter[] | undefined;
	try {
		parameters = await loadTemplateParameters.call(this);
	} catch (error) {
		if (error instanceof NodeApiError && error.httpCode === '404') {
			return { fields: [], emptyFieldsNotice: missingTemplateNotice(this.getCurrentNodeParameter(TEMPLATE_ID_PARAMETER)) };
		}
		throw asNodeError(this.getNode(), error);
	}
	if (!parameters) return { fields: [], emptyFieldsNotice: NO_TEMPLATE_NOTICE };
	return {
		fields: parameters.map((parameter) => ({
			id: parameter.id,
			displayName: fieldLabel(parameter),
			required: true,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
		})),
		emptyFieldsNotice: 'This template has no placeholders: it is sent without parameters',
	};
}
