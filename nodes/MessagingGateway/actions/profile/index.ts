/** Business Profile resource (`/api/Profiles`, version 4.0): read the profile configured for the API key. */
import type { INodeProperties } from 'n8n-workflow';

import * as get from './get.operation';

export const operations = { get };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['profile'] } },
	options: [
		{ name: 'Get', value: 'get', action: 'Get the business profile', description: 'Get the business profile' },
	],
	default: 'get',
};

export const description: INodeProperties[] = [operationField, ...get.description];
