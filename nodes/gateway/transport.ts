/**
 * The one way a request reaches the gateway. It joins the credential's base URL and the endpoint path, sets the
 * endpoint's `version` header from spec.ts, lets n8n add the `apikey` header (credential `authenticate`), and turns
 * every failure into a NodeApiError that carries the gateway's own message and never the API key.
 *
 * Sending twice is worse than failing once: nothing is retried except a 429, which the gateway answers before
 * accepting the request, and only when the body can be sent again (not a stream).
 */
import type { Readable } from 'stream';
import type {
	ICredentialDataDecryptedObject,
	IDataObject,
	IExecuteFunctions,
	IHookFunctions,
	IHttpRequestMethods,
	IHttpRequestOptions,
	ILoadOptionsFunctions,
	IWebhookFunctions,
	JsonObject,
} from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { describeNetworkError, parseRetryAfterSeconds, readGatewayError, redact, redactDeep } from './errors';
import type { MultipartBody } from './multipart';
import { ENDPOINTS, type EndpointName } from './spec';
import { normaliseBaseUrl } from './urls';

export { isLoopbackUrl } from './urls';

/** The credential type every node of the package uses. */
export const CREDENTIAL_TYPE = 'messagingGatewayApi';

export type GatewayContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

export interface GatewayRequest {
	endpoint: EndpointName;
	method: IHttpRequestMethods;
	/** Appended to the endpoint path: `/${id}`, or '/' for `POST /api/Webhooks/`. */
	pathSuffix?: string;
	qs?: IDataObject;
	/** A JSON body, a stream sent as it is, or a multipart form from multipart.ts. */
	body?: IDataObject | IDataObject[] | Readable | MultipartBody;
	/** Defaults to application/json for JSON bodies. */
	contentType?: string;
	contentLength?: number;
	/** Retry a 429 after its Retry-After; defaults to true for JSON bodies, which can be sent again. */
	retryOn429?: boolean;
	/** The input item the request is for, named in errors. */
	itemIndex?: number;
}

export interface GatewayResponse {
	statusCode: number;
	/** The parsed JSON answer (every endpoint of the spec answers a JSON object). */
	body: IDataObject;
	headers: IDataObject;
}

/** How often and how long a 429 is retried: a few tries, never waiting longer than a minute at once. */
export const RATE_LIMIT_RETRY = { maxAttempts: 3, maxWaitSeconds: 60, defaultWaitSeconds: 1 } as const;

export interface GatewaySettings {
	baseUrl: string;
	phoneId: string;
	/** The credential's Default Country as typed (checked by its reader, gateway/phone.ts); '' when not set. */
	defaultCountry: string;
}

/**
 * The credential, read once per node run (one execution context) rather than once per request: a run that sends
 * thousands of messages would otherwise decrypt it thousands of times.
 */
const credentialsByContext = new WeakMap<object, Promise<ICredentialDataDecryptedObject>>();

async function credentialsOf(this: GatewayContext): Promise<ICredentialDataDecryptedObject> {
	let credentials = credentialsByContext.get(this);
	if (!credentials) {
		credentials = this.getCredentials(CREDENTIAL_TYPE);
		credentialsByContext.set(this, credentials);
		credentials.catch(() => credentialsByContext.delete(this));
	}
	return await credentials;
}

/** The credential's base URL, phone id and default country. The API key is not returned: only n8n's authentication touches it. */
export async function getGatewaySettings(this: GatewayContext): Promise<GatewaySettings> {
	const credentials = await credentialsOf.call(this);
	const baseUrl = normaliseBaseUrl(credentials.baseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(this.getNode(), 'The Base URL of the Messaging Gateway credential is not an http(s) address', {
			description: 'Open the credential and set Base URL to the gateway address, for example https://gateway.example.com',
		});
	}
	return {
		baseUrl,
		phoneId: String(credentials.phoneId ?? '').trim(),
		defaultCountry: String(credentials.defaultCountry ?? '').trim(),
	};
}

const isStreamBody = (body: GatewayRequest['body']): boolean =>
	typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';

export async function gatewayRequest(this: GatewayContext, request: GatewayRequest): Promise<GatewayResponse> {
	const { baseUrl } = await getGatewaySettings.call(this);
	const endpoint = ENDPOINTS[request.endpoint];
	const streamed = isStreamBody(request.body);
	const headers: IDataObject = {};
	if (endpoint.version !== null) headers.version = endpoint.version;
	if (request.contentType) headers['Content-Type'] = request.contentType;
	if (request.contentLength !== undefined) headers['Content-Length'] = String(request.contentLength);

	const options: IHttpRequestOptions = {
		method: request.method,
		url: `${baseUrl}${endpoint.path}${request.pathSuffix ?? ''}`,
		headers,
		qs: request.qs,
		body: request.body as IHttpRequestOptions['body'],
		json: !streamed,
		returnFullResponse: true,
		// Statuses are read here, so that n8n neither throws its own error nor re-sends on a 401.
		ignoreHttpStatusErrors: true,
		// A followed redirect would re-send a POST, and would buffer a streamed body in memory to do so.
		disableFollowRedirect: true,
	};

	const retryOn429 = request.retryOn429 ?? !streamed;
	for (let attempt = 1; ; attempt++) {
		const response = await send.call(this, options, baseUrl, request);
		if (response.statusCode === 429 && retryOn429 && attempt < RATE_LIMIT_RETRY.maxAttempts) {
			const wait = parseRetryAfterSeconds(response.headers['retry-after']) ?? RATE_LIMIT_RETRY.defaultWaitSeconds;
			if (wait <= RATE_LIMIT_RETRY.maxWaitSeconds) {
				this.logger.debug(`Gateway rate limit on ${endpoint.path}; retrying in ${wait} s`);
				await sleep(wait * 1000);
				continue;
			}
		}
		if (response.statusCode >= 300) throw await gatewayError.call(this, response, request);
		if (typeof response.body === 'string' && response.body.trim() !== '' && !/^\s*[[{]/.test(response.body)) {
			throw apiError(this, { body: response.body.slice(0, 200) }, {
				message: `The gateway answered ${response.statusCode} with something that is not JSON`,
				description: 'Check the Base URL of the credential: it should be the gateway address, without a path.',
				httpCode: String(response.statusCode),
				itemIndex: request.itemIndex,
			});
		}
		return {
			statusCode: response.statusCode,
			body: parseBody(response.body) as IDataObject,
			headers: response.headers,
		};
	}
}

interface RawResponse {
	statusCode: number;
	statusMessage?: string;
	body: unknown;
	headers: IDataObject;
}

async function send(
	this: GatewayContext,
	options: IHttpRequestOptions,
	baseUrl: string,
	request: GatewayRequest,
): Promise<RawResponse> {
	// A copy: n8n may add pre-authentication data to it.
	const data = { ...(await credentialsOf.call(this)) };
	const credentialsDecrypted = { id: '', name: CREDENTIAL_TYPE, type: CREDENTIAL_TYPE, data };
	try {
		return (await this.helpers.httpRequestWithAuthentication.call(this, CREDENTIAL_TYPE, options, {
			credentialsDecrypted,
		})) as RawResponse;
	} catch (error) {
		// n8n wraps transport failures; only the code is kept, so that no header (the API key) can leak.
		const code = networkErrorCode(error);
		const details = describeNetworkError(code, baseUrl);
		throw apiError(this, { message: details.message, networkError: code ?? null }, {
			message: details.message,
			description: details.description,
			itemIndex: request.itemIndex,
		});
	}
}

function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	let current: unknown = error;
	while (typeof current === 'object' && current !== null && !seen.has(current)) {
		seen.add(current);
		const candidate = current as { code?: unknown; cause?: unknown; message?: unknown };
		if (typeof candidate.code === 'string' && /^[A-Z_]+$/.test(candidate.code)) return candidate.code;
		if (typeof candidate.message === 'string' && /socket hang up/i.test(candidate.message)) return 'ECONNRESET';
		current = candidate.cause;
	}
	return undefined;
}

function parseBody(body: unknown): unknown {
	if (typeof body !== 'string') return body ?? {};
	if (body.trim() === '') return {};
	try {
		return JSON.parse(body);
	} catch {
		return body;
	}
}

async function gatewayError(this: GatewayContext, response: RawResponse, request: GatewayRequest): Promise<NodeApiError> {
	const secrets = await secretsOf.call(this);
	const body = redactDeep(parseBody(response.body), secrets);
	const details = readGatewayError(response.statusCode, body, response.statusMessage);
	const location = response.headers.location;
	const redirect = response.statusCode < 400 && typeof location === 'string';
	return apiError(this, (typeof body === 'object' ? body : { body }) as JsonObject, {
		message: redact(details.message, secrets),
		description: redirect
			? `The gateway redirected to ${location}: check the Base URL of the credential (https, no path).`
			: details.description && redact(details.description, secrets),
		httpCode: String(response.statusCode),
		itemIndex: request.itemIndex,
	});
}

/** The API key, only to make sure no error text carries it (a gateway might echo it back). */
async function secretsOf(this: GatewayContext): Promise<string[]> {
	const credentials = await credentialsOf.call(this);
	return typeof credentials.apiKey === 'string' ? [credentials.apiKey] : [];
}

/**
 * A NodeApiError that keeps the message it is given: n8n replaces any message that mentions a network code
 * (ECONNREFUSED, ETIMEDOUT, ...) with its own generic text, which would hide the gateway's words and ours.
 */
export function apiError(
	context: GatewayContext,
	response: JsonObject,
	options: { message: string; description?: string; httpCode?: string; itemIndex?: number },
): NodeApiError {
	const error = new NodeApiError(context.getNode(), response, options);
	error.message = options.message;
	return error;
}
