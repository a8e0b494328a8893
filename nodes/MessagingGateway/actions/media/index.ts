/** Media resource (`/api/Medias`, version 6.0): upload a file that messages then reference by its ID. */
import type { INodeProperties } from 'n8n-workflow';

import * as upload from './upload.operation';

export const operations = { upload };

export const operationField: INodeProperties = {
	displayName: 'Operation',
	name: 'operation',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['media'] } },
	options: [
		{
			name: 'Upload',
			value: 'upload',
			action: 'Upload a media file',
			description: 'Upload a file and get the media ID that messages use',
		},
	],
	default: 'upload',
};

export const description: INodeProperties[] = [operationField, ...upload.description];
