/** Person Data resource (`POST {base_url}/DataInserterProfiles/api/profile`): bulk upload of person files. */
import type { INodeProperties } from 'n8n-workflow';

import * as upload from './upload.operation';

export const operations = { upload };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['personData'] } },
	options: [
		{
			name: 'Upload',
			value: 'upload',
			action: 'Upload a person file',
			description: 'Upload input items or a CSV/JSON file as person records, split into parts of at most 1 GB',
		},
	],
	default: 'upload',
};

export const description: INodeProperties[] = [operationField, ...upload.description];
