/**
 * The one way a request reaches the gateway: n8n's `httpRequestWithAuthentication`, whose credential `authenticate`
 * sets the `apikey` header. It joins the credential's base URL and the endpoint path, sets the endpoint's `version`
 * header from spec.ts, bounds the request by its deadline and the execution's Stop, and turns every failure into a
 * NodeApiError that carries the gateway's own message and never the API key.
 *
 * Sending twice is worse than failing once. Every answer has one outcome (outcomeOfStatus, below): accepted, not
 * sent, or unknown. `request` makes one attempt; an error of unknown outcome (5xx, a lost connection, a timeout, an
 * unreadable 2xx, a request aborted by a Stop) is marked so that nothing repeats it. `gatewayRequest`, for the
 * operations that make one request, waits out a 429 and tries again; the message operations' run decides its own waits
 * (actions/message/run.ts).
 *
 * Deadlines: each attempt is ended by its deadline (one `delay`, delay.ts) or by the execution's cancel signal; both
 * let go of the attempt when it ends. A JSON request has a deadline on the whole answer; a streamed upload (its time
 * depends on its size) an idle deadline, restarted by every chunk the request takes from the body.
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
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BlobBody } from './blobBody';
import { delay, onAbort, wait } from './delay';
import {
	CANCELLED_IN_FLIGHT,
	describeIdleTimeout,
	describeNetworkError,
	describeTimeout,
	markUnknownOutcome,
	MAY_HAVE_BEEN_ACCEPTED,
	networkErrorCode,
	parseRetryAfterSeconds,
	type RequestOutcome,
	readGatewayError,
	redact,
	redactDeep,
} from './errors';
import { ENDPOINTS, type EndpointName } from './spec';
import { normaliseBaseUrl } from './urls';

export { isLoopbackUrl } from './urls';

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
	/** n8n's cancel signal of the execution (Stop, workflow timeout); none outside an execution. */
	signal: AbortSignal | undefined;
}

/**
 * Reads the credential (n8n decrypts it on each read: a run sending thousands of messages opens one connection and
 * reuses it), with the execution's cancel signal.
 */
export async function openConnection(this: GatewayContext): Promise<GatewayConnection> {
	const credentials = await this.getCredentials(CREDENTIAL_TYPE);
	const baseUrl = normaliseBaseUrl(credentials.baseUrl);
	if (!baseUrl) {
		throw new NodeOperationError(this.getNode(), 'The Base URL of the Messaging Gateway credential is not an http(s) address', {
			description: 'Open the credential and set Base URL to the gateway address, for example https://gateway.example.com',
		});
	}
	return {
		settings: {
			baseUrl,
			phoneId: String(credentials.phoneId ?? '').trim(),
			defaultCountry: String(credentials.defaultCountry ?? '').trim(),
		},
		apiKey: typeof credentials.apiKey === 'string' ? credentials.apiKey : '',
		credentials,
		signal: 'getExecutionCancelSignal' in this ? this.getExecutionCancelSignal() : undefined,
	};
}

/** The credential's base URL, phone id and default country. The API key is not returned. */
export async function getGatewaySettings(this: GatewayContext): Promise<GatewaySettings> {
	return (await openConnection.call(this)).settings;
}

export interface GatewayRequest {
	endpoint: EndpointName;
	method: IHttpRequestMethods;
	/** Appended to the endpoint path: `/${id}`, or '/' for `POST /api/Webhooks/`. */
	pathSuffix?: string;
	qs?: IDataObject;
	/** A JSON body, or a Blob-like body of known length sent as it is read (blobBody.ts: a file, a form, a part). */
	body?: IDataObject | IDataObject[] | BlobBody;
	/** Defaults to application/json for JSON bodies. */
	contentType?: string;
	/** The input item the request is for, named in errors. */
	itemIndex?: number;
	/**
	 * Deadline of the attempt in ms (0: none; default REQUEST_TIMEOUT_MS): on the whole answer for a JSON body, on a
	 * pause of the bytes either way for a streamed one.
	 */
	timeoutMs?: number;
}

/** The default deadline of one request (the Timeout option, 60 s). */
export const REQUEST_TIMEOUT_MS = 60_000;

export interface GatewayAnswer {
	statusCode: number;
	/** The parsed JSON answer (every endpoint of the spec answers a JSON object). */
	body: IDataObject;
	headers: IDataObject;
}

/** How often and how long `gatewayRequest` waits out a 429: a few tries, never longer than a minute at once. */
export const RATE_LIMIT_RETRY = { maxAttempts: 3, maxWaitSeconds: 60, defaultWaitSeconds: 1 } as const;

/**
 * One request of an operation that makes one (templates, webhooks, profile, media, person files, the trigger): on its
 * own connection unless given one; a 429 is waited out (its Retry-After) and tried again, a JSON body only.
 */
export async function gatewayRequest(
	this: GatewayContext,
	gatewayRequest: GatewayRequest & { connection?: GatewayConnection },
): Promise<GatewayAnswer> {
	const connection = gatewayRequest.connection ?? (await openConnection.call(this));
	for (let attempt = 1; ; attempt++) {
		try {
			return await request.call(this, connection, gatewayRequest);
		} catch (error) {
			const waitSeconds = rateLimitWait(error, gatewayRequest, attempt);
			if (waitSeconds === undefined || !(await wait(waitSeconds * 1000, connection.signal))) throw nodeErrorOf(this, error);
			this.logger.debug(`Gateway rate limit on ${ENDPOINTS[gatewayRequest.endpoint].path}; retried after ${waitSeconds} s`);
		}
	}
}

/** An error as n8n's own: request() throws only those; anything else is wrapped. */
function nodeErrorOf(context: GatewayContext, error: unknown): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) return error;
	return new NodeOperationError(context.getNode(), error instanceof Error ? error : new Error(String(error)));
}

/** Seconds to wait before trying a 429 again; undefined when it is not a 429 to wait out. */
function rateLimitWait(error: unknown, gatewayRequest: GatewayRequest, attempt: number): number | undefined {
	if (!(error instanceof NodeApiError) || error.httpCode !== '429' || gatewayRequest.body instanceof BlobBody) return undefined;
	if (attempt >= RATE_LIMIT_RETRY.maxAttempts) return undefined;
	const seconds = (error.context.retryAfterSeconds as number | undefined) ?? RATE_LIMIT_RETRY.defaultWaitSeconds;
	return seconds <= RATE_LIMIT_RETRY.maxWaitSeconds ? seconds : undefined;
}

/**
 * One attempt of a request on a connection: the answer of a 2xx whose body is a JSON object, else a NodeApiError (its
 * outcome marked when unknown; a 429's Retry-After in `context.retryAfterSeconds`).
 */
export async function request(this: GatewayContext, connection: GatewayConnection, gatewayRequest: GatewayRequest): Promise<GatewayAnswer> {
	const endpoint = ENDPOINTS[gatewayRequest.endpoint];
	const streamed = gatewayRequest.body instanceof BlobBody;
	const headers: IDataObject = {};
	if (endpoint.version !== null) headers.version = endpoint.version;
	if (gatewayRequest.contentType) headers['Content-Type'] = gatewayRequest.contentType;
	const options: IHttpRequestOptions = {
		method: gatewayRequest.method,
		url: `${connection.settings.baseUrl}${endpoint.path}${gatewayRequest.pathSuffix ?? ''}`,
		headers,
		qs: gatewayRequest.qs,
		body: gatewayRequest.body as IHttpRequestOptions['body'],
		json: !streamed,
		returnFullResponse: true,
		// Statuses are read here, so that n8n neither throws its own error nor re-sends on a 401.
		ignoreHttpStatusErrors: true,
		// A followed redirect would re-send a POST, and would buffer a streamed body in memory to do so.
		disableFollowRedirect: true,
	};
	const deadline: Deadline = { ms: gatewayRequest.timeoutMs ?? REQUEST_TIMEOUT_MS, idle: streamed };
	const response = await send(this, options, connection, gatewayRequest, deadline);
	if (outcomeOfStatus(response.statusCode) !== 'accepted') throw gatewayError(this, response, gatewayRequest, connection);
	return { statusCode: response.statusCode, body: readAnswer(this, response, gatewayRequest), headers: response.headers };
}

interface RawResponse {
	statusCode: number;
	statusMessage?: string;
	body: unknown;
	headers: IDataObject;
}

/** An attempt's deadline in ms (0: none): on the whole answer, or (`idle`) on a pause of the bytes either way. */
export interface Deadline {
	ms: number;
	idle: boolean;
}

/**
 * What ends an attempt early: the execution's cancellation, or its deadline (on the whole answer, or `idle`: on a
 * pause of the bytes). The deadline is one `delay` that the attempt's end cancels; an idle deadline that finds bytes
 * moved since it started waits the rest. A request that ends leaves nothing behind: its delay is aborted (n8n's sleep
 * clears its timer) and it stops listening to the execution's cancel signal.
 */
export class Attempt {
	/** Why the attempt was ended early, if it was. */
	ended: 'timeout' | 'cancel' | undefined;
	private readonly controller = new AbortController();
	private readonly finished = new AbortController();
	private readonly stopListening: () => void;
	private lastActivity = Date.now();

	constructor(
		/** n8n's cancel signal of the execution. */
		cancel: AbortSignal | undefined,
		private readonly deadline: Deadline,
		/** True while the bytes wait for something other than the far end (an upload's source): not idle. */
		private readonly waitingElsewhere?: () => boolean,
	) {
		this.stopListening = onAbort(cancel, () => this.stop('cancel'));
		if (!this.ended && deadline.ms > 0) void this.watch();
	}

	/** Aborted when the attempt is ended early. */
	get signal(): AbortSignal {
		return this.controller.signal;
	}

	/** Bytes moved: an idle deadline starts again. */
	touch(): void {
		this.lastActivity = Date.now();
	}

	/** The attempt is over: its deadline and its cancel subscription go. */
	end(): void {
		this.finished.abort();
		this.stopListening();
	}

	private stop(reason: 'timeout' | 'cancel'): void {
		this.ended ??= reason;
		this.controller.abort();
	}

	private async watch(): Promise<void> {
		const startedAt = this.lastActivity;
		for (;;) {
			if (this.waitingElsewhere?.()) this.touch();
			const left = (this.deadline.idle ? this.lastActivity : startedAt) + this.deadline.ms - Date.now();
			if (left <= 0) return this.stop('timeout');
			if (!(await delay(left, this.finished.signal))) return;
		}
	}
}

/**
 * n8n's `httpRequestWithAuthentication` sets a request's abort signal to its context's `getExecutionCancelSignal()`
 * when the context has one, replacing the request's own (n8n-core 2.0 to 2.41; test/contract/request-body.test.ts
 * holds it). The attempt's signal, aborted by the execution's cancellation or by the deadline, reaches it as the
 * cancel signal of a context that is the node's own in everything else.
 */
function withCancelSignal<T extends object>(context: T, signal: AbortSignal): T {
	return Object.create(context, { getExecutionCancelSignal: { value: () => signal } }) as T;
}

/**
 * One attempt through n8n's `httpRequestWithAuthentication`. For a streamed body the deadline is an idle one: every
 * chunk the request takes from the body restarts it, and after the last chunk the answer has the same time to come.
 * A body whose source failed (a download that broke off) cut the request before its last byte: the gateway has
 * nothing complete, and the source's error is the error.
 */
async function send(
	context: GatewayContext,
	options: IHttpRequestOptions,
	connection: GatewayConnection,
	gatewayRequest: GatewayRequest,
	deadline: Deadline,
): Promise<RawResponse> {
	if (connection.signal?.aborted) {
		throw new NodeOperationError(context.getNode(), 'The execution was canceled: this request was not sent', {
			itemIndex: gatewayRequest.itemIndex,
		});
	}
	const body = options.body instanceof BlobBody ? options.body : undefined;
	const attempt = new Attempt(connection.signal, deadline, body && (() => body.waitingForSource));
	if (body) body.onChunk = () => attempt.touch();
	try {
		return (await context.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(context, attempt.signal),
			CREDENTIAL_TYPE,
			{ ...options, abortSignal: attempt.signal },
			{ credentialsDecrypted: { id: '', name: '', type: CREDENTIAL_TYPE, data: connection.credentials } },
		)) as RawResponse;
	} catch (error) {
		if (body?.sourceFailure !== undefined) throw sourceFailureOf(context, body.sourceFailure, gatewayRequest);
		throw failureOf(context, error, attempt.ended, connection, gatewayRequest, deadline);
	} finally {
		attempt.end();
		if (body) body.onChunk = undefined;
	}
}

/** The NodeApiError of an attempt that got no answer; only a network code is kept from n8n's error (it holds headers). */
function failureOf(
	context: GatewayContext,
	error: unknown,
	ended: 'timeout' | 'cancel' | undefined,
	connection: GatewayConnection,
	gatewayRequest: GatewayRequest,
	deadline: Deadline,
): NodeApiError {
	const details =
		ended === 'cancel'
			? CANCELLED_IN_FLIGHT
			: ended === 'timeout'
				? deadline.idle
					? describeIdleTimeout(deadline.ms)
					: describeTimeout(deadline.ms)
				: describeNetworkError(networkErrorCode(error), connection.settings.baseUrl);
	const failure = apiError(context, { message: details.message, networkError: details.code ?? null }, {
		message: details.message,
		description: details.description,
		itemIndex: gatewayRequest.itemIndex,
	});
	return (details.outcome ?? 'unknown') === 'unknown' ? markUnknownOutcome(failure) : failure;
}

/**
 * The error of a request whose body's source failed: the source's own error when it is a node error (it says what
 * failed), else what failed and that the gateway got nothing complete.
 */
function sourceFailureOf(context: GatewayContext, failure: unknown, gatewayRequest: GatewayRequest): Error {
	if (failure instanceof NodeOperationError || failure instanceof NodeApiError) return failure;
	const reason = failure instanceof Error ? failure.message : String(failure);
	return new NodeOperationError(context.getNode(), `The file could not be read to its end (${reason})`, {
		itemIndex: gatewayRequest.itemIndex,
		description: 'The upload was cut before its last byte: the gateway got nothing complete, and nothing was sent.',
	});
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

/**
 * The JSON object of a 2xx answer. Anything else (HTML, truncated JSON, a JSON value that is not an object) is an
 * error of unknown outcome: the request was accepted or may have been, and nothing unreadable becomes output.
 * An empty body reads as `{}`; operations that need fields of the answer check for them.
 */
function readAnswer(context: GatewayContext, response: RawResponse, gatewayRequest: GatewayRequest): IDataObject {
	const parsed = parseBody(response.body);
	if (typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed)) return parsed as IDataObject;
	const text = typeof response.body === 'string' ? response.body : JSON.stringify(response.body);
	const html = /^\s*</.test(text);
	throw markUnknownOutcome(apiError(context, { body: text.slice(0, 200) }, {
		message: html
			? `The gateway answered ${response.statusCode} with something that is not JSON`
			: `The gateway answered ${response.statusCode} with an answer that is not complete JSON`,
		description: html
			? `${MAY_HAVE_BEEN_ACCEPTED} Check the Base URL of the credential: it should be the gateway address, without a path.`
			: MAY_HAVE_BEEN_ACCEPTED,
		httpCode: String(response.statusCode),
		itemIndex: gatewayRequest.itemIndex,
	}));
}

/** An answer's body as JSON when it is JSON text; an empty or missing body reads as `{}`, other text as it is. */
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
	gatewayRequest: GatewayRequest,
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
		itemIndex: gatewayRequest.itemIndex,
	});
	const retryAfterSeconds = parseRetryAfterSeconds(response.headers['retry-after']);
	if (retryAfterSeconds !== undefined) error.context.retryAfterSeconds = retryAfterSeconds;
	return outcomeOfStatus(response.statusCode) === 'unknown' ? markUnknownOutcome(error) : error;
}

// ---- What an answer says about a request (docs/retries.md lists this table) ----

/**
 * The outcome of an HTTP status. A 2xx is accepted (its body must still be readable: an unreadable 2xx is unknown).
 * Every 4xx, 429 included, is the gateway or its proxy refusing the request before taking it: not sent. Every 5xx is
 * unknown: the gateway sits behind an API proxy (docs/gateway.md), whose 502, 503 and 504 come when the upstream failed or
 * did not answer in time, which may be after it accepted the message; and a 500 is the one error status the spec
 * documents ("Server error", section 7) without saying at what point it happens, while the proxy answers its own
 * failures with a 500 too, so a 500 cannot be told apart from "taken, then failed". 1xx and 3xx (redirects are not
 * followed) never reached a handler: not sent.
 */
export function outcomeOfStatus(status: number): RequestOutcome {
	if (status >= 200 && status < 300) return 'accepted';
	if (status >= 500) return 'unknown';
	return 'notSent';
}

/** The description of an error answer, by its outcome; `detail` is the gateway's own description, when it gave one. */
function describeStatusOutcome(status: number, detail?: string): string | undefined {
	const outcome = outcomeOfStatus(status);
	if (outcome === 'unknown') return detail ? `${detail} ${MAY_HAVE_BEEN_ACCEPTED}` : MAY_HAVE_BEEN_ACCEPTED;
	return detail;
}
