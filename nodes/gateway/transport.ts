/**
 * The one way a request reaches the gateway. It joins the credential's base URL and the endpoint path, sets the
 * endpoint's `version` header from spec.ts, lets n8n add the `apikey` header (credential `authenticate`), and turns
 * every failure into a NodeApiError that carries the gateway's own message and never the API key.
 *
 * Sending twice is worse than failing once: nothing is retried except a 429, which the gateway answers before
 * accepting the request, and only when the body can be sent again (not a stream). An answer that cannot be read (a 2xx
 * whose body is not complete JSON) and a request that ran out of time are errors that say the request may have been
 * accepted and was not repeated.
 *
 * Each attempt of a JSON request has a deadline (the whole answer included, so a trickling body ends too), enforced
 * with an abort signal; streamed uploads have none (their time depends on their size).
 */
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

import {
	describeNetworkError,
	describeTimeout,
	MAY_HAVE_BEEN_ACCEPTED,
	parseRetryAfterSeconds, readGatewayError, redact, redactDeep } from './errors';
import { isMultipartBody, type MultipartBody } from './multipart';
import type { NodeStream } from './nodeStream';
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
	body?: IDataObject | IDataObject[] | NodeStream | MultipartBody;
	/** Defaults to application/json for JSON bodies. */
	contentType?: string;
	contentLength?: number;
	/** Retry a 429 after its Retry-After; defaults to true for JSON bodies, which can be sent again. */
	retryOn429?: boolean;
	/** The input item the request is for, named in errors. */
	itemIndex?: number;
	/** Deadline of each attempt in ms, the whole answer included; 0: none. Default: REQUEST_TIMEOUT_MS for JSON bodies. */
	timeoutMs?: number;
	/** Shared pacing of a node run's sends (the dispatcher's rate cap and 429 pause); none: each request on its own. */
	pacing?: RequestPacing;
}

/** How a run paces its requests: every attempt waits for its turn, and a 429 pauses all of them, not only its own. */
export interface RequestPacing {
	/** Resolves when the next attempt may start. */
	beforeAttempt(): Promise<void>;
	/** The gateway asked to wait this long (429 Retry-After). */
	pause(waitMs: number): void;
}

/** The default deadline of one JSON request (the node's Timeout option, 60 s). */
export const REQUEST_TIMEOUT_MS = 60_000;

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
 * What `read` gives, read once per node run (one execution context) and shared by its requests; a failed read is
 * tried again by the next caller. A WeakMap per fact, so the value goes with the context.
 */
function oncePerRun<T>(cache: WeakMap<object, Promise<T>>, context: object, read: () => Promise<T>): Promise<T> {
	let value = cache.get(context);
	if (!value) {
		value = read();
		cache.set(context, value);
		value.catch(() => cache.delete(context));
	}
	return value;
}

/** The credential, once per run: a run that sends thousands of messages would otherwise decrypt it thousands of times. */
const credentialsByContext = new WeakMap<object, Promise<ICredentialDataDecryptedObject>>();

async function credentialsOf(this: GatewayContext): Promise<ICredentialDataDecryptedObject> {
	return await oncePerRun(credentialsByContext, this, async () => await this.getCredentials(CREDENTIAL_TYPE));
}

/** The settings read from the credential, once per run like the credential itself. */
const settingsByContext = new WeakMap<object, Promise<GatewaySettings>>();

/** The credential's base URL, phone id and default country. The API key is not returned: only n8n's authentication touches it. */
export async function getGatewaySettings(this: GatewayContext): Promise<GatewaySettings> {
	// A copy: callers may change what they get.
	return { ...(await oncePerRun(settingsByContext, this, async () => await readGatewaySettings.call(this))) };
}

async function readGatewaySettings(this: GatewayContext): Promise<GatewaySettings> {
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
	isMultipartBody(body) || (typeof body === 'object' && body !== null && typeof (body as NodeStream).pipe === 'function');

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
	const timeoutMs = request.timeoutMs ?? (streamed ? 0 : REQUEST_TIMEOUT_MS);
	for (let attempt = 1; ; attempt++) {
		await request.pacing?.beforeAttempt();
		const response = await send.call(this, options, baseUrl, request, timeoutMs);
		if (response.statusCode === 429 && retryOn429 && attempt < RATE_LIMIT_RETRY.maxAttempts) {
			const wait = parseRetryAfterSeconds(response.headers['retry-after']) ?? RATE_LIMIT_RETRY.defaultWaitSeconds;
			if (wait <= RATE_LIMIT_RETRY.maxWaitSeconds) {
				this.logger.debug(`Gateway rate limit on ${endpoint.path}; retrying in ${wait} s`);
				if (request.pacing) request.pacing.pause(wait * 1000);
				else await sleep(wait * 1000);
				continue;
			}
		}
		if (response.statusCode >= 300) throw await gatewayError.call(this, response, request);
		return { statusCode: response.statusCode, body: readAnswer(this, response, request), headers: response.headers };
	}
}

/**
 * The JSON object of a 2xx answer. Anything else (HTML, truncated JSON, a JSON value that is not an object) is an
 * error: the request was accepted or may have been, so it is not repeated, and nothing unreadable becomes output.
 * An empty body reads as `{}`; operations that need fields of the answer check for them.
 */
function readAnswer(context: GatewayContext, response: RawResponse, request: GatewayRequest): IDataObject {
	const body = response.body;
	if (body === undefined || body === null || (typeof body === 'string' && body.trim() === '')) return {};
	let parsed: unknown = body;
	if (typeof body === 'string') {
		try {
			parsed = JSON.parse(body);
		} catch {
			parsed = undefined;
		}
	}
	if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as IDataObject;
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const html = /^\s*</.test(text);
	throw uncertain(apiError(context, { body: text.slice(0, 200) }, {
		message: html
			? `The gateway answered ${response.statusCode} with something that is not JSON`
			: `The gateway answered ${response.statusCode} with an answer that is not complete JSON`,
		description: html
			? `${MAY_HAVE_BEEN_ACCEPTED} Check the Base URL of the credential: it should be the gateway address, without a path.`
			: MAY_HAVE_BEEN_ACCEPTED,
		httpCode: String(response.statusCode),
		itemIndex: request.itemIndex,
	}));
}

/** Errors of requests that may have been accepted (lost connection, timeout, unreadable 2xx answer). */
const uncertainErrors = new WeakSet<object>();

/** Marks an error as one of a request that may have been accepted: it must not be sent again, not even by a retry. */
export function uncertain<E extends object>(error: E): E {
	uncertainErrors.add(error);
	return error;
}

export function mayHaveBeenAccepted(error: unknown): boolean {
	return typeof error === 'object' && error !== null && uncertainErrors.has(error);
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
	timeoutMs: number,
): Promise<RawResponse> {
	// A copy: n8n may add pre-authentication data to it.
	const data = { ...(await credentialsOf.call(this)) };
	const credentialsDecrypted = { id: '', name: CREDENTIAL_TYPE, type: CREDENTIAL_TYPE, data };
	// AbortSignal.timeout's timer does not keep the process alive and needs no clearing.
	const deadline = timeoutMs > 0 ? AbortSignal.timeout(timeoutMs) : undefined;
	const caller = deadline ? withDeadline(this, { ...options }, deadline) : { context: this, options };
	try {
		return (await caller.context.helpers.httpRequestWithAuthentication.call(caller.context, CREDENTIAL_TYPE, caller.options, {
			credentialsDecrypted,
		})) as RawResponse;
	} catch (error) {
		if (deadline?.aborted) {
			const details = describeTimeout(timeoutMs);
			throw uncertain(
				apiError(this, { message: details.message, networkError: 'TIMEOUT' }, {
					message: details.message,
					description: details.description,
					itemIndex: request.itemIndex,
				}),
			);
		}
		// n8n wraps transport failures; only the code is kept, so that no header (the API key) can leak.
		const code = networkErrorCode(error);
		const details = describeNetworkError(code, baseUrl);
		const failure = apiError(this, { message: details.message, networkError: code ?? null }, {
			message: details.message,
			description: details.description,
			itemIndex: request.itemIndex,
		});
		throw details.description === MAY_HAVE_BEEN_ACCEPTED ? uncertain(failure) : failure;
	}
}

/**
 * Puts the deadline on the request. n8n's authenticated helper replaces `abortSignal` with the execution's cancel
 * signal when the calling context has one, so the helper is called with a context whose cancel signal is both: the
 * execution's (a cancelled execution still stops the request) and the deadline. Other contexts take `abortSignal`.
 */
function withDeadline(
	context: GatewayContext,
	options: IHttpRequestOptions,
	deadline: AbortSignal,
): { context: GatewayContext; options: IHttpRequestOptions } {
	if (!('getExecutionCancelSignal' in context) || typeof context.getExecutionCancelSignal !== 'function') {
		return { context, options: { ...options, abortSignal: deadline } };
	}
	const cancel = context.getExecutionCancelSignal();
	const signal = cancel ? AbortSignal.any([deadline, cancel]) : deadline;
	const bounded = Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as GatewayContext;
	return { context: bounded, options };
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
