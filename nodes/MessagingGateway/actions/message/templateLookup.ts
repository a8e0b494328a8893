/**
 * Send > Template with From Template: the template is read by its ID (`GET /api/Templates/{id}`, version 5.0) when
 * the node runs, and the message goes out under the template's own name and language.
 *
 * The run (run.ts) holds the reads of that run keyed by template ID, so a run reads each distinct template once
 * however many items use it; items in progress at the same time share one pending read. A read that failed fails
 * every item that uses its ID, without another request.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { apiError, gatewayRequest } from '../../../gateway/transport';
import { TEMPLATE_ID_PARAMETER } from '../../methods/templateParameters';
import { asNodeError } from '../nodeErrors';
import { readTextParameter } from '../parameters';
import type { SendRun } from '../run';
import { checkInput } from './execution';
import { identityOfTemplate, type TemplateIdentity } from './types/template';

/** The name and language of the item's template, read by its Template ID (once per ID per run). */
export async function templateIdentityOf(this: IExecuteFunctions, run: SendRun, itemIndex: number): Promise<TemplateIdentity> {
	const templateId = readTextParameter.call(this, TEMPLATE_ID_PARAMETER, itemIndex, 'Template ID', {
		required: 'enter the ID of the template to send (as Template > Create or Get answers it)',
	});
	const template = await readTemplate.call(this, run, itemIndex, templateId);
	// Hidden fields are normally empty here; a workflow that still carries a typed name or language is checked.
	const typed = {
		templateName: this.getNodeParameter('templateName', itemIndex, ''),
		templateLanguage: this.getNodeParameter('templateLanguage', itemIndex, ''),
	};
	return checkInput(this.getNode(), itemIndex, () => identityOfTemplate(template, templateId, typed));
}

async function readTemplate(this: IExecuteFunctions, run: SendRun, itemIndex: number, templateId: string): Promise<unknown> {
	const reads = run.templateReads;
	const earlier = reads.get(templateId);
	if (!earlier) {
		const read = gatewayRequest
			.call(this, {
				endpoint: 'templates',
				method: 'GET',
				pathSuffix: `/${encodeURIComponent(templateId)}`,
				itemIndex,
				connection: run.connection,
				timeoutMs: run.timeoutMs,
			})
			.then((response) => response.body as unknown);
		reads.set(templateId, read);
		return await read;
	}
	try {
		return await earlier;
	} catch (error) {
		// The item that made the request has the gateway's error; the others get it again under their own index.
		if (!(error instanceof NodeApiError)) throw asNodeError(this.getNode(), error, itemIndex);
		throw apiError(this, { message: error.message }, {
			message: error.message,
			description: error.description ?? undefined,
			httpCode: error.httpCode ?? undefined,
			itemIndex,
		});
	}
}
