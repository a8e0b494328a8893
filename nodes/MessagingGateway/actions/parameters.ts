/**
 * The one reader of text parameters for every operation: a value that is an object or a list (an expression that
 * gave one) is refused with the field's display name and the item instead of being sent as "[object Object]".
 * Also the per-run reader of parameters that hold no expression (read once for all items).
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { textOf } from '../../gateway/text';

/**
 * State per node run (one execution context; a WeakMap, so it goes with the context): a copy of the node, and the
 * value of each top-level parameter read so far that holds no expression (by name; a parameter the node does not
 * hold, by name and fallback). Such a value is the same for every item, so it is read once per run, not once per
 * item: n8n's getNodeParameter copies and walks the value on each call, and getNode() copies the whole node.
 */
interface RunParameters {
	node: INode;
	fixed: Map<string, unknown>;
}

const runParameters = new WeakMap<object, RunParameters>();

function runOf(context: IExecuteFunctions): RunParameters {
	let run = runParameters.get(context);
	if (!run) {
		run = { node: context.getNode(), fixed: new Map() };
		runParameters.set(context, run);
	}
	return run;
}

/** The node, copied once per run (for errors, which only read it). */
export function nodeOf(this: IExecuteFunctions): INode {
	return runOf(this).node;
}

const holdsExpression = (value: unknown): boolean =>
	typeof value === 'string'
		? value.startsWith('=')
		: typeof value === 'object' && value !== null && Object.values(value).some(holdsExpression);

const copyOf = <T>(value: T): T => (typeof value === 'object' && value !== null ? structuredClone(value) : value);

/**
 * `getNodeParameter(name, itemIndex, fallback)` for a top-level parameter; a value without an expression is taken
 * from the run's first read (a copy, so that an item cannot change it for the next). A parameter the node does not
 * hold (hidden, so n8n gives the fallback) is the same for every item too; its key includes the fallback.
 */
export function readParameter(this: IExecuteFunctions, name: string, itemIndex: number, fallback?: unknown): unknown {
	const run = runOf(this);
	const raw = run.node.parameters[name];
	const key = raw === undefined ? `${name}\u0000${JSON.stringify(fallback) ?? ''}` : name;
	if (run.fixed.has(key)) return copyOf(run.fixed.get(key));
	const value = arguments.length > 2 ? this.getNodeParameter(name, itemIndex, fallback) : this.getNodeParameter(name, itemIndex);
	if (!holdsExpression(raw)) run.fixed.set(key, copyOf(value));
	return value;
}

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
	return new NodeOperationError(nodeOf.call(this), `${field} (item ${itemIndex}): ${reason}`, { itemIndex, description });
}

/** The text of parameter `name` (display name `field`) for an item; '' when it is hidden or empty. */
export function readTextParameter(
	this: IExecuteFunctions,
	name: string,
	itemIndex: number,
	field: string,
	options: TextParameterOptions = {},
): string {
	const result = textOf(readParameter.call(this, name, itemIndex, ''));
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
