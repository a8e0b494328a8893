/** Template resource (`/api/Templates`, version 5.0): create, get and edit message templates. */
import type { INodeProperties } from 'n8n-workflow';

import * as create from './create.operation';
import * as edit from './edit.operation';
import * as get from './get.operation';

export const operations = { create, edit, get };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['template'] } },
	options: [
		{ name: 'Create', value: 'create', action: 'Create a template', description: 'Create a message template' },
		{ name: 'Edit', value: 'edit', action: 'Edit a template', description: 'Replace the content of a template' },
		{ name: 'Get', value: 'get', action: 'Get a template', description: 'Get a template by ID' },
	],
	default: 'create',
};

export const description: INodeProperties[] = [
	operationField,
	...create.description,
	...edit.description,
	...get.description,
];
