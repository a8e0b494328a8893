import type { ICredentialDataDecryptedObject, ICredentialType, IHttpRequestOptions, INodeProperties, Icon } from 'n8n-workflow';

import { DEFAULT_BASE_URL } from '../nodes/gateway/spec';

/**
 * The gateway's API key, the network account's phone id and the gateway's address. The key travels only in the
 * `apikey` header that n8n adds to each request; the nodes never read it themselves.
 * The connection test is `messagingGatewayApiTest` in the nodes: the key (GET /api/Profiles), the Default Country
 * and the Phone ID (against the phone ids on the key's webhooks), a sentence per failure.
 */
export class MessagingGatewayApi implements ICredentialType {
	name = 'messagingGatewayApi';

	displayName = 'Messaging Gateway API';

	icon: Icon = {
		light: 'file:../icons/messagingGateway.svg',
		dark: 'file:../icons/messagingGateway.dark.svg',
	};

	documentationUrl = 'https://github.com/messaging-gateway/n8n-nodes-messaging-gateway/blob/main/docs/credentials.md';

	properties: INodeProperties[] = [
		{
			displayName: 'API Key',
			name: 'apiKey',
			type: 'string',
			typeOptions: { password: true },
			default: '',
			required: true,
			description: 'The API key the gateway issued to your account',
		},
		{
			displayName: 'Phone ID',
			name: 'phoneId',
			type: 'string',
			default: '',
			description:
				'The phone ID of your network account. Used as the default phone of new webhooks; leave empty when the API key already belongs to one phone.',
		},
		{
			displayName: 'Default Country',
			name: 'defaultCountry',
			type: 'string',
			default: '',
			placeholder: 'e.g. BR',
			description:
				'Two-letter country code (ISO 3166) of phone numbers written without their country code, such as (11) 98888-7777 for BR. Empty: every number needs its country code. A node may override it.',
		},
		{
			displayName: 'Base URL',
			name: 'baseUrl',
			type: 'string',
			default: DEFAULT_BASE_URL,
			required: true,
			placeholder: DEFAULT_BASE_URL,
			description: 'Address of the gateway, without a path. A trailing slash is fine.',
		},
	];

	/**
	 * The `apikey` header on every request of n8n's authenticated helper. A function rather than n8n's generic form
	 * (`={{$credentials.apiKey}}`): n8n evaluates that form as an expression on each request, which costs as much as a
	 * message's own expressions (docs/benchmarks.md, the send pipeline's profile).
	 */
	async authenticate(credentials: ICredentialDataDecryptedObject, requestOptions: IHttpRequestOptions): Promise<IHttpRequestOptions> {
		return { ...requestOptions, headers: { ...requestOptions.headers, apikey: String(credentials.apiKey ?? '') } };
	}
}
