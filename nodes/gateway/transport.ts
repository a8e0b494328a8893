/**
 * The one way a request reaches the gateway. It joins the credential's base URL and the endpoint path, sets the
 * endpoint's `version` header from spec.ts and the `apikey` header (the same header as the credential's
 * `authenticate`), and turns every failure into a NodeApiError that carries the gateway's own message and never the
 * API key.
 *
 * Sending twice is worse than failing once. Every answer has one outcome (errors.ts, outcomeOfStatus): accepted, not
 * sent, or unknown. Only a 429 is retried here (not sent, and the gateway asked to wait), and only when the body can
 * be sent again (not a stream). Unknown outcomes (5xx, a lost connection, a timeout, an unreadable 2xx, a request
 * aborted by the execution's cancellation) are errors marked so that nothing repeats them.
 *
 * Deadlines: one AbortController per attempt, aborted by its timer or by the execution's cancel signal, whose
 * listener is removed when the attempt ends (nothing per request stays reachable from the execution). A JSON request
 * has a deadline on the whole answer; a streamed upload (its time depends on its size) an idle deadline: n8n's
 * `timeout` request option, a socket timeout that any byte written or read restarts.
 */
import type { Readable } from 'stream';
import type {
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
	CANCELLED_IN_FLIGHT,
	describeIdleTimeout,
	describeNetworkError,
	describeStatusOutcome,
	describeTimeout,
	hasUnknownOutcome,
	markUnknownOutcome,
	MAY_HAVE_BEEN_ACCEPTED,
	outcomeOfStatus,
	parseRetryAfterSeconds,
	readGatewayError,
	redact,
	redactDeep,
} from './errors';
import type { MultipartBody } from './multipart';
import { ENDPOINTS, type EndpointName } from './spec';
import { normaliseBaseUrl } from './urls';

export { isLoopbackUrl } from './urls';

/** The credential type every node of the package uses. */
export const CREDENTIAL_TYPE = 'messagingGatewayApi';

/** The header the API key travels in (the credential's `authenticate` names the same one). */
const API_KEY_HEADER = 'apikey';

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
	/**
	 * Deadline of each attempt in ms (0: none; default REQUEST_TIMEOUT_MS): on the whole answer for a JSON body, on a
	 * pause of the bytes either way for a streamed one.
	 */
	timeoutMs?: number;
	/** The run's connection (credential read once, cancel signal); none: opened for this request. */
	connection?: GatewayConnection;
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

const isStreamBody = (body: GatewayRequest['body']): boolean =>
	typeof body === 'object' && body !== null && typeof (body as Readable).pipe === 'function';

export async function gatewayRequest(this: GatewayContext, request: GatewayRequest): Promise<GatewayResponse> {
	const connection = request.connection ?? (await openConnection.call(this));
	const { baseUrl } = connection.settings;
	const endpoint = ENDPOINTS[request.endpoint];
	const streamed = isStreamBody(request.body);
	const headers: IDataObject = { [API_KEY_HEADER]: connection.apiKey };
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
	const deadline: Deadline = { ms: request.timeoutMs ?? REQUEST_TIMEOUT_MS, idle: streamed };
	for (let attempt = 1; ; attempt++) {
		await request.pacing?.beforeAttempt();
		const response = await send(this, options, connection, request, deadline);
		if (response.statusCode === 429 && retryOn429 && attempt < RATE_LIMIT_RETRY.maxAttempts) {
			const wait = parseRetryAfterSeconds(response.headers['retry-after']) ?? RATE_LIMIT_RETRY.defaultWaitSeconds;
			if (wait <= RATE_LIMIT_RETRY.maxWaitSeconds) {
				this.logger.debug(`Gateway rate limit on ${endpoint.path}; retrying in ${wait} s`);
				if (request.pacing) request.pacing.pause(wait * 1000);
				else await sleep(wait * 1000);
				continue;
			}
		}
		if (outcomeOfStatus(response.statusCode) !== 'accepted') throw gatewayError(this, response, request, connection);
		return { statusCode: response.statusCode, body: readAnswer(this, response, request), headers: response.headers };
	}
}

/**
 * The JSON object of a 2xx answer. Anything else (HTML, truncated JSON, a JSON value that is not an object) is an
 * error of unknown outcome: the request was accepted or may have been, and nothing unreadable becomes output.
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
	throw markUnknownOutcome(apiError(context, { body: text.slice(0, 200) }, {
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

/** Marks an error as one of a request that may have been accepted: it must not be sent again, not even by a retry. */
export const uncertain = markUnknownOutcome;

/** Whether an error is one of a request that may have been accepted (its outcome is unknown). */
export const mayHaveBeenAccepted = hasUnknownOutcome;

interface RawResponse {
	statusCode: number;
	statusMessage?: string;
	body: unknown;
	headers: IDataObject;
}

/** An attempt's deadline in ms (0: none): on the whole answer, or (`idle`) on a pause of the bytes either way. */
interface Deadline {
	ms: number;
	idle: boolean;
}

/**
 * One attempt. Its controller is aborted by the whole-answer timer or by the execution's cancel signal; both are
 * undone when the attempt ends, so nothing of the attempt stays reachable from the execution's signal.
 */
async function send(
	context: GatewayContext,
	options: IHttpRequestOptions,
	connection: GatewayConnection,
	request: GatewayRequest,
	deadline: Deadline,
): Promise<RawResponse> {
	const { cancel } = connection;
	if (cancel?.aborted) throw cancelledBeforeSending(context, request);
	const controller = new AbortController();
	let ended: 'timeout' | 'cancel' | undefined;
	const onCancel = () => {
		ended ??= 'cancel';
		controller.abort();
	};
	cancel?.addEventListener('abort', onCancel, { once: true });
	const timer =
		deadline.ms > 0 && !deadline.idle
			? setTimeout(() => {
					ended ??= 'timeout';
					controller.abort();
				}, deadline.ms)
			: undefined;
	const attempt: IHttpRequestOptions = { ...options, abortSignal: controller.signal };
	if (deadline.idle && deadline.ms > 0) attempt.timeout = deadline.ms;
	try {
		return (await context.helpers.httpRequest(attempt)) as RawResponse;
	} catch (error) {
		throw failureOf(context, error, ended, connection, request, deadline);
	} finally {
		clearTimeout(timer);
		cancel?.removeEventListener('abort', onCancel);
	}
}

/** The NodeApiError of an attempt that got no answer; only a network code is kept from n8n's error (it holds headers). */
function failureOf(
	context: GatewayContext,
	error: unknown,
	ended: 'timeout' | 'cancel' | undefined,
	connection: GatewayConnection,
	request: GatewayRequest,
	deadline: Deadline,
): NodeApiError {
	const code = networkErrorCode(error);
	const idleTimeout = deadline.idle && (code === 'ECONNABORTED' || code === 'ETIMEDOUT');
	const details =
		ended === 'cancel'
			? CANCELLED_IN_FLIGHT
			: ended === 'timeout'
				? describeTimeout(deadline.ms)
				: idleTimeout
					? describeIdleTimeout(deadline.ms)
					: describeNetworkError(code, connection.settings.baseUrl);
	const failure = apiError(context, { message: details.message, networkError: details.code ?? null }, {
		message: details.message,
		description: details.description,
		itemIndex: request.itemIndex,
	});
	return (details.outcome ?? 'unknown') === 'unknown' ? markUnknownOutcome(failure) : failure;
}

/** The execution was cancelled before this attempt started: nothing was sent. */
function cancelledBeforeSending(context: GatewayContext, request: GatewayRequest): NodeOperationError {
	return new NodeOperationError(context.getNode(), 'The execution was canceled: this request was not sent', {
		itemIndex: request.itemIndex,
	});
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

/** The error of an answer that is not a 2xx: the gateway's words, its outcome's description, never the key. */
function gatewayError(
	context: GatewayContext,
	response: RawResponse,
	request: GatewayRequest,
	connection: GatewayConnection,
): NodeApiError {
	const secrets = connection.apiKey ? [connection.apiKey] : [];
	const body = redactDeep(parseBody(response.body), secrets);
	const details = readGatewayError(response.statusCode, body, response.statusMessage);
	const location = response.headers.location;
	const redirect = response.statusCode < 400 && typeof location === 'string';
	const error = apiError(context, (typeof body === 'object' ? body : { body }) as JsonObject, {
		message: redact(details.message, secrets),
		description: redirect
			? `The gateway redirected to ${location}: check the Base URL of the credential (https, no path).`
			: describeStatusOutcome(response.statusCode, details.description && redact(details.description, secrets)),
		httpCode: String(response.statusCode),
		itemIndex: request.itemIndex,
	});
	return outcomeOfStatus(response.statusCode) === 'unknown' ? markUnknownOutcome(error) : error;
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
