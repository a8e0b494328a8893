import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

/** An operation that runs once per input item; the router loops, pairs items and handles Continue On Fail. */
export interface ItemOperation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
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
