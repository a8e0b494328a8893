/**
 * Webhook > Create (`POST /api/Webhooks/`, version 4.0, with the trailing slash): registers a server that receives
 * notifications for the chosen subscription types.
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';

import { PHONE_ID_QUERY_PARAM, WEBHOOK_EVENT_TYPES, WEBHOOK_META_VERSIONS } from '../../../gateway/spec';
import { checkWebhookTypes } from './shape';
import { gatewayRequest, getGatewaySettings } from '../../../gateway/transport';
import { undeliveredEventsNotice } from '../../../gateway/webhookEvents';
import { inputError, readTextOption, readTextParameter, timeoutMsOf, timeoutOption } from '../common';
import { endpointRefusal, headersMap, normaliseWebhook } from './shape';

const show = { resource: ['webhook'], operation: ['create'] };

const eventTypeName = (type: string) =>
	type
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');

export const description: INodeProperties[] = [
	{
		displayName: 'Endpoint',
		name: 'endpoint',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://n8n.example.com/webhook/messages',
		description:
			'HTTPS address of the server that receives the notifications. It needs a valid TLS certificate: self-signed ones are not supported.',
		displayOptions: { show },
	},
	{
		displayName: 'Subscription Types',
		name: 'types',
		type: 'multiOptions',
		options: WEBHOOK_EVENT_TYPES.map((type) => ({ name: eventTypeName(type), value: type })),
		default: ['messages'],
		required: true,
		description: 'Events to be notified of. The gateway currently delivers only Messages.',
		displayOptions: { show },
	},
	undeliveredEventsNotice('types', show),
	{
		displayName: 'Meta Version',
		name: 'metaVersion',
		type: 'options',
		options: WEBHOOK_META_VERSIONS.map((version) => ({
			name: version === 'LATEST' ? 'Latest (Any Version)' : version,
			value: version,
		})),
		default: 'LATEST',
		description: 'Network version the webhook is bound to; a webhook for Latest receives notifications of any version',
		displayOptions: { show },
	},
	{
		displayName: 'Custom Headers',
		name: 'customHeaders',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Header',
		default: {},
		description:
			'Headers sent with every notification. A secret header that the receiver checks tells real notifications from forged ones.',
		displayOptions: { show },
		options: [
			{
				displayName: 'Header',
				name: 'header',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', placeholder: 'e.g. X-Webhook-Secret' },
					{ displayName: 'Value', name: 'value', type: 'string', typeOptions: { password: true }, default: '' },
				],
			},
		],
	},
	{
		displayName: 'Phone',
		name: 'phone',
		type: 'string',
		default: '',
		placeholder: 'e.g. 5511999999999',
		description:
			'The phone whose notifications the webhook receives (sent as `phone`). Empty: the credential’s Phone ID, else Options › Act as Phone ID.',
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			timeoutOption,
			{
				displayName: 'Act as Phone ID',
				name: 'phoneId',
				type: 'string',
				default: '',
				description:
					'The account the gateway registers the webhook under (the phoneId query parameter), when the credential has no Phone ID or permits another. Not the phone the webhook listens to: that is Phone above.',
			},
		],
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const endpoint = readTextParameter.call(this, 'endpoint', itemIndex, 'Endpoint');
	const refusal = endpointRefusal(endpoint);
	if (refusal) throw inputError(this.getNode(), itemIndex, 'Endpoint', refusal);

	const types = checkWebhookTypes(this.getNodeParameter('types', itemIndex, []));
	if ('problem' in types) throw inputError(this.getNode(), itemIndex, 'Subscription Types', types.problem);
	const metaVersion = readTextParameter.call(this, 'metaVersion', itemIndex, 'Meta Version') || 'LATEST';
	if (!(WEBHOOK_META_VERSIONS as readonly string[]).includes(metaVersion)) {
		throw inputError(this.getNode(), itemIndex, 'Meta Version', `"${metaVersion}" is not one of ${WEBHOOK_META_VERSIONS.join(', ')}`);
	}
	const pairs = (this.getNodeParameter('customHeaders.header', itemIndex, []) as IDataObject[]).map((pair, i) => ({
		name: readTextOption.call(this, pair.name, itemIndex, `Custom Headers › header ${i + 1} › Name`),
		value: readTextOption.call(this, pair.value, itemIndex, `Custom Headers › header ${i + 1} › Value`),
	}));
	const headers = headersMap(pairs);
	if ('error' in headers) {
		throw inputError(this.getNode(), itemIndex, 'Custom Headers', headers.error);
	}
	const options = this.getNodeParameter('options', itemIndex, {}) as IDataObject;
	const phoneIdQuery = readTextOption.call(this, options.phoneId, itemIndex, 'Options › Act as Phone ID');
	const phone =
		readTextParameter.call(this, 'phone', itemIndex, 'Phone') ||
		(await getGatewaySettings.call(this)).phoneId ||
		phoneIdQuery;
	if (!phone) {
		throw inputError(
			this.getNode(),
			itemIndex,
			'Phone',
			'is empty and the credential has no Phone ID',
			'The gateway needs the phone of the account the webhook is for: set Phone, or the credential’s Phone ID.',
		);
	}

	const body: IDataObject = { phone, meta_version: metaVersion, types: types.value, headers: headers.headers, endpoint };

	const response = await gatewayRequest.call(this, {
		endpoint: 'webhooks',
		method: 'POST',
		pathSuffix: '/',
		qs: phoneIdQuery ? { [PHONE_ID_QUERY_PARAM]: phoneIdQuery } : undefined,
		body,
		itemIndex,
		timeoutMs: timeoutMsOf.call(this, itemIndex),
	});
	return normaliseWebhook(response.body);
}
