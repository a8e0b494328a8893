/**
 * Message resource (`POST /api/Messages`, version 5.0): send every message type of spec 2.2, mark a received
 * message as read, or send a question and wait for the recipient's answer.
 */
import type { INodeProperties } from 'n8n-workflow';

import * as markAsRead from './markAsRead.operation';
import * as send from './send.operation';
import * as sendAndWait from './sendAndWait.operation';
import { sendingField } from '../sending';
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

/** Read by the router: items per batch and the pause between batches, for large runs under rate limits. */
const batchingField: INodeProperties = {
	displayName: 'Batching',
	name: 'batching',
	type: 'collection',
	placeholder: 'Add Batching Option',
	default: {},
	description: 'Send in batches with a pause between them, to stay under the rate limits of the network',
	// Not in the AI-tool variant of the node (`@tool`), where one call sends one message.
	displayOptions: { show: { resource: ['message'], operation: ['send', 'markAsRead'], '@tool': [false] } },
	options: [
		{
			displayName: 'Batch Interval (Ms)',
			name: 'batchInterval',
			type: 'number',
			typeOptions: { minValue: 0 },
			default: 1000, // BATCHING_DEFAULTS.intervalMs (the lint rule wants a literal; a test keeps them equal)
			description: 'Pause between batches in milliseconds',
		},
		{
			displayName: 'Items per Batch',
			name: 'batchSize',
			type: 'number',
			typeOptions: { minValue: 1 },
			default: 50, // BATCHING_DEFAULTS.size
			description: 'Number of items sent before each pause',
		},
	],
};

export const description: INodeProperties[] = [
	operationField,
	recipientField,
	defaultCountryField,
	...send.description,
	...markAsRead.description,
	...sendAndWait.description,
	batchingField,
	sendingField,
];
