/**
 * The credential of a run, read once: the base URL, phone id and default country it gives, the decrypted credential
 * that n8n's `httpRequestWithAuthentication` applies (the credential's `authenticate` sets the `apikey` header), and
 * n8n's cancel signal of the execution.
 */
import type {
	ICredentialDataDecryptedObject,
	IExecuteFunctions,
	IHookFunctions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { pause } from './pause';
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
	/** The API key: n8n's `authenticate` puts it in the `apikey` header; the nodes keep it out of every error text. */
	apiKey: string;
	/** The decrypted credential, handed to n8n's request helper so that it is not decrypted again for each request. */
	credentials: ICredentialDataDecryptedObject;
	/** n8n's cancellation of the execution (stop, workflow timeout). */
	cancel: Cancellation;
}

/**
 * The execution's cancel signal, listened to once per connection: the waits and requests of a run subscribe here and
 * unsubscribe when they end, so a run of 100,000 requests adds one listener to the execution's signal, not one per
 * request, and nothing of a finished request stays reachable from it.
 */
export class Cancellation {
	private readonly handlers = new Set<() => void>();
	private readonly onAbort = () => {
		const handlers = [...this.handlers];
		this.handlers.clear();
		for (const handler of handlers) handler();
	};

	/** `signal`: n8n's cancel signal of the execution; none outside an execution (nothing cancels). */
	constructor(readonly signal: AbortSignal | undefined) {
		signal?.addEventListener('abort', this.onAbort, { once: true });
	}

	get aborted(): boolean {
		return this.signal?.aborted === true;
	}

	/** Calls `handler` once when the execution is cancelled; the returned function unsubscribes it. */
	subscribe(handler: () => void): () => void {
		if (!this.signal) return () => undefined;
		this.handlers.add(handler);
		return () => this.handlers.delete(handler);
	}

	/** Stops listening to the execution's signal (the run is over). */
	close(): void {
		this.signal?.removeEventListener('abort', this.onAbort);
		this.handlers.clear();
	}

	/**
	 * Waits `ms` (n8n-workflow's sleep, pause.ts); the execution's cancellation ends the wait at once, and one that is
	 * already cancelled does not wait. True when the time elapsed, false when cancelled.
	 */
	async wait(ms: number): Promise<boolean> {
		if (this.aborted) return false;
		const wait = new AbortController();
		const unsubscribe = this.subscribe(() => wait.abort());
		try {
			return await pause(ms, wait.signal);
		} finally {
			unsubscribe();
		}
	}

	/** Subscribers at the moment (for tests). */
	get size(): number {
		return this.handlers.size;
	}
}

/**
 * Reads the credential (n8n decrypts it on each read: a run sending thousands of messages opens one connection
 * and reuses it) and listens to the execution's cancel signal; `cancel.close()` when the connection is done.
 */
export async function openConnection(this: GatewayContext): Promise<GatewayConnection> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = normaliseBaseUrl(credentials.baseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(this.getNode(), 'The Base URL of the Messaging Gateway credential is not an http(s) address', {
			description: 'Open the credential and set Base URL to the gateway address, for example https://gateway.example.com',
		});
	}
	const cancel = new Cancellation('getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined);
	return {
		settings: {
			baseUrl,
			phoneId: String(credentials.phoneId ?? '').trim(),
			defaultCountry: String(credentials.defaultCountry ?? '').trim(),
		},
		apiKey: typeof credentials.apiKey === 'string' ? credentials.apiKey : '',
		credentials,
		cancel,
	};
}

/** The credential's base URL, phone id and default country. The API key is not returned. */
export async function getGatewaySettings(this: GatewayContext): Promise<GatewaySettings> {
	const connection = await openConnection.call(this);
	connection.cancel.close();
	return connection.settings;
}
