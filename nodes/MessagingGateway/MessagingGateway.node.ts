import type {
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { messagingGatewayApiTest } from '../gateway/credentialTest';
import { asNodeError, describeRefusal, errorJson } from './actions/common';
import { waitingWebhooks, onWaitingWebhook } from './actions/message/sendAndWait.operation';
import { type ItemOperation, type Operation, resourceField, resourceFields, resources, subtitle } from './actions/resources';
import { loadOptions, resourceMapping } from './methods';

export class MessagingGateway implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Gateway',
		name: 'messagingGateway',
		// A page, not an anchor: n8n appends its tracking query to the link, which would land inside a #fragment.
		documentationUrl: 'https://github.com/messaging-gateway/n8n-nodes-messaging-gateway/blob/main/docs/operations.md',
		icon: { light: 'file:../../icons/messagingGateway.svg', dark: 'file:../../icons/messagingGateway.dark.svg' },
		group: ['output'],
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle,
		description:
			'Send WhatsApp messages of every type, manage templates, webhooks and media, and upload person files through the messaging gateway',
		defaults: { name: 'Messaging Gateway' },
		usableAsTool: true,
		inputs: [NodeConnectionTypes.Main],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true, testedBy: 'messagingGatewayApiTest' }],
		webhooks: waitingWebhooks,
		properties: [
			resourceField,
			...resourceFields,
		],
	};

	methods = {
		credentialTest: { messagingGatewayApiTest },
		loadOptions,
		resourceMapping,
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await onWaitingWebhook.call(this);
	}

	/**
	 * The router: the operation of the chosen resource. The message operations and the person upload take the whole
	 * input (they send in parallel, or build one file); the others run once per item, here.
	 */
	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		const items = this.getInputData();
		const resource = this.getNodeParameter('resource', 0) as keyof typeof resources;
		const operationName = this.getNodeParameter('operation', 0) as string;
		const operation: Operation | undefined = (resources[resource]?.operations as Record<string, Operation> | undefined)?.[operationName];
		if (!operation) {
			throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
		}
		if ('executeAll' in operation) return [await operation.executeAll.call(this, items)];
		return [await eachItem.call(this, operation, items, { resource, operation: operationName })];
	}
}

/**
 * An operation once per item, one after another; output items keep their pairing. Without Continue On Fail the first
 * failure stops the run, saying how many items were done; with it, a failure is an error item in its place.
 */
async function eachItem(
	this: IExecuteFunctions,
	operation: ItemOperation,
	items: INodeExecutionData[],
	where: { resource: string; operation: string },
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		let result: IDataObject | IDataObject[];
		try {
			result = await operation.execute.call(this, itemIndex);
		} catch (error) {
			const nodeError = describeRefusal(this.getNode(), asNodeError(this.getNode(), error, itemIndex), itemIndex, where);
			if (this.continueOnFail()) {
				output.push({ json: errorJson(nodeError), pairedItem: { item: itemIndex } });
				continue;
			}
			if (items.length > 1) {
				const done = `${itemIndex} of ${items.length} items were done before the run stopped at item ${itemIndex} (no further item was started).`;
				nodeError.description = nodeError.description ? `${nodeError.description} ${done}` : done;
			}
			throw nodeError;
		}
		for (const json of Array.isArray(result) ? result : [result]) output.push({ json, pairedItem: { item: itemIndex } });
	}
	return output;
}
