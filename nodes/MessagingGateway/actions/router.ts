/**
 * Everything that is the same for all operations: picking the operation module, the per-item loop, paired items,
 * Continue On Fail, and the pause between batches that keeps large message runs under the network's rate limits.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { readBatching, type Batching } from './batching';
import { resources, type ResourceName } from './resources';
import type { ItemOperation, Operation } from './types';

export async function router(this: IExecuteFunctions): Promise<INodeExecutionData[][]> {
	const items = this.getInputData();
	const resource = this.getNodeParameter('resource', 0) as ResourceName;
	const operationName = this.getNodeParameter('operation', 0) as string;
	const operations: Record<string, Operation> | undefined = resources[resource]?.operations;
	const operation = operations?.[operationName];
	if (!operation) {
		throw new NodeOperationError(this.getNode(), `The operation "${operationName}" of "${resource}" is not supported`);
	}

	if ('executeAll' in operation) return [await operation.executeAll.call(this, items)];

	if (operation.waitsForResponse) return await sendAndWait.call(this, operation, items);

	return [await runPerItem.call(this, operation, items, readBatching.call(this, resource))];
}

/**
 * Send and wait sends one message (for the first item, as n8n's own send-and-wait nodes do) and puts the execution
 * to wait; the input items pass through and resume with the answer. With Continue On Fail, a failed send becomes an
 * error item and the execution does not wait.
 */
async function sendAndWait(
	this: IExecuteFunctions,
	operation: ItemOperation,
	items: INodeExecutionData[],
): Promise<INodeExecutionData[][]> {
	try {
		await operation.execute.call(this, 0);
	} catch (error) {
		const nodeError = asNodeError.call(this, error, 0);
		if (!this.continueOnFail()) throw nodeError;
		return [[{ json: errorJson(nodeError), pairedItem: { item: 0 } }]];
	}
	return [items];
}

async function runPerItem(
	this: IExecuteFunctions,
	operation: ItemOperation,
	items: INodeExecutionData[],
	batching: Batching | undefined,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		if (batching && itemIndex > 0 && itemIndex % batching.size === 0) await sleep(batching.intervalMs);
		try {
			const result = await operation.execute.call(this, itemIndex);
			for (const json of Array.isArray(result) ? result : [result]) {
				output.push({ json, pairedItem: { item: itemIndex } });
			}
		} catch (error) {
			const nodeError = asNodeError.call(this, error, itemIndex);
			if (!this.continueOnFail()) throw nodeError;
			output.push({ json: errorJson(nodeError), pairedItem: { item: itemIndex } });
		}
	}
	return output;
}

/** Every error leaves the node as a NodeOperationError or NodeApiError that names its item. */
function asNodeError(this: IExecuteFunctions, error: unknown, itemIndex: number): NodeApiError | NodeOperationError {
	if (error instanceof NodeApiError || error instanceof NodeOperationError) {
		if (error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	return new NodeOperationError(this.getNode(), error as Error, { itemIndex });
}

function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return json;
}
