/** Template > Get (`GET /api/Templates/{id}`, version 5.0): the template as the gateway returns it. */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { gatewayRequest } from '../../../gateway/transport';
import { readTemplateId, templateIdField } from './common';

export const description: INodeProperties[] = [templateIdField('get')];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const id = readTemplateId.call(this, itemIndex);
	const response = await gatewayRequest.call(this, {
		endpoint: 'templates',
		method: 'GET',
		pathSuffix: `/${encodeURIComponent(id)}`,
		itemIndex,
	});
	return response.body;
}
