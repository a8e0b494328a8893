import type {
	IExecuteFunctions,
	INodeExecutionData,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
} from 'n8n-workflow';
import { NodeConnectionTypes } from 'n8n-workflow';

import { messagingGatewayApiTest } from '../gateway/credentialTest';
import { waitingWebhooks, onWaitingWebhook } from './actions/message/sendAndWait.operation';
import { resourceField, resourceFields, subtitle } from './actions/resources';
import { router } from './actions/router';
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

	async execute(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
		return await router.call(this);
	}
}
