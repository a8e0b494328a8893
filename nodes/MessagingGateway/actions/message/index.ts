/**
 * Message resource (`POST /api/Messages`, version 5.0): send every message type of spec 2.2, mark a received
 * message as read, or send a question and wait for the recipient's answer.
 */
import type { INodeProperties } from 'n8n-workflow';

import { campaignField } from '../campaign/campaign';
import * as markAsRead from './markAsRead.operation';
import * as send from './send.operation';
import * as sendAndWait from './sendAndWait.operation';
import { sendingField } from './sending';
import { defaultCountryField, recipientField } from './types/common';

export const operations = { send, markAsRead, sendAndWait };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['message'] } },
	// By how often people use them, Send first (not alphabetical, on purpose: the node creator lists them so).
	options: [
		{ name: 'Send', value: 'send', action: 'Send a message', description: 'Send a message of any type' },
		{
			name: 'Send and Wait for Response',
			value: 'sendAndWait',
			action: 'Send a message and wait for response',
			description: 'Send a question and pause the workflow until the recipient answers through a link',
		},
		{
			name: 'Mark as Read',
			value: 'markAsRead',
			action: 'Mark a message as read',
			description: 'Mark a received message as read (blue ticks)',
		},
	],
	default: 'send',
};

export const description: INodeProperties[] = [
	operationField,
	recipientField,
	defaultCountryField,
	...send.description,
	...markAsRead.description,
	...sendAndWait.description,
	sendingField,
	campaignField,
];
