/** Template > Get (`GET /api/Templates/{id}`, version 5.0): the template as the gateway returns it. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { gatewayRequest } from '../../../gateway/transport';
import { optionsWithTimeout, timeoutMsOf } from '../common';
import { readTemplateId, templateIdField } from './common';

export const description: INodeProperties[] = [templateIdField('get'), optionsWithTimeout({ resource: ['template'], operation: ['get'] })];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readTemplateId.call(this, itemIndex);
	const response = await gatewayRequest.call(this, {
		endpoint: 'templates',
		method: 'GET',
		pathSuffix: `/${encodeURIComponent(id)}`,
		itemIndex,
		timeoutMs: timeoutMsOf.call(this, itemIndex),
	});
	return response.body;
}
