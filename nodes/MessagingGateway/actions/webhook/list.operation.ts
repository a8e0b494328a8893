/** Webhook > List (`GET /api/Webhooks`, version 4.0): every webhook of the API key's user, one item each. */
import type { IDataObject, IExecuteFunctions, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { gatewayRequest } from '../../../gateway/transport';
import { optionsWithTimeout, timeoutMsOf } from '../common';
import { normaliseWebhook } from './shape';

export const description: INodeProperties[] = [optionsWithTimeout({ resource: ['webhook'], operation: ['list'] })];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject[]> {
	const response = await gatewayRequest.call(this, { endpoint: 'webhooks', method: 'GET', itemIndex, timeoutMs: timeoutMsOf.call(this, itemIndex) });
	const webhooks = response.body.webhooks;
	if (!Array.isArray(webhooks)) {
		throw new NodeApiError(this.getNode(), response.body as JsonObject, {
			message: 'The gateway’s answer has no list of webhooks',
			itemIndex,
		});
	}
	return (webhooks as IDataObject[]).map((webhook) => normaliseWebhook(webhook));
}
