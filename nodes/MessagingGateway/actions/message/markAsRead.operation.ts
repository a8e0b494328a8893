/** Message > Mark as Read: `{ messaging_product, status: 'read', message_id }` (spec 2.2; no `to`, no `type`). */
import type { IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import { CHANNEL } from '../../../gateway/spec';
import { MessageRun } from './run';
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

/** Each item's read receipt, through the message run (run.ts: parallel, paced, retry-safe). */
export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const run = await MessageRun.open(this);
	const output = await run.forEachItem(
		items.map((_, itemIndex) => itemIndex),
		() => ({ resource: 'message', operation: 'markAsRead' }),
		async (itemIndex) => {
			const messageId = run.param('readMessageId', itemIndex);
			const body = run.check(itemIndex, () => buildMarkAsReadBody(messageId));
			return await run.send(itemIndex, body, { message: body, markedMessageId: body.message_id });
		},
	);
	run.close(output);
	return output;
}
