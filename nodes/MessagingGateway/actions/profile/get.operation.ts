/** Business Profile > Get (`GET /api/Profiles`, version 4.0): one item per profile in `data`. */
import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { gatewayRequest } from '../../../gateway/transport';
import { optionsWithTimeout, timeoutMsOf } from '../common';

export const description: INodeProperties[] = [optionsWithTimeout({ resource: ['profile'], operation: ['get'] })];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const response = await gatewayRequest.call(this, { endpoint: 'profiles', method: 'GET', itemIndex, timeoutMs: timeoutMsOf.call(this, itemIndex) });
	const profiles = response.body.data;
	if (!Array.isArray(profiles)) {
		throw new NodeApiError(this.getNode(), response.body as JsonObject, {
			message: 'The gateway’s answer has no profile data',
			itemIndex,
		});
	}
	return profiles as IDataObject[];
}
