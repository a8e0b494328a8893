/**
 * Everything that is the same for all operations: picking the operation module, the per-item loop (the dispatcher:
 * parallel, paced sends for messages), paired items, Continue On Fail, and the pause between batches.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError, sleep } from 'n8n-workflow';

import { readBatching } from './batching';
import { dispatch } from './dispatcher';
import { resources, type ResourceName } from './resources';
import { beginSending, readSending } from './sending';
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

	return [await runPerItem.call(this, operation, items, resource)];
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

/**
 * The per-item operations. Message operations go through the dispatcher: up to Parallel Requests items at once,
 * paced by the Sending options; the others one item at a time. Output items keep the input order and their pairing.
 * Without Continue On Fail the first failure stops new items, the ones in progress finish, and the error says how
 * many items were sent before it.
 */
async function runPerItem(
	this: IExecuteFunctions,
	operation: ItemOperation,
	items: INodeExecutionData[],
	resource: ResourceName,
): Promise<INodeExecutionData[]> {
	const batching = readBatching.call(this, resource);
	let parallel = 1;
	if (resource === 'message') {
		const settings = readSending.call(this);
		beginSending(this, settings);
		parallel = settings.parallel;
	}
	const continueOnFail = this.continueOnFail();
	const result = await dispatch(
		items.length,
		{ parallel, stopOnFailure: !continueOnFail, batch: batching && { size: batching.size, intervalMs: batching.intervalMs } },
		async (itemIndex) => await operation.execute.call(this, itemIndex),
		async (ms) => await sleep(ms),
	);

	if (result.stoppedBy) {
		const nodeError = asNodeError.call(this, result.stoppedBy.error, result.stoppedBy.index);
		if (items.length > 1) {
			const sent = `${result.succeeded} of ${items.length} items were sent before the run stopped at item ${result.stoppedBy.index} (items in progress finished, no further item was started). n8n's Retry On Fail does not send them again; a Retry of the execution from the executions list is a new run and sends every item again.`;
			nodeError.description = nodeError.description ? `${nodeError.description} ${sent}` : sent;
		}
		throw nodeError;
	}

	const output: INodeExecutionData[] = [];
	result.outcomes.forEach((outcome, itemIndex) => {
		if (!outcome) return;
		if (outcome.ok) {
			for (const json of Array.isArray(outcome.value) ? outcome.value : [outcome.value]) {
				output.push({ json, pairedItem: { item: itemIndex } });
			}
		} else {
			output.push({ json: errorJson(asNodeError.call(this, outcome.error, itemIndex)), pairedItem: { item: itemIndex } });
		}
	});
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
