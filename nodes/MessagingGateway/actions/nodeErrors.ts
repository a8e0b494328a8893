/**
 * What a catch block re-throws: n8n's own errors as they are (they carry the gateway's message and whether a request
 * may have arrived; one that names no item gets `itemIndex`), anything else wrapped as a NodeOperationError with its
 * message, so that no raw error reaches n8n. n8n's package scan asks catch blocks to throw only these two classes.
 */
import { NodeApiError, NodeOperationError, type INode } from 'n8n-workflow';

export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (itemIndex !== undefined && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const cause = error instanceof Error ? error : new Error(String(error));
	return new NodeOperationError(node, cause, itemIndex === undefined ? {} : { itemIndex });
}
