/**
 * The editor fields of Message > Send and Wait for Response. Names and shapes are n8n's own send-and-wait
 * convention (`message`, `responseType`, `approvalOptions.values`, `options`, as in n8n-nodes-base's
 * utils/sendAndWait): n8n's "Human in the Loop" tool variant of this node replaces `message` with its own field (the
 * tool call to review) and hides `responseType` as 'approval', by these names.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import type { ResponseType } from './waiting';

const show = { resource: ['message'], operation: ['sendAndWait'] };

const forResponseType = (responseType: ResponseType): IDisplayOptions => ({
	show: { ...show, responseType: [responseType] },
});

const limitWaitTimeOption: INodeProperties = {
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
};

export const description: INodeProperties[] = [
	{
		displayName: 'Message',
		name: 'message',
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
		name: 'responseType',
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
		name: 'approvalOptions',
		type: 'fixedCollection',
		placeholder: 'Add option',
		default: {},
		displayOptions: forResponseType('approval'),
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
	// Two "Options" under one name, as in n8n's own send-and-wait nodes: each lists only what its response type uses.
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: forResponseType('approval'),
		options: [
			{
				displayName: 'Ask for Confirmation',
				name: 'confirmationPage',
				type: 'boolean',
				default: false,
				description:
					'Whether opening an approval link shows a page with a button to confirm, instead of recording the answer at once. Protects against link scanners and accidental taps.',
			},
			limitWaitTimeOption,
		],
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add option',
		default: {},
		displayOptions: forResponseType('freeText'),
		options: [
			limitWaitTimeOption,
			{
				displayName: 'Message Button Label',
				name: 'messageButtonLabel',
				type: 'string',
				default: 'Respond',
				description: 'Label of the link to the response form in the message',
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
