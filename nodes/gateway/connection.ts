/**
 * The credential of a run, read once: the base URL, phone id and default country it gives, the API key for the
 * `apikey` header, and n8n's cancel signal of the execution.
 */
import type { IExecuteFunctions, IHookFunctions, ILoadOptionsFunctions, IWebhookFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { normaliseBaseUrl } from './urls';

/** The credential type every node of the package uses. */
export const CREDENTIAL_TYPE = 'messagingGatewayApi';

export type GatewayContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface GatewaySettings {
	baseUrl: string;
	phoneId: string;
	/** The credential's Default Country as typed (checked by its reader, gateway/phone.ts); '' when not set. */
	defaultCountry: string;
}

/** A run's connection to the gateway: the credential read once, and n8n's cancel signal of the execution. */
export interface GatewayConnection {
	settings: GatewaySettings;
	/** Given to the `apikey` header and kept out of every error text. */
	apiKey: string;
	/** Aborted when n8n cancels the execution (stop, workflow timeout); none outside an execution. */
	cancel?: AbortSignal;
}

/**
 * Reads the credential (n8n decrypts it on each read: a run sending thousands of messages opens one connection
 * and reuses it) and the execution's cancel signal.
 */
export async function openConnection(this: GatewayContext): Promise<GatewayConnection> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = normaliseBaseUrl(credentials.baseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(this.getNode(), 'The Base URL of the Messaging Gateway credential is not an http(s) address', {
			description: 'Open the credential and set Base URL to the gateway address, for example https://gateway.example.com',
		});
	}
	const cancel = 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined;
	return {
		settings: {
			baseUrl,
			phoneId: String(credentials.phoneId ?? '').trim(),
			defaultCountry: String(credentials.defaultCountry ?? '').trim(),
		},
		apiKey: typeof credentials.apiKey === 'string' ? credentials.apiKey : '',
		cancel,
	};
}

/** The credential's base URL, phone id and default country. The API key is not returned. */
export async function getGatewaySettings(this: GatewayContext): Promise<GatewaySettings> {
	return (await openConnection.call(this)).settings;
}
