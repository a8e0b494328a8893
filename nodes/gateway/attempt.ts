/**
 * One attempt of a request: n8n's HTTP helper with a per-attempt AbortController, and the error of an attempt that
 * got no answer (with its outcome: errors.ts).
 */
import type { IDataObject, IHttpRequestOptions, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { GatewayConnection, GatewayContext } from './connection';
import {
	CANCELLED_IN_FLIGHT,
	describeIdleTimeout,
	describeNetworkError,
	describeTimeout,
	markUnknownOutcome,
} from './errors';
import { isBlobBody } from './blobBody';
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
 * One attempt. Its controller is aborted by its deadline (watched by the run's DeadlineWatch) or by the execution's
 * cancellation; both are undone when the attempt ends, so nothing of the attempt stays reachable from the run.
 * For a streamed body the deadline is an idle one: every chunk the request takes from the body restarts it (the body
 * stops giving chunks when the gateway stops reading), and after the last chunk the answer has the same time to come.
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
	const controller = new AbortController();
	let ended: 'timeout' | 'cancel' | undefined;
	const unsubscribe = cancel.subscribe(() => {
		ended ??= 'cancel';
		controller.abort();
	});
	const watched =
		deadline.ms > 0
			? connection.deadlines.watch(deadline.ms, () => {
					ended ??= 'timeout';
					controller.abort();
				})
			: undefined;
	const stopWatchingChunks = watched && deadline.idle ? restartOnEachChunk(options.body, watched.restart) : undefined;
	try {
		return (await context.helpers.httpRequest({ ...options, abortSignal: controller.signal })) as RawResponse;
	} catch (error) {
		throw failureOf(context, error, ended, connection, request, deadline);
	} finally {
		watched?.stop();
		stopWatchingChunks?.();
		unsubscribe();
	}
}

/** Calls `restart` whenever the request takes a chunk of a Blob-like body (blobBody.ts); other bodies are not watched. */
function restartOnEachChunk(body: unknown, restart: () => void): () => void {
	if (!isBlobBody(body)) return () => undefined;
	body.onChunk = restart;
	return () => (body.onChunk = undefined);
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

/** The execution was cancelled before this attempt started: nothing was sent. */
function cancelledBeforeSending(context: GatewayContext, request: GatewayRequest): NodeOperationError {
	return new NodeOperationError(context.getNode(), 'The execution was canceled: this request was not sent', {
		itemIndex: request.itemIndex,
	});
}

/** The network code (ECONNREFUSED, ...) of an error of n8n's HTTP helper, looked for along its causes. */
export function networkErrorCode(error: unknown): string | undefined {
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
