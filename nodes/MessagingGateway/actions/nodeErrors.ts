/**
 * What a catch block re-throws: n8n's own errors as they are (they carry the gateway's message and whether a request
 * may have arrived; one that names no item gets `itemIndex`), anything else wrapped as a NodeOperationError with its
 * message, so that no raw error reaches n8n. n8n's package scan asks catch blocks to throw only these two classes.
 */
import { NodeApiError, NodeOperationError, type INode, type JsonObject } from 'n8n-workflow';

import { refusalDescription, refusalMessage, refusedFields, type RefusalContext } from '../../gateway/refusals';

export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (itemIndex !== undefined && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const cause = error instanceof Error ? error : new Error(String(error));
	return new NodeOperationError(node, cause, itemIndex === undefined ? {} : { itemIndex });
}

/** Refusals made by describeRefusal (an error passes several catch blocks). */
const described = new WeakSet<NodeApiError>();

/**
 * A gateway refusal (4xx) of one item reads like the node's own checks (nodes/gateway/refusals.ts): the item in the
 * message, the field it points at and "Nothing was sent for this item." in the description. A new error is made:
 * one refusal may be shared by several items (a template read once for all of them). Other errors (5xx, lost
 * connections, whose outcome is unknown; the node's own checks) are returned as they are.
 */
export function describeRefusal(
	node: INode,
	error: NodeApiError | NodeOperationError,
	itemIndex: number,
	context: RefusalContext,
): NodeApiError | NodeOperationError {
	if (!(error instanceof NodeApiError) || described.has(error)) return error;
	const status = Number(error.httpCode);
	if (!(status >= 400 && status < 500)) return error;
	const code = networkCodeOf(error.errorResponse);
	const message = refusalMessage(error.message, itemIndex);
	const refusal = new NodeApiError(node, (error.errorResponse ?? {}) as JsonObject, {
		message,
		description: refusalDescription({
			itemIndex,
			fields: refusedFields(context, status, code),
			code,
			// The gateway's own description, unless the message already says it.
			gatewayDescription: error.description && !message.includes(error.description) ? error.description : undefined,
		}),
		httpCode: error.httpCode ?? undefined,
		itemIndex,
	});
	// n8n replaces a message that mentions a network code with its own text (see apiError in gateway/attempt.ts).
	refusal.message = message;
	described.add(refusal);
	return refusal;
}

/** The network's code in a gateway answer: Meta's `error.code`, or a top-level `code`. */
function networkCodeOf(body: unknown): unknown {
	if (typeof body !== 'object' || body === null) return undefined;
	const { error, code } = body as { error?: unknown; code?: unknown };
	if (typeof error === 'object' && error !== null && 'code' in error) return (error as { code?: unknown }).code;
	return code;
}
