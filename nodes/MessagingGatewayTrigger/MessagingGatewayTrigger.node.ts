import type {
	IDataObject,
	IHookFunctions,
	INodeExecutionData,
	INodePropertyOptions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { messagingGatewayApiTest } from '../gateway/credentialTest';
import { redact } from '../gateway/errors';
import { PHONE_ID_QUERY_PARAM, WEBHOOK_EVENT_TYPES, WEBHOOK_META_VERSIONS } from '../gateway/spec';
import { gatewayRequest, getGatewaySettings, isLoopbackUrl } from '../gateway/transport';
import { isHttpsUrl } from '../gateway/urls';
import {
	filterNotificationItems,
	INCOMING_MESSAGE_TYPES,
	MESSAGE_STATUSES,
	parseNotification,
	type NotificationFilters,
} from './notifications';
import {
	creationBody,
	isStoredRegistrationCurrent,
	listedWebhooks,
	newWebhookSecret,
	registrationFingerprint,
	registrationsFor,
	secretMatches,
	SECRET_HEADER,
	userHeaders,
	type ListedWebhook,
	type MetaVersion,
	type RegistrationSettings,
	type StoredRegistration,
} from './registration';

/** What each subscription field delivers (spec section 6). */
const EVENT_DESCRIPTIONS: Record<(typeof WEBHOOK_EVENT_TYPES)[number], string> = {
	account_review_update: 'The review of the business account finished',
	account_update: 'A change to the business account (phone number update, policy violation, ban...)',
	business_capability_update: 'A capability changed, such as the maximum number of phones or conversations',
	message_template_status_update: 'A template was approved, rejected or disabled',
	messages: 'Incoming messages, and the sent, delivered, read and failed updates of outgoing ones',
	phone_number_name_update: 'The name of a phone number was approved or rejected',
	phone_number_quality_update: 'The quality status of a phone number changed',
	security: 'Two-step verification changes',
};

const titleOf = (value: string) =>
	value
		.split('_')
		.map((word) => word.charAt(0).toUpperCase() + word.slice(1))
		.join(' ');

const EVENT_OPTIONS: INodePropertyOptions[] = WEBHOOK_EVENT_TYPES.map((type) => ({
	name: titleOf(type),
	value: type,
	description: EVENT_DESCRIPTIONS[type],
}));

const META_VERSION_OPTIONS: INodePropertyOptions[] = WEBHOOK_META_VERSIONS.map((version) => ({
	name: version === 'LATEST' ? 'Latest (Any Version)' : version,
	value: version,
}));

interface TriggerOptions {
	statusUpdates?: NotificationFilters['statusUpdates'];
	statuses?: string[];
	messageTypes?: string[];
	extraHeaders?: { header?: Array<{ name?: string; value?: string }> };
	includeRawPayload?: boolean;
}

export class MessagingGatewayTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Gateway Trigger',
		name: 'messagingGatewayTrigger',
		icon: { light: 'file:../../icons/messagingGateway.svg', dark: 'file:../../icons/messagingGateway.dark.svg' },
		group: ['trigger'],
		version: 1,
		subtitle: '={{[].concat($parameter["events"]).join(", ")}}',
		// n8n's node creator lists this trigger and the action node as one entry with this trigger's description, so
		// it describes both.
		description:
			'WhatsApp through the messaging gateway: send every message type, manage templates and media, and start workflows from incoming messages',
		defaults: { name: 'Messaging Gateway Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true, testedBy: 'messagingGatewayApiTest' }],
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: [
			{
				displayName:
					"The webhook is registered at the gateway automatically when you activate the workflow, and removed when you deactivate it. The gateway only calls https addresses with a valid certificate: n8n's WEBHOOK_URL must be one.",
				name: 'registrationNotice',
				type: 'notice',
				default: '',
			},
			{
				displayName: 'Events',
				name: 'events',
				type: 'multiOptions',
				options: EVENT_OPTIONS,
				default: ['messages'],
				required: true,
				description:
					'The subscription fields to register the webhook for. The gateway currently delivers only Messages.',
			},
			{
				displayName: 'Meta Version',
				name: 'metaVersion',
				type: 'options',
				options: META_VERSION_OPTIONS,
				default: 'LATEST',
				description:
					'The network API version whose notifications this webhook receives. Latest receives them whatever the version.',
			},
			{
				displayName: 'Options',
				name: 'options',
				type: 'collection',
				placeholder: 'Add Option',
				default: {},
				options: [
					{
						displayName: 'Extra Headers',
						name: 'extraHeaders',
						type: 'fixedCollection',
						placeholder: 'Add Header',
						typeOptions: { multipleValues: true },
						default: {},
						description:
							'Headers the gateway sends with every notification, for a proxy in front of n8n for example. The node adds its own secret header.',
						options: [
							{
								displayName: 'Header',
								name: 'header',
								values: [
									{ displayName: 'Name', name: 'name', type: 'string', default: '' },
									{ displayName: 'Value', name: 'value', type: 'string', default: '' },
								],
							},
						],
					},
					{
						displayName: 'Include Raw Notification',
						name: 'includeRawPayload',
						type: 'boolean',
						default: false,
						description: 'Whether to add the notification as the gateway sent it to each item, as rawNotification',
					},
					{
						displayName: 'Message Types',
						name: 'messageTypes',
						type: 'multiOptions',
						options: INCOMING_MESSAGE_TYPES.map((type) => ({ name: titleOf(type), value: type })),
						default: [],
						description: 'Keep only incoming messages of these types. Empty keeps every type.',
					},
					{
						displayName: 'Status Updates',
						name: 'statusUpdates',
						type: 'options',
						options: [
							{ name: 'None', value: 'none', description: 'Only incoming messages start the workflow' },
							{ name: 'All', value: 'all', description: 'Sent, delivered, read and failed updates too' },
							{ name: 'Chosen Statuses', value: 'chosen', description: 'Only those of the Statuses option' },
						],
						default: 'none',
						description: 'Whether updates of the messages you sent (sent, delivered, read, failed) start the workflow',
					},
					{
						displayName: 'Statuses',
						name: 'statuses',
						type: 'multiOptions',
						options: MESSAGE_STATUSES.map((status) => ({ name: titleOf(status), value: status })),
						default: ['failed'],
						displayOptions: { show: { statusUpdates: ['chosen'] } },
						description: 'The status updates that start the workflow',
					},
				],
			},
		],
	};

	methods = {
		credentialTest: { messagingGatewayApiTest },
	};

	webhookMethods = {
		default: {
			/** True when the registration this node made is still there and still what the node would register now. */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const { settings } = await registrationSettings.call(this);
				const forThisUrl = await registrationsForThisUrl.call(this, settings.endpoint);
				const stored = this.getWorkflowStaticData('node') as StoredRegistration;
				return isStoredRegistrationCurrent(stored, forThisUrl, settings);
			},

			/** Registers the webhook with a new secret, replacing (never duplicating) any registration for this URL. */
			async create(this: IHookFunctions): Promise<boolean> {
				const { settings, baseUrl } = await registrationSettings.call(this);
				if (!isHttpsUrl(settings.endpoint) && !isLoopbackUrl(baseUrl)) {
					throw new NodeOperationError(
						this.getNode(),
						`The gateway only delivers to https addresses, and n8n's webhook URL is ${settings.endpoint}`,
						{
							description:
								"Set n8n's WEBHOOK_URL environment variable to a public https address with a valid certificate (for example behind a reverse proxy or a tunnel), restart n8n and activate the workflow again. Self-signed certificates are not accepted.",
						},
					);
				}
				const staticData = this.getWorkflowStaticData('node') as StoredRegistration;
				for (const stale of await registrationsForThisUrl.call(this, settings.endpoint)) {
					await removeStaleRegistration.call(this, stale);
				}
				forget(staticData);

				const secret = newWebhookSecret();
				let response;
				try {
					response = await gatewayRequest.call(this, {
						endpoint: 'webhooks',
						method: 'POST',
						pathSuffix: '/',
						qs: { [PHONE_ID_QUERY_PARAM]: settings.phone },
						body: creationBody(settings, secret),
					});
				} catch (error) {
					throw withoutSecret(this, error, secret);
				}
				const id = response.body.id;
				if (typeof id !== 'string' && typeof id !== 'number') {
					throw new NodeApiError(this.getNode(), {} as JsonObject, {
						message: 'The gateway accepted the webhook but answered without its id',
						description: 'Without the id the webhook cannot be removed on deactivation; check the gateway.',
						httpCode: String(response.statusCode),
					});
				}
				staticData.webhookId = String(id);
				staticData.webhookSecret = secret;
				staticData.registrationFingerprint = registrationFingerprint(settings);
				return true;
			},

			/** Removes the registration as a best effort: a deactivation never fails because the gateway refused. */
			async delete(this: IHookFunctions): Promise<boolean> {
				const staticData = this.getWorkflowStaticData('node') as StoredRegistration;
				const { webhookId, webhookSecret } = staticData;
				if (webhookId) {
					try {
						await gatewayRequest.call(this, { endpoint: 'webhooks', method: 'DELETE', pathSuffix: `/${webhookId}` });
					} catch (error) {
						if (httpCodeOf(error) !== '404') {
							this.logger.warn(
								redact(
									`Messaging Gateway Trigger: the gateway did not remove webhook ${webhookId}: ${messageOf(error)}`,
									[webhookSecret],
								),
							);
						}
					}
				}
				forget(staticData);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		const response = this.getResponseObject();
		const { webhookSecret } = this.getWorkflowStaticData('node') as StoredRegistration;
		if (!webhookSecret || !secretMatches(this.getHeaderData()[SECRET_HEADER], webhookSecret)) {
			response.status(401).json({ message: 'Missing or wrong webhook secret header' });
			return { noWebhookResponse: true };
		}

		const payload = await readJsonBody.call(this);
		if (payload === undefined) {
			response.status(400).json({ message: 'The body is not JSON' });
			return { noWebhookResponse: true };
		}
		const parsed = parseNotification(payload);
		if (!parsed.isNotification) {
			response.status(400).json({ message: parsed.reason });
			return { noWebhookResponse: true };
		}

		const options = this.getNodeParameter('options', {}) as TriggerOptions;
		const items = filterNotificationItems(parsed.items, {
			statusUpdates: options.statusUpdates,
			statuses: options.statuses,
			messageTypes: options.messageTypes,
		});
		// Nothing the user wants: the gateway gets its 200, no execution starts.
		if (items.length === 0) return {};

		const output: INodeExecutionData[] = items.map((item) => ({
			json: (options.includeRawPayload ? { ...item, rawNotification: payload } : item) as IDataObject,
		}));
		return { workflowData: [output] };
	}
}

/** What the node would register now, from its parameters and the credential. */
async function registrationSettings(
	this: IHookFunctions,
): Promise<{ settings: RegistrationSettings; baseUrl: string }> {
	const endpoint = this.getNodeWebhookUrl('default');
	if (!endpoint) throw new NodeOperationError(this.getNode(), 'n8n did not provide a webhook URL for this node');

	const types = [...new Set(this.getNodeParameter('events', ['messages']) as string[])];
	if (types.length === 0) {
		throw new NodeOperationError(this.getNode(), 'Choose at least one event', {
			description: 'The gateway delivers notifications only for the events a webhook is registered for.',
		});
	}
	const unknownType = types.find((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type));
	if (unknownType !== undefined) {
		throw new NodeOperationError(this.getNode(), `"${unknownType}" is not an event of the gateway`, {
			description: `Events: ${WEBHOOK_EVENT_TYPES.join(', ')}`,
		});
	}

	const metaVersion = this.getNodeParameter('metaVersion', 'LATEST') as MetaVersion;
	if (!(WEBHOOK_META_VERSIONS as readonly string[]).includes(metaVersion)) {
		throw new NodeOperationError(this.getNode(), `"${metaVersion}" is not a Meta version of the gateway`, {
			description: `Versions: ${WEBHOOK_META_VERSIONS.join(', ')}`,
		});
	}

	const options = this.getNodeParameter('options', {}) as TriggerOptions;
	const headers = userHeaders(options.extraHeaders?.header ?? []);
	if (typeof headers === 'string') throw new NodeOperationError(this.getNode(), `Extra Headers: ${headers}`);

	const { baseUrl, phoneId } = await getGatewaySettings.call(this);
	if (phoneId === '') {
		throw new NodeOperationError(this.getNode(), 'The Messaging Gateway credential has no Phone ID', {
			description:
				'The gateway registers a webhook for the phone of one network account: open the credential and set its Phone ID.',
		});
	}
	return { settings: { endpoint, types, metaVersion, phone: phoneId, headers }, baseUrl };
}

async function registrationsForThisUrl(this: IHookFunctions, endpoint: string): Promise<ListedWebhook[]> {
	const response = await gatewayRequest.call(this, { endpoint: 'webhooks', method: 'GET' });
	return registrationsFor(listedWebhooks(response.body), endpoint);
}

/** A registration for this URL that is not (or no longer) right must go before a new one is made. */
async function removeStaleRegistration(this: IHookFunctions, stale: ListedWebhook): Promise<void> {
	try {
		await gatewayRequest.call(this, { endpoint: 'webhooks', method: 'DELETE', pathSuffix: `/${stale.id}` });
	} catch (error) {
		if (httpCodeOf(error) === '404') return;
		// Creating anyway would deliver every notification twice, once without the new secret.
		throw new NodeApiError(this.getNode(), {} as JsonObject, {
			message: `The gateway did not remove the earlier registration (${stale.id}) of this webhook: ${messageOf(error)}`,
			description:
				'The node replaces its registration when its settings change, and does not register the same URL twice. Remove the webhook at the gateway, then activate the workflow again.',
			httpCode: httpCodeOf(error),
		});
	}
}

/** Reads the notification: n8n's parsed JSON body, or the raw bytes when n8n did not parse them. */
async function readJsonBody(this: IWebhookFunctions): Promise<unknown> {
	const body: unknown = this.getBodyData();
	if (typeof body === 'object' && body !== null && Object.keys(body).length > 0) return body;

	const request = this.getRequestObject() as unknown as { rawBody?: unknown; readRawBody?: () => Promise<void> };
	if (request.rawBody === undefined && typeof request.readRawBody === 'function') await request.readRawBody();
	let raw = typeof body === 'string' ? body : '';
	if (Buffer.isBuffer(request.rawBody)) raw = request.rawBody.toString('utf8');
	if (raw.trim() === '') return body ?? {};
	try {
		return JSON.parse(raw) as unknown;
	} catch {
		return undefined;
	}
}

function forget(staticData: StoredRegistration): void {
	delete staticData.webhookId;
	delete staticData.webhookSecret;
	delete staticData.registrationFingerprint;
}

/** A failed creation may echo the request (and so the secret): the error the user sees must not. */
function withoutSecret(context: IHookFunctions, error: unknown, secret: string): unknown {
	const message = messageOf(error);
	const { description, errorResponse, context: errorContext } = error as IDataObject;
	let serialized: string;
	try {
		serialized = JSON.stringify({ message, description, errorResponse, errorContext });
	} catch {
		serialized = secret; // not serializable: assume the worst
	}
	if (!serialized.includes(secret)) return error;
	return new NodeApiError(context.getNode(), {} as JsonObject, {
		message: redact(message, [secret]),
		description: typeof description === 'string' ? redact(description, [secret]) : undefined,
		httpCode: httpCodeOf(error),
	});
}

function httpCodeOf(error: unknown): string | undefined {
	const code = (error as { httpCode?: unknown }).httpCode;
	return typeof code === 'string' ? code : undefined;
}

function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
