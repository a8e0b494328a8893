/**
 * What a failed request becomes: a NodeApiError with the gateway's own message (errors.ts reads it), what its outcome
 * means for the user (outcomeOfStatus), and never the API key. An error of unknown outcome is marked so that nothing
 * repeats the request (errors.ts, markUnknownOutcome). transport.ts calls these; they take plain values, not its types.
 */
import type { IDataObject, INode, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import {
	CANCELLED_IN_FLIGHT,
	describeIdleTimeout,
	describeNetworkError,
	describeTimeout,
	markUnknownOutcome,
	MAY_HAVE_BEEN_ACCEPTED,
	networkErrorCode,
	outcomeOfStatus,
	parseRetryAfterSeconds,
	readGatewayError,
	redact,
	redactDeep,
} from './errors';

/** What the errors need of the node's context (any of n8n's function contexts). */
interface NodeContext {
	getNode(): INode;
}

/**
 * A NodeApiError that keeps the message it is given: n8n replaces any message that mentions a network code
 * (ECONNREFUSED, ETIMEDOUT, ...) with its own generic text, which would hide the gateway's words and ours.
 */
export function apiError(
	context: NodeContext,
	response: JsonObject,
	options: { message: string; description?: string; httpCode?: string; itemIndex?: number },
): NodeApiError {
	const error = new NodeApiError(context.getNode(), response, options);
	error.message = options.message;
	return error;
}

/** The error of an answer that is not a 2xx: the gateway's words, its outcome's description, never the key. */
export function answerError(
	context: NodeContext,
	response: { statusCode: number; statusMessage?: string; headers: IDataObject },
	body: unknown,
	apiKey: string,
	itemIndex: number | undefined,
): NodeApiError {
	const secrets = apiKey ? [apiKey] : [];
	const redacted = redactDeep(body, secrets);
	const details = readGatewayError(response.statusCode, redacted, response.statusMessage);
	const location = response.headers.location;
	const unknown = outcomeOfStatus(response.statusCode) === 'unknown';
	const description = details.description && redact(details.description, secrets);
	const error = apiError(context, (typeof redacted === 'object' ? redacted : { body: redacted }) as JsonObject, {
		message: redact(details.message, secrets),
		description:
			response.statusCode < 400 && typeof location === 'string'
				? `The gateway redirected to ${location}: check the Base URL of the credential (https, no path).`
				: unknown
					? [description, MAY_HAVE_BEEN_ACCEPTED].filter(Boolean).join(' ')
					: description,
		httpCode: String(response.statusCode),
		itemIndex,
	});
	const retryAfterSeconds = parseRetryAfterSeconds(response.headers['retry-after']);
	if (retryAfterSeconds !== undefined) error.context.retryAfterSeconds = retryAfterSeconds;
	return unknown ? markUnknownOutcome(error) : error;
}

/**
 * A 2xx whose body is not a JSON object (HTML, truncated JSON, another JSON value): the request was accepted or may
 * have been, and nothing unreadable becomes output.
 */
export function unreadableAnswer(context: NodeContext, statusCode: number, body: unknown, itemIndex: number | undefined): NodeApiError {
	const text = typeof body === 'string' ? body : JSON.stringify(body);
	const html = /^\s*</.test(text);
	return markUnknownOutcome(
		apiError(context, { body: text.slice(0, 200) }, {
			message: html
				? `The gateway answered ${statusCode} with something that is not JSON`
				: `The gateway answered ${statusCode} with an answer that is not complete JSON`,
			description: html
				? `${MAY_HAVE_BEEN_ACCEPTED} Check the Base URL of the credential: it should be the gateway address, without a path.`
				: MAY_HAVE_BEEN_ACCEPTED,
			httpCode: String(statusCode),
			itemIndex,
		}),
	);
}

/** A 2xx without what the spec's answer carries (a message's id, a mark as read's `success`): of unknown outcome. */
export function unconfirmedAnswer(context: NodeContext, answer: IDataObject, itemIndex: number, markedMessageId: string | undefined): NodeApiError {
	const missing = markedMessageId === undefined ? 'the id of the sent message (messages[].id)' : 'a confirmation (success: true)';
	return markUnknownOutcome(
		apiError(context, { answer: JSON.stringify(answer).slice(0, 200) }, {
			message: `The gateway answered without ${missing}`,
			description: MAY_HAVE_BEEN_ACCEPTED,
			httpCode: '200',
			itemIndex,
		}),
	);
}

/**
 * The error of an attempt that got no answer: ended by the execution's cancel, by its deadline (`idle`: a streamed
 * body's), or a network failure, of which only the code is kept from n8n's error (it holds the request's headers).
 */
export function noAnswerError(
	context: NodeContext,
	error: unknown,
	ended: 'timeout' | 'cancel' | undefined,
	request: { baseUrl: string; itemIndex: number | undefined; deadline: { ms: number; idle: boolean } },
): NodeApiError {
	const { deadline } = request;
	const details =
		ended === 'cancel'
			? CANCELLED_IN_FLIGHT
			: ended === 'timeout'
				? deadline.idle
					? describeIdleTimeout(deadline.ms)
					: describeTimeout(deadline.ms)
				: describeNetworkError(networkErrorCode(error), request.baseUrl);
	const failure = apiError(context, { message: details.message, networkError: details.code ?? null }, {
		message: details.message,
		description: details.description,
		itemIndex: request.itemIndex,
	});
	return (details.outcome ?? 'unknown') === 'unknown' ? markUnknownOutcome(failure) : failure;
}

/**
 * The error of a request whose body's source failed (a download that broke off), which cut the request before its
 * last byte: the source's own error when it is a node error (it says what failed), else what failed and that the
 * gateway got nothing complete.
 */
export function sourceError(context: NodeContext, failure: unknown, itemIndex: number | undefined): Error {
	if (failure instanceof NodeOperationError || failure instanceof NodeApiError) return failure;
	const reason = failure instanceof Error ? failure.message : String(failure);
	return new NodeOperationError(context.getNode(), `The file could not be read to its end (${reason})`, {
		itemIndex,
		description: 'The upload was cut before its last byte: the gateway got nothing complete, and nothing was sent.',
	});
}
