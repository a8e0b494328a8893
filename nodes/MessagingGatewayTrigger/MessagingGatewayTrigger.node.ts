import type {
	IHookFunctions,
	INodeType,
	INodeTypeDescription,
	IWebhookFunctions,
	IWebhookResponseData,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeConnectionTypes, NodeOperationError } from 'n8n-workflow';

import { messagingGatewayApiTest } from '../gateway/credentialTest';
import { redact } from '../gateway/errors';
import { PHONE_ID_QUERY_PARAM } from '../gateway/spec';
import { gatewayRequest } from '../gateway/transport';
import {
	forgetRegistration,
	httpCodeOf,
	messageOf,
	registrationSettings,
	registrationsForThisUrl,
	removeStaleRegistration,
	withoutSecret,
} from './activation';
import { triggerPanel, triggerProperties, triggerSubtitle } from './description';
import {
	creationBody,
	isDeliverable,
	isStoredRegistrationCurrent,
	registrationFingerprint,
	secretVerifier,
	type StoredRegistration,
} from './registration';
import { handleDelivery } from './webhook';

/**
 * The gateway calls only https addresses with a valid certificate; a gateway on this machine (the local sandbox) takes
 * http. This is where the trigger says so, when n8n's webhook URL cannot work: the panel cannot (a notice knows
 * neither the webhook URL nor the credential, description.ts), activation and "Execute step" do, and n8n shows this
 * error there.
 */
function refuseUndeliverableUrl(this: IHookFunctions, endpoint: string, baseUrl: string): void {
	if (isDeliverable(endpoint, baseUrl)) return;
	throw new NodeOperationError(this.getNode(), `The gateway only delivers to https addresses, and n8n's webhook URL is ${endpoint}`, {
		description:
			"Set n8n's N8N_WEBHOOK_URL environment variable (WEBHOOK_URL before n8n 2) to a public https address with a valid certificate (for example behind a reverse proxy or a tunnel), restart n8n, then publish the workflow or click Execute step again. Self-signed certificates are not accepted. A gateway on this machine (a local sandbox) takes http.",
	});
}

export class MessagingGatewayTrigger implements INodeType {
	description: INodeTypeDescription = {
		displayName: 'Messaging Gateway Trigger',
		name: 'messagingGatewayTrigger',
		// A page, not an anchor: n8n appends its tracking query to the link, which would land inside a #fragment.
		documentationUrl: 'https://github.com/messaging-gateway/n8n-nodes-messaging-gateway/blob/main/docs/trigger.md',
		icon: { light: 'file:../../icons/messagingGateway.svg', dark: 'file:../../icons/messagingGateway.dark.svg' },
		group: ['trigger'],
		// 1.1 behaves as 1. n8n evaluates `$parameter.options.binaryData` through its expression sandbox on every
		// request to a start node of version 1 (parseRequestBody), and skips that from any later version.
		version: [1, 1.1],
		defaultVersion: 1.1,
		subtitle: triggerSubtitle,
		// n8n's node creator lists this trigger and the action node as one entry with this trigger's description, so
		// it describes both.
		description:
			'WhatsApp through the messaging gateway: send every message type, manage templates and media, and start workflows from incoming messages',
		defaults: { name: 'Messaging Gateway Trigger' },
		inputs: [],
		outputs: [NodeConnectionTypes.Main],
		credentials: [{ name: 'messagingGatewayApi', required: true, testedBy: 'messagingGatewayApiTest' }],
		// webhook() answers every request itself (see webhook.ts), so n8n's placeholder answer is never sent.
		webhooks: [{ name: 'default', httpMethod: 'POST', responseMode: 'onReceived', path: 'webhook' }],
		properties: triggerProperties,
		triggerPanel,
	};

	methods = {
		credentialTest: { messagingGatewayApiTest },
	};

	webhookMethods = {
		default: {
			/** True when the registration this node made is still there and still what the node would register now. */
			async checkExists(this: IHookFunctions): Promise<boolean> {
				const { settings, baseUrl, secret } = await registrationSettings.call(this);
				// Before any request: a URL the gateway cannot call is said as such, not as the gateway's unreachability.
				refuseUndeliverableUrl.call(this, settings.endpoint, baseUrl);
				const forThisUrl = await registrationsForThisUrl.call(this, settings.endpoint);
				const stored = this.getWorkflowStaticData('node') as StoredRegistration;
				return isStoredRegistrationCurrent(stored, forThisUrl, settings, secret);
			},

			/** Registers the webhook with the derived secret, replacing (never duplicating) any registration for this URL. */
			async create(this: IHookFunctions): Promise<boolean> {
				const { settings, baseUrl, secret } = await registrationSettings.call(this);
				refuseUndeliverableUrl.call(this, settings.endpoint, baseUrl);
				const staticData = this.getWorkflowStaticData('node') as StoredRegistration;
				for (const stale of await registrationsForThisUrl.call(this, settings.endpoint)) {
					await removeStaleRegistration.call(this, stale);
				}
				forgetRegistration(staticData);

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
				staticData.secretVerifier = secretVerifier(secret);
				staticData.registrationFingerprint = registrationFingerprint(settings);
				staticData.phoneId = settings.phone;
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
				forgetRegistration(staticData);
				return true;
			},
		},
	};

	async webhook(this: IWebhookFunctions): Promise<IWebhookResponseData> {
		return await handleDelivery.call(this);
	}
}
