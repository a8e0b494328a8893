/**
 * What activation and deactivation need besides the pure registration logic: the settings the node would register now,
 * the secret derived from the credential, and the removal of stale registrations.
 */
import type { IDataObject, IHookFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { redact } from '../gateway/errors';
import { WEBHOOK_EVENT_TYPES, WEBHOOK_META_VERSIONS } from '../gateway/spec';
import { CREDENTIAL_TYPE, gatewayRequest, getGatewaySettings } from '../gateway/transport';
import type { TriggerOptions } from './description';
import {
	deriveWebhookSecret,
	listedWebhooks,
	registrationsFor,
	userHeaders,
	type ListedWebhook,
	type MetaVersion,
	type RegistrationSettings,
	type StoredRegistration,
} from './registration';

/** What the node would register now, from its parameters and the credential, and the secret that goes with it. */
export async function registrationSettings(
	this: IHookFunctions,
): Promise<{ settings: RegistrationSettings; baseUrl: string; secret: string }> {
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

	const metaVersion = this.getNodeParameter('options.metaVersion', 'LATEST') as MetaVersion;
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
	// The one place the trigger reads the API key itself: to derive the secret, never to send it.
	const { apiKey } = await this.getCredentials(CREDENTIAL_TYPE);
	if (typeof apiKey !== 'string' || apiKey === '') {
		throw new NodeOperationError(this.getNode(), 'The Messaging Gateway credential has no API key');
	}
	const secret = deriveWebhookSecret(apiKey, endpoint);
	return { settings: { endpoint, types, metaVersion, phone: phoneId, headers }, baseUrl, secret };
}

export async function registrationsForThisUrl(this: IHookFunctions, endpoint: string): Promise<ListedWebhook[]> {
	const response = await gatewayRequest.call(this, { endpoint: 'webhooks', method: 'GET' });
	return registrationsFor(listedWebhooks(response.body), endpoint);
}

/** A registration for this URL that is not (or no longer) right must go before a new one is made. */
export async function removeStaleRegistration(this: IHookFunctions, stale: ListedWebhook): Promise<void> {
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

/** Forgets the registration; the events seen (duplicate guard) stay, a re-delivery after re-activation is still one. */
export function forgetRegistration(staticData: StoredRegistration): void {
	delete staticData.webhookId;
	delete staticData.secretVerifier;
	delete staticData.registrationFingerprint;
	delete staticData.phoneId;
	delete staticData.webhookSecret;
}

/** A failed creation may echo the request (and so the secret): the error the user sees must not. */
export function withoutSecret(context: IHookFunctions, error: unknown, secret: string): unknown {
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

export function httpCodeOf(error: unknown): string | undefined {
	const code = (error as { httpCode?: unknown }).httpCode;
	return typeof code === 'string' ? code : undefined;
}

export function messageOf(error: unknown): string {
	return error instanceof Error ? error.message : String(error);
}
