/**
 * The one reader of text parameters for every operation: a value that is an object or a list (an expression that
 * gave one) is refused with the field's display name and the item instead of being sent as "[object Object]".
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { textOf } from '../../gateway/text';

export interface TextParameterOptions {
	/** Refuse an empty value (after trimming) with this hint. */
	required?: string;
	/** Keep surrounding spaces (message texts); by default the text is trimmed. */
	keepSpaces?: boolean;
}

/** A bad value of one field: the error names the field and the item, and says nothing was sent for it. */
export function inputError(
	this: IExecuteFunctions,
	itemIndex: number,
	field: string,
	reason: string,
	description = `Correct "${field}" of item ${itemIndex}. Nothing was sent for this item.`,
): NodeOperationError {
	return new NodeOperationError(this.getNode(), `${field} (item ${itemIndex}): ${reason}`, { itemIndex, description });
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
	if ('problem' in result) throw inputError.call(this, itemIndex, field, result.problem);
	const text = options.keepSpaces ? result.text : result.text.trim();
	if (options.required !== undefined && text.trim() === '') {
		throw inputError.call(this, itemIndex, field, `is empty; ${options.required}`);
	}
	return text;
}

/** The text of an entry of a collection parameter (Options › Phone ID), read the same way. */
export function readTextOption(this: IExecuteFunctions, value: unknown, itemIndex: number, field: string): string {
	const result = textOf(value);
	if ('problem' in result) throw inputError.call(this, itemIndex, field, result.problem);
	return result.text.trim();
}
