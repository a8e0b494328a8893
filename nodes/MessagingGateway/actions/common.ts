/**
 * What every operation shares besides the router: reading parameters, and the errors an item ends with. A bad value
 * names the field as the editor shows it and the item, and says that nothing was sent for the item; a value that is
 * an object or a list (an expression that gave one) is refused rather than sent as "[object Object]". A gateway
 * refusal reads the same way (describeRefusal). A catch block re-throws n8n's own errors as they are, anything else
 * wrapped as a NodeOperationError (asNodeError): n8n's package scan asks catch blocks to throw only these two classes.
 * Every operation that makes a request has the Timeout option.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeProperties, JsonObject } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { networkCodeOf } from '../../gateway/errors';
import { refusalDescription, refusalMessage, refusedFields, type RefusalContext } from '../../gateway/networkErrors';
import { REQUEST_TIMEOUT_MS } from '../../gateway/transport';
import { textOf } from './message/types/common';

export type { RefusalContext } from '../../gateway/networkErrors';

// ---- Parameters ----

/** A bad value of one field: the error names the field and the item, and says nothing was sent for it. */
export function inputError(
	node: INode,
	itemIndex: number,
	field: string,
	reason: string,
	description = `Correct "${field}" of item ${itemIndex}. Nothing was sent for this item.`,
): NodeOperationError {
	return new NodeOperationError(node, `${field} (item ${itemIndex}): ${reason}`, { itemIndex, description });
}

export interface TextParameterOptions {
	/** Refuse an empty value (after trimming) with this hint. */
	required?: string;
	/** Keep surrounding spaces (message texts); by default the text is trimmed. */
	keepSpaces?: boolean;
}

/** The text of parameter `name` (display name `field`) for an item; '' when it is hidden or empty. */
export function readTextParameter(
	this: IExecuteFunctions,
	name: string,
	itemIndex: number,
	field: string,
	options: TextParameterOptions = {},
): string {
	const result = textOf(this.getNodeParameter(name, itemIndex, ''));
	if ('problem' in result) throw inputError(this.getNode(), itemIndex, field, result.problem);
	const text = options.keepSpaces ? result.text : result.text.trim();
	if (options.required !== undefined && text.trim() === '') {
		throw inputError(this.getNode(), itemIndex, field, `is empty; ${options.required}`);
	}
	return text;
}

/** The text of an entry of a collection parameter (Options › Phone ID), read the same way. */
export function readTextOption(this: IExecuteFunctions, value: unknown, itemIndex: number, field: string): string {
	const result = textOf(value);
	if ('problem' in result) throw inputError(this.getNode(), itemIndex, field, result.problem);
	return result.text.trim();
}

/**
 * The Timeout option of an operation that makes one request (the message operations have it in Sending): the longest
 * time for one request, its whole answer included (a file upload: no byte moving for that long). It goes in the
 * operation's Options (`options.timeout`).
 */
export const timeoutOption: INodeProperties = {
	displayName: 'Timeout (Seconds)',
	name: 'timeout',
	type: 'number',
	typeOptions: { minValue: 1 },
	default: 60, // REQUEST_TIMEOUT_MS / 1000
	description:
		'Longest time for a request, its whole answer included (an upload: no byte moving for that long). A request that times out may have been carried out: it is reported and not repeated.',
};

/** The Options of an operation that has none but the Timeout. */
export function optionsWithTimeout(show: Record<string, string[]>): INodeProperties {
	return { displayName: 'Options', name: 'options', type: 'collection', placeholder: 'Add Option', default: {}, displayOptions: { show }, options: [timeoutOption] };
}

/** The item's Timeout option in ms (the default when it is not set or not a positive number). */
export function timeoutMsOf(this: IExecuteFunctions, itemIndex: number): number {
	const seconds = Number(this.getNodeParameter('options.timeout', itemIndex, REQUEST_TIMEOUT_MS / 1000));
	return Number.isFinite(seconds) && seconds > 0 ? seconds * 1000 : REQUEST_TIMEOUT_MS;
}

// ---- Errors ----

export function asNodeError(node: INode, error: unknown, itemIndex?: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (itemIndex !== undefined && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	const cause = error instanceof Error ? error : new Error(String(error));
	return new NodeOperationError(node, cause, itemIndex === undefined ? {} : { itemIndex });
}

/**
 * A gateway refusal (4xx) of one item reads like the node's own checks (nodes/gateway/networkErrors.ts): the item in the
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
	if (!(error instanceof NodeApiError) || error.context.described === true) return error;
	const status = Number(error.httpCode);
	if (!(status >= 400 && status < 500)) return error;
	const code = networkCodeOf(error.errorResponse);
	const message = refusalMessage(error.message, itemIndex);
	const refusal = new NodeApiError(node, (error.errorResponse ?? {}) as JsonObject, {
		message,
		description: refusalDescription({
			itemIndex,
			status,
			fields: refusedFields(context, status, code),
			code,
			// The gateway's own description, unless the message already says it.
			gatewayDescription: error.description && !message.includes(error.description) ? error.description : undefined,
		}),
		httpCode: error.httpCode ?? undefined,
		itemIndex,
	});
	// n8n replaces a message that mentions a network code with its own text (see apiError in gateway/requestErrors.ts).
	refusal.message = message;
	// An error passes several catch blocks: it is described once.
	refusal.context.described = true;
	return refusal;
}

/** The JSON of an error item (Continue On Fail): the message, the description, the gateway's HTTP status. */
export function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return json;
}
