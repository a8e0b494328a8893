/**
 * The one way a request reaches the gateway: n8n's `httpRequestWithAuthentication`, whose credential `authenticate`
 * sets the `apikey` header. It joins the credential's base URL and the endpoint path, sets the endpoint's `version`
 * header from spec.ts, bounds the request by its deadline and the execution's Stop, and turns every failure into a
 * NodeApiError that carries the gateway's own message and never the API key.
 *
 * Sending twice is worse than failing once. Every answer has one outcome (errors.ts, outcomeOfStatus): accepted, not
 * sent, or unknown. `request` makes one attempt; an error of unknown outcome (5xx, a lost connection, a timeout, an
 * unreadable 2xx, a request aborted by a Stop) is marked so that nothing repeats it (requestErrors.ts). `gatewayRequest`,
 * for the operations that make one request, waits out a 429 and tries again; the message operations' run decides its
 * own waits (actions/message/run.ts).
 *
 * Deadlines: each attempt is ended by its deadline (one `wait`, at the end of this file) or by the execution's cancel
 * signal; both let go of the attempt when it ends. A JSON request has a deadline on the whole answer; a streamed upload
 * (its time depends on its size) an idle deadline, restarted by every chunk the request takes from the body.
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
} from 'n8n-workflow';
import * as workflow from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { BlobBody } from './blobBody';
import { answerError, noAnswerError, sourceError, unreadableAnswer } from './requestErrors';
import { ENDPOINTS, type EndpointName } from './spec';

/** The credential type every node of the package uses. */
export const CREDENTIAL_TYPE = 'messagingGatewayApi';

export type GatewayContext = IExecuteFunctions | ILoadOptionsFunctions | IHookFunctions | IWebhookFunctions;

// ---- The base URL ----

/** The base URL as the user typed it, without trailing slashes; undefined when it is not an http(s) address. */
export function normaliseBaseUrl(raw: unknown): string | undefined {
	if (typeof raw !== 'string') return undefined;
	const trimmed = raw.trim().replace(/\/+$/, '');
	try {
		const { protocol } = new URL(trimmed);
		return protocol === 'http:' || protocol === 'https:' ? trimmed : undefined;
	} catch {
		return undefined;
	}
}

// ---- The connection and its requests ----

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
	const body = parseBody(response.body);
	// Any answer but a 2xx was refused, or is of unknown outcome (errors.ts, outcomeOfStatus, decides which).
	if (response.statusCode < 200 || response.statusCode >= 300) throw answerError(this, response, body, connection.apiKey, gatewayRequest.itemIndex);
	// Every endpoint of the spec answers a JSON object; anything else is of unknown outcome.
	if (typeof body !== 'object' || body === null || Array.isArray(body)) throw unreadableAnswer(this, response.statusCode, response.body, gatewayRequest.itemIndex);
	return { statusCode: response.statusCode, body: body as IDataObject, headers: response.headers };
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
 * pause of the bytes). The deadline is one `wait` that the attempt's end cancels; an idle deadline that finds bytes
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
			if (!(await wait(left, this.finished.signal))) return;
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
		if (body?.sourceFailure !== undefined) throw sourceError(context, body.sourceFailure, gatewayRequest.itemIndex);
		throw noAnswerError(context, error, attempt.ended, { baseUrl: connection.settings.baseUrl, itemIndex: gatewayRequest.itemIndex, deadline });
	} finally {
		attempt.end();
		if (body) body.onChunk = undefined;
	}
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

// ---- Waits: the one timer of the nodes ----

type AbortableSleep = (ms: number, signal: AbortSignal) => Promise<void>;

/**
 * n8n-workflow's abortable sleep, whichever the host n8n has (the node runs on the host's n8n-workflow): 2.0 to 2.30
 * export `sleepWithAbort(ms, signal)` beside a `sleep(ms)` without one; 2.35 to 2.41 only `sleep(ms, signal)`. All
 * reject when the signal aborts and clear their timer; some leave their abort listener on the signal when the time
 * elapses (2.0, 2.35), so `wait` passes each sleep a signal of its own.
 */
export function abortableSleepOf(module: object): AbortableSleep {
	const exported = module as { sleepWithAbort?: unknown; sleep?: unknown };
	if (typeof exported.sleepWithAbort === 'function') return exported.sleepWithAbort as AbortableSleep;
	if (typeof exported.sleep === 'function') return exported.sleep as AbortableSleep;
	throw new Error('n8n-workflow exports neither sleepWithAbort nor sleep');
}

const abortableSleep = abortableSleepOf(workflow);

/** Node's timers take at most 2^31-1 ms (a longer one fires at once): longer waits are taken in steps. */
const LONGEST_STEP_MS = 2_147_483_647;

/**
 * Waits `ms`, or less when `stop` (n8n's cancel signal of the execution, or any signal) aborts: true when the time
 * elapsed, false when it aborted (also when it already had). Never rejects, however the host's sleep rejects on an
 * abort (2.0.x: ManualExecutionCancelledError; later: the signal's reason).
 */
export async function wait(ms: number, stop: AbortSignal | undefined, sleep: AbortableSleep = abortableSleep): Promise<boolean> {
	if (stop?.aborted) return false;
	const own = new AbortController();
	const stopListening = onAbort(stop, () => own.abort());
	try {
		for (let left = Math.max(0, ms); ; ) {
			const step = Math.min(left, LONGEST_STEP_MS);
			// Both sleeps reject only when the signal aborts.
			if (!(await sleep(step, own.signal).then(() => true, () => false))) return false;
			left -= step;
			if (left <= 0) return !own.signal.aborted;
		}
	} finally {
		stopListening();
	}
}

/**
 * Waits for `work`, at most `ms`: the wait ends with the work, and its timer with it (a sleep raced against the work
 * would stay behind for the whole `ms`). The work goes on after a timeout; its outcome is not this wait's.
 */
export async function waitAtMost(work: Promise<unknown>, ms: number): Promise<void> {
	const done = new AbortController();
	const finish = () => done.abort();
	void work.then(finish, finish);
	await wait(ms, done.signal);
}

/**
 * Calls `handler` once when `signal` aborts (at once when it already has); the returned function removes it. Waits and
 * requests listen to n8n's cancel signal of the execution this way and stop listening when they end, so that nothing
 * of a finished one stays on the signal.
 */
export function onAbort(signal: AbortSignal | undefined, handler: () => void): () => void {
	if (!signal) return () => undefined;
	if (signal.aborted) {
		handler();
		return () => undefined;
	}
	signal.addEventListener('abort', handler, { once: true });
	return () => signal.removeEventListener('abort', handler);
}
