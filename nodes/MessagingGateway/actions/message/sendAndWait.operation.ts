/**
 * Message > Send and Wait for Response: sends a text with signed response links and puts the execution to wait.
 * The recipient answers by opening a link: approve or decline (one or two links), or a page with a free-text form.
 * n8n then calls the node's webhook() (`onWaitingWebhook`), which resumes the execution with
 * `{ data: { approved } }` or `{ data: { text } }`, like n8n's own send-and-wait nodes.
 *
 * Like those nodes it runs once, for the first input item (`waitsForResponse`): an execution waits for one answer.
 * The operation value must stay 'sendAndWait' (n8n's SEND_AND_WAIT_OPERATION): n8n checks the links' signatures
 * only for nodes whose operation has that value.
 */
import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { asNodeError, describeRefusal, errorJson } from '../common';
import { MessageRun } from './run';
import { messageBody, requiredText } from './types/common';
import {
	type ApprovalOptions,
	confirmationPage,
	DEFAULT_LABELS,
	type LimitWaitTime,
	readFormResponse,
	RECORDED_PAGE,
	responseFormPage,
	responseLinks,
	type ResponseType,
	waitMessageText,
	waitTillOf,
} from './waiting';

export { description } from './sendAndWait.fields';

interface WaitOptions {
	confirmationPage?: boolean;
	limitWaitTime?: { values?: LimitWaitTime };
	messageButtonLabel?: string;
	responseFormButtonLabel?: string;
	responseFormDescription?: string;
	responseFormTitle?: string;
}

/**
 * One message, for the first item (as n8n's own send-and-wait nodes do), then the execution waits; the input items
 * pass through and resume with the answer. With Continue On Fail, a failed send becomes an error item and the
 * execution does not wait.
 */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const run = await MessageRun.open(this);
	const itemIndex = 0;
	try {
		const to = run.recipientOf(itemIndex);
		const message = this.getNodeParameter('message', itemIndex, '');
		const responseType = this.getNodeParameter('responseType', itemIndex, 'approval') as ResponseType;
		const approval = this.getNodeParameter('approvalOptions.values', itemIndex, {}) as ApprovalOptions;
		const options = this.getNodeParameter('options', itemIndex, {}) as WaitOptions;
		const { text, waitTill } = run.check(itemIndex, () => {
			const links = responseLinks(responseType, approval, options.messageButtonLabel, (query) => this.getSignedResumeUrl(query));
			return {
				text: waitMessageText(requiredText(message, 'Message', 'enter the question to send'), links),
				waitTill: waitTillOf(options.limitWaitTime?.values, new Date()),
			};
		});
		const body = messageBody(to, { type: 'text', text: { body: text } });
		await run.send(itemIndex, body, { message: body });
		run.close(items);
		await this.putExecutionToWait(waitTill ?? WAIT_INDEFINITELY);
	} catch (error) {
		const nodeError = describeRefusal(run.node, asNodeError(run.node, error, itemIndex), itemIndex, { resource: 'message', operation: 'sendAndWait' });
		if (run.cancelled || !this.continueOnFail()) throw nodeError;
		return [{ json: errorJson(nodeError), pairedItem: { item: itemIndex } }];
	}
	return items;
}

/** Both methods on the node's id, as n8n's send-and-wait nodes: GET opens a link, POST submits its page. */
export const waitingWebhooks: IWebhookDescription[] = (['GET', 'POST'] as const).map((httpMethod) => ({
	name: 'default',
	httpMethod,
	responseMode: 'onReceived',
	responseData: '',
	path: '={{ $nodeId }}',
	restartWebhook: true,
	isFullPath: true,
}));

/**
 * A recipient opened a response link (GET) or submitted its page (POST). Returning `workflowData` resumes the
 * execution; returning only a page leaves it waiting.
 */
export async function onWaitingWebhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
	const request = this.getRequestObject();
	const responseType = this.getNodeParameter('responseType', 'approval') as ResponseType;
	const options = this.getNodeParameter('options', {}) as WaitOptions;
	const message = String(this.getNodeParameter('message', ''));

	if (responseType === 'freeText') {
		const formPage = (problem?: string) =>
			responseFormPage(
				options.responseFormTitle ?? '',
				options.responseFormDescription || message,
				options.responseFormButtonLabel ?? 'Submit',
				problem,
			);
		if (request.method !== 'POST') return { webhookResponse: formPage() };
		const text = readFormResponse(this.getBodyData(), (request as { rawBody?: unknown }).rawBody);
		if (text === '') return { webhookResponse: formPage('Please type a response before submitting.') };
		return { webhookResponse: RECORDED_PAGE, workflowData: [[{ json: { data: { text } } }]] };
	}

	const approved = this.getQueryData() as IDataObject;
	const isApproval = approved.approved === 'true';
	if (options.confirmationPage && request.method !== 'POST') {
		const approval = this.getNodeParameter('approvalOptions.values', {}) as ApprovalOptions;
		const choice = isApproval
			? approval.approveLabel?.trim() || DEFAULT_LABELS.approve
			: approval.disapproveLabel?.trim() || DEFAULT_LABELS.decline;
		return { webhookResponse: confirmationPage(choice, message) };
	}
	return { webhookResponse: RECORDED_PAGE, workflowData: [[{ json: { data: { approved: isApproval } } }]] };
}
