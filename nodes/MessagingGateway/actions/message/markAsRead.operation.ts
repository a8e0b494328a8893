/** Message > Mark as Read: `{ messaging_product, status: 'read', message_id }` (spec 2.2; no `to`, no `type`). */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { CHANNEL } from '../../../gateway/spec';
import { nodeOf, readParameter } from '../parameters';
import type { SendRun } from '../run';
import { checkInput, postMessage } from './execution';
import { requiredText } from './types/common';

export const description: INodeProperties[] = [
	{
		displayName: 'Message ID',
		name: 'readMessageId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjQ2',
		description: 'ID of the received message to mark as read, as given in the incoming message notification',
		displayOptions: { show: { resource: ['message'], operation: ['markAsRead'] } },
	},
];

export function buildMarkAsReadBody(messageId: unknown): { messaging_product: string; status: 'read'; message_id: string } {
	const id = requiredText(messageId, 'Message ID', 'enter the ID of the received message');
	return { messaging_product: CHANNEL, status: 'read', message_id: id };
}

export async function execute(this: IExecuteFunctions, itemIndex: number, run?: SendRun): Promise<IDataObject> {
	if (!run) throw new NodeOperationError(nodeOf.call(this), 'Message > Mark as Read runs only through the router', { itemIndex });
	const messageId = readParameter.call(this, 'readMessageId', itemIndex);
	const body = checkInput(nodeOf.call(this), itemIndex, () => buildMarkAsReadBody(messageId));
	return await postMessage.call(this, run, itemIndex, body, body.message_id);
}
