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
	INodeProperties,
	IWebhookDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { WAIT_INDEFINITELY } from 'n8n-workflow';

import { checkInput, postMessage, readRecipient } from './execution';
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

/** The router runs this operation for the first item only and outputs the input items while waiting. */
export const waitsForResponse = true;

const show = { resource: ['message'], operation: ['sendAndWait'] };

export const description: INodeProperties[] = [
	{
		displayName: 'Message',
		name: 'waitMessage',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Approve the refund of R$ 120,00 for order #12345?',
		description: 'The question to send; the response links are added below it',
		hint: 'A free-form text reaches the recipient only within 24 hours of their last message to you',
		displayOptions: { show },
	},
	{
		displayName: 'Response Type',
		name: 'waitResponseType',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Approval', value: 'approval', description: 'The recipient approves (or declines) by opening a link' },
			{ name: 'Free Text', value: 'freeText', description: 'The recipient opens a link and types an answer in a form' },
		],
		default: 'approval',
		displayOptions: { show },
	},
	{
		displayName: 'Approval Options',
		name: 'waitApprovalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show: { ...show, waitResponseType: ['approval'] } },
		options: [
			{
				displayName: 'Values',
				name: 'values',
				values: [
					{
						displayName: 'Type of Approval',
						name: 'approvalType',
						type: 'options',
						options: [
							{ name: 'Approve Only', value: 'single' },
							{ name: 'Approve and Decline', value: 'double' },
						],
						default: 'single',
					},
					{
						displayName: 'Approve Label',
						name: 'approveLabel',
						type: 'string',
						default: 'Approve',
					},
					{
						displayName: 'Decline Label',
						name: 'disapproveLabel',
						type: 'string',
						default: 'Decline',
						displayOptions: { show: { approvalType: ['double'] } },
					},
				],
			},
		],
	},
	{
		displayName: 'Options',
		name: 'waitOptions',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Ask for Confirmation',
				name: 'confirmationPage',
				type: 'boolean',
				default: false,
				description:
					'Whether opening an approval link shows a page with a button to confirm, instead of recording the answer at once. Protects against link scanners and accidental taps.',
			},
			{
				displayName: 'Limit Wait Time',
				name: 'limitWaitTime',
				type: 'fixedCollection',
				default: { values: { limitType: 'afterTimeInterval', resumeAmount: 45, resumeUnit: 'minutes' } },
				description: 'Whether to stop waiting after a time; the workflow then continues without an answer',
				options: [
					{
						displayName: 'Values',
						name: 'values',
						values: [
							{
								displayName: 'Limit Type',
								name: 'limitType',
								type: 'options',
								options: [
									{ name: 'After Time Interval', value: 'afterTimeInterval' },
									{ name: 'At Specified Time', value: 'atSpecifiedTime' },
								],
								default: 'afterTimeInterval',
							},
							{
								displayName: 'Amount',
								name: 'resumeAmount',
								type: 'number',
								typeOptions: { minValue: 0, numberPrecision: 2 },
								default: 1,
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
							},
							{
								displayName: 'Unit',
								name: 'resumeUnit',
								type: 'options',
								options: [
									{ name: 'Minutes', value: 'minutes' },
									{ name: 'Hours', value: 'hours' },
									{ name: 'Days', value: 'days' },
								],
								default: 'hours',
								displayOptions: { show: { limitType: ['afterTimeInterval'] } },
							},
							{
								displayName: 'Max Date and Time',
								name: 'maxDateAndTime',
								type: 'dateTime',
								default: '',
								displayOptions: { show: { limitType: ['atSpecifiedTime'] } },
							},
						],
					},
				],
			},
			{
				displayName: 'Message Button Label',
				name: 'messageButtonLabel',
				type: 'string',
				default: 'Respond',
				description: 'Label of the link to the response form (Free Text)',
			},
			{
				displayName: 'Response Form Button Label',
				name: 'responseFormButtonLabel',
				type: 'string',
				default: 'Submit',
			},
			{
				displayName: 'Response Form Description',
				name: 'responseFormDescription',
				type: 'string',
				default: '',
				description: 'Text above the response field; the message when empty',
			},
			{
				displayName: 'Response Form Title',
				name: 'responseFormTitle',
				type: 'string',
				default: '',
			},
		],
	},
];

interface WaitOptions {
	confirmationPage?: boolean;
	limitWaitTime?: { values?: LimitWaitTime };
	messageButtonLabel?: string;
	responseFormButtonLabel?: string;
	responseFormDescription?: string;
	responseFormTitle?: string;
}

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const to = await readRecipient.call(this, itemIndex);
	const message = this.getNodeParameter('waitMessage', itemIndex, '');
	const responseType = this.getNodeParameter('waitResponseType', itemIndex, 'approval') as ResponseType;
	const approval = this.getNodeParameter('waitApprovalOptions.values', itemIndex, {}) as ApprovalOptions;
	const options = this.getNodeParameter('waitOptions', itemIndex, {}) as WaitOptions;

	const { text, waitTill } = checkInput(this.getNode(), itemIndex, () => {
		const links = responseLinks(responseType, approval, options.messageButtonLabel, (query) =>
			this.getSignedResumeUrl(query),
		);
		return {
			text: waitMessageText(requiredText(message, 'Message', 'enter the question to send'), links),
			waitTill: waitTillOf(options.limitWaitTime?.values, new Date()),
		};
	});

	const sent = await postMessage.call(this, itemIndex, messageBody(to, { type: 'text', text: { body: text } }));
	await this.putExecutionToWait(waitTill ?? WAIT_INDEFINITELY);
	return sent;
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
	const responseType = this.getNodeParameter('waitResponseType', 'approval') as ResponseType;
	const options = this.getNodeParameter('waitOptions', {}) as WaitOptions;
	const message = String(this.getNodeParameter('waitMessage', ''));

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
		const approval = this.getNodeParameter('waitApprovalOptions.values', {}) as ApprovalOptions;
		const choice = isApproval
			? approval.approveLabel?.trim() || DEFAULT_LABELS.approve
			: approval.disapproveLabel?.trim() || DEFAULT_LABELS.decline;
		return { webhookResponse: confirmationPage(choice, message) };
	}
	return { webhookResponse: RECORDED_PAGE, workflowData: [[{ json: { data: { approved: isApproval } } }]] };
}
