/**
 * One attempt of a request: n8n's HTTP helper with the attempt's deadline and the execution's cancellation, and the
 * error of an attempt that got no answer (with its outcome: errors.ts).
 */
import type { IDataObject, IHttpRequestOptions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { type Cancellation, CREDENTIAL_TYPE, type GatewayConnection, type GatewayContext } from './connection';
import {
	CANCELLED_IN_FLIGHT,
	describeIdleTimeout,
	describeNetworkError,
	describeTimeout,
	markUnknownOutcome,
} from './errors';
import { isBlobBody } from './blobBody';
import { pause } from './pause';
import type { GatewayRequest } from './transport';

export interface RawResponse {
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
 * pause of the bytes). The deadline is one `pause` (pause.ts) that the attempt's end cancels; an idle deadline that
 * finds bytes moved since it started waits the rest. A request that ends, nearly every one, leaves nothing behind:
 * its pause is aborted (n8n's sleep clears its timer) and it unsubscribes from the run's Cancellation.
 */
export class Attempt {
	/** Why the attempt was ended early, if it was. */
	ended: 'timeout' | 'cancel' | undefined;
	private readonly controller = new AbortController();
	private readonly finished = new AbortController();
	private readonly unsubscribe: () => void;
	private lastActivity = Date.now();

	constructor(
		cancel: Cancellation,
		private readonly deadline: Deadline,
		/** True while the bytes wait for something other than the far end (an upload's source): not idle. */
		private readonly waitingElsewhere?: () => boolean,
	) {
		this.unsubscribe = cancel.subscribe(() => this.stop('cancel'));
		if (cancel.aborted) this.stop('cancel');
		else if (deadline.ms > 0) void this.watch();
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
		this.unsubscribe();
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
			if (!(await pause(left, this.finished.signal))) return;
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
 * One attempt of a gateway request, through n8n's `httpRequestWithAuthentication`: the credential's `authenticate`
 * adds the `apikey` header. For a streamed body the deadline is an idle one: every chunk the request takes from the
 * body restarts it (the body stops giving chunks when the gateway stops reading), and after the last chunk the answer
 * has the same time to come. A body whose source failed (a download that broke off) cut the request before its last
 * byte: the gateway has nothing complete, and the source's error is the error.
 */
export async function send(
	context: GatewayContext,
	options: IHttpRequestOptions,
	connection: GatewayConnection,
	request: GatewayRequest,
	deadline: Deadline,
): Promise<RawResponse> {
	const { cancel } = connection;
	if (cancel.aborted) throw cancelledBeforeSending(context, request);
	const body = isBlobBody(options.body) ? options.body : undefined;
	const attempt = new Attempt(cancel, deadline, body && (() => body.waitingForSource));
	if (body) body.onChunk = () => attempt.touch();
	try {
		return (await context.helpers.httpRequestWithAuthentication.call(
			withCancelSignal(context, attempt.signal),
			CREDENTIAL_TYPE,
			{ ...options, abortSignal: attempt.signal },
			{ credentialsDecrypted: { id: '', name: '', type: CREDENTIAL_TYPE, data: connection.credentials } },
		)) as RawResponse;
	} catch (error) {
		if (body?.sourceFailure !== undefined) throw sourceFailureOf(context, body.sourceFailure, request);
		throw failureOf(context, error, attempt.ended, connection, request, deadline);
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
	request: GatewayRequest,
	deadline: Deadline,
): NodeApiError {
	const code = networkErrorCode(error);
	const details =
		ended === 'cancel'
			? CANCELLED_IN_FLIGHT
			: ended === 'timeout'
				? deadline.idle
					? describeIdleTimeout(deadline.ms)
					: describeTimeout(deadline.ms)
				: describeNetworkError(code, connection.settings.baseUrl);
	const failure = apiError(context, { message: details.message, networkError: details.code ?? null }, {
		message: details.message,
		description: details.description,
		itemIndex: request.itemIndex,
	});
	return (details.outcome ?? 'unknown') === 'unknown' ? markUnknownOutcome(failure) : failure;
}

/**
 * The error of a request whose body's source failed: the source's own error when it is a node error (it says what
 * failed), else what failed and that the gateway got nothing complete.
 */
function sourceFailureOf(context: GatewayContext, failure: unknown, request: GatewayRequest): Error {
	if (failure instanceof NodeOperationError || failure instanceof NodeApiError) return failure;
	const reason = failure instanceof Error ? failure.message : String(failure);
	return new NodeOperationError(context.getNode(), `The file could not be read to its end (${reason})`, {
		itemIndex: request.itemIndex,
		description: 'The upload was cut before its last byte: the gateway got nothing complete, and nothing was sent.',
	});
}

/** The execution was cancelled before this attempt started: nothing was sent. */
function cancelledBeforeSending(context: GatewayContext, request: GatewayRequest): NodeOperationError {
	return new NodeOperationError(context.getNode(), 'The execution was canceled: this request was not sent', {
		itemIndex: request.itemIndex,
	});
}

/**
 * The network code (ECONNREFUSED, ...) of an error of n8n's HTTP helper, looked for along its causes. n8n-core 2.41
 * keeps the network error as the cause; 2.0 keeps it as `errorResponse` with no cause, and its text in `messages`.
 */
export function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	const pending: unknown[] = [error];
	while (pending.length > 0) {
		const current = pending.shift();
		if (typeof current !== 'object' || current === null || seen.has(current)) continue;
		seen.add(current);
		const candidate = current as { code?: unknown; cause?: unknown; errorResponse?: unknown; message?: unknown; messages?: unknown };
		if (typeof candidate.code === 'string' && /^[A-Z_]+$/.test(candidate.code)) return candidate.code;
		const texts = [candidate.message, ...(Array.isArray(candidate.messages) ? candidate.messages : [])];
		for (const text of texts) {
			if (typeof text !== 'string') continue;
			const named = NETWORK_CODE_IN_TEXT.exec(text);
			if (named) return named[1];
			if (/socket hang up/i.test(text)) return 'ECONNRESET';
		}
		pending.push(candidate.cause, candidate.errorResponse);
	}
	return undefined;
}

/** A network code as Node writes it into an error's text (`connect ECONNREFUSED 127.0.0.1:9`). */
const NETWORK_CODE_IN_TEXT = /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)\b/;

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
