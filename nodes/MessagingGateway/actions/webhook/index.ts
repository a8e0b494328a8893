/** Webhook resource (`/api/Webhooks`, version 4.0): register a webhook and list them. */
import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as list from './list.operation';

export const operations = { create, list };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['webhook'] } },
	options: [
		{
			name: 'Create',
			value: 'create',
			action: 'Create a webhook',
			description: 'Register a server that receives notifications',
		},
		{ name: 'List', value: 'list', action: 'List webhooks', description: 'List every webhook of the account' },
	],
	default: 'create',
};

export const description: INodeProperties[] = [operationField, ...create.description, ...list.description];
