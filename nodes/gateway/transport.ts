/**
 * The one way a request reaches the gateway: n8n's `httpRequestWithAuthentication` (attempt.ts), whose credential
 * `authenticate` sets the `apikey` header. It joins the credential's base URL and the endpoint path, sets the
 * endpoint's `version` header from spec.ts, and turns every failure into a NodeApiError that carries the gateway's
 * own message and never the API key.
 *
 * Sending twice is worse than failing once. Every answer has one outcome (errors.ts, outcomeOfStatus): accepted, not
 * sent, or unknown. Only a 429 is retried here (not sent, and the gateway asked to wait), and only when the body can
 * be sent again (not a streamed body). Unknown outcomes (5xx, a lost connection, a timeout, an unreadable 2xx, a request
 * aborted by the execution's cancellation) are errors marked so that nothing repeats them.
 *
 * Deadlines: each attempt is ended by its deadline (one n8n-workflow `sleep` with a signal, pause.ts) or by the
 * execution's cancel signal; both let go of the attempt when it ends (nothing per request stays reachable from the
 * run). A JSON request has a deadline on the whole answer; a streamed upload (its time depends on its size) an idle
 * deadline, restarted by every chunk the request takes from the body. Waits (a 429's pause) end when the execution
 * is cancelled.
 */
import type {
	IDataObject,
	IHttpRequestMethods,
	IHttpRequestOptions,
	JsonObject,
} from 'n8n-workflow';
import type { NodeApiError } from 'n8n-workflow';

import { apiError, type Deadline, type RawResponse, send } from './attempt';
import { type GatewayConnection, type GatewayContext, openConnection } from './connection';
import {
	describeStatusOutcome,
	markUnknownOutcome,
	MAY_HAVE_BEEN_ACCEPTED,
	outcomeOfStatus,
	parseRetryAfterSeconds,
	readGatewayError,
	redact,
	redactDeep,
} from './errors';
import { type BlobBody, isBlobBody } from './blobBody';
import { ENDPOINTS, type EndpointName } from './spec';

export { isLoopbackUrl } from './urls';
export { apiError } from './attempt';
export {
	CREDENTIAL_TYPE,
	type GatewayConnection,
	type GatewayContext,
	type GatewaySettings,
	getGatewaySettings,
	openConnection,
} from './connection';

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

export async function gatewayRequest(this: GatewayContext, request: GatewayRequest): Promise<GatewayResponse> {
	if (request.connection) return await requestOn.call(this, request, request.connection);
	const connection = await openConnection.call(this);
	try {
		return await requestOn.call(this, request, connection);
	} finally {
		connection.cancel.close();
	}
}

async function requestOn(this: GatewayContext, request: GatewayRequest, connection: GatewayConnection): Promise<GatewayResponse> {
	const { baseUrl } = connection.settings;
	const endpoint = ENDPOINTS[request.endpoint];
	const streamed = isBlobBody(request.body);
	const headers: IDataObject = {};
	if (endpoint.version !== null) headers.version = endpoint.version;
	if (request.contentType) headers['Content-Type'] = request.contentType;

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
				else await connection.cancel.wait(wait * 1000);
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
		itemIndex: request.itemIndex,
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
