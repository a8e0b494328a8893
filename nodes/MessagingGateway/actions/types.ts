import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import type { RecipientTurn } from './recipientTurns';
import type { SendRun } from './run';

/**
 * An operation that runs once per input item; the router loops, pairs items and handles Continue On Fail. Message
 * operations get the run (run.ts); operations with a recipient also get the item's turn, which the router claims.
 */
export interface ItemOperation {
	description: INodeProperties[];
	execute(
		this: IExecuteFunctions,
		itemIndex: number,
		run?: SendRun,
		turn?: ClaimedTurn,
	): Promise<IDataObject | IDataObject[]>;
	/**
	 * The item's recipient, read without any await: the router calls it as the item starts, in item order, and claims
	 * the recipient's turn with it, so that messages to one recipient leave in item order whatever each item awaits.
	 */
	recipientOf?(this: IExecuteFunctions, itemIndex: number, run: SendRun): string;
	/** Set by operations that end with `putExecutionToWait` (send and wait): run for the first item only. */
	waitsForResponse?: boolean;
}

/** An operation that consumes all input items at once (one person file from many rows). */
export interface AllItemsOperation {
	description: INodeProperties[];
	executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}

export type Operation = ItemOperation | AllItemsOperation;

export interface Resource {
	operationField: INodeProperties;
	operations: Record<string, Operation>;
	description: INodeProperties[];
}

/** An item's recipient and its turn among the run's messages to that recipient. */
export interface ClaimedTurn {
	to: string;
	turn: RecipientTurn;
}
