/**
 * Everything that is the same for all operations: picking the operation module, the per-item loop (the dispatcher:
 * parallel, paced sends for messages), paired items, Continue On Fail, and the pause between batches. For message
 * operations it opens the run (run.ts) that the items share, and claims each item's recipient turn as the item
 * starts, in item order.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { Cancellation } from '../../gateway/connection';
import { readBatching } from './batching';
import { dispatch, type DispatchResult } from './dispatcher';
import { asNodeError, describeRefusal } from './nodeErrors';
import type { RefusalContext } from '../../gateway/refusals';
import { resources, type ResourceName } from './resources';
import { openSendRun, type SendRun } from './run';
import { readSending } from './sending';
import type { ClaimedTurn, ItemOperation, Operation } from './types';

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

	const run = resource === 'message' ? await openSendRun(this, readSending.call(this)) : undefined;
	try {
		// n8n's Retry On Fail runs the node again even after a cancellation: such a try starts nothing.
		if (run?.cancelled()) throw cancelledRun(this, 0, items.length);
		const where = { resource, operation: operationName };
		if (operation.waitsForResponse) return await sendAndWait.call(this, operation, items, run, where);
		return [await runPerItem.call(this, operation, items, where, run)];
	} finally {
		try {
			// The campaign record's last marks are written even when the run stopped or was cancelled.
			for (const finish of run?.atEnd ?? []) await finish();
		} finally {
			run?.close();
		}
	}
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
	run: SendRun | undefined,
	where: RefusalContext,
): Promise<INodeExecutionData[][]> {
	try {
		await operation.execute.call(this, 0, run);
	} catch (error) {
		const nodeError = describeRefusal(this.getNode(), asNodeError(this.getNode(), error, 0), 0, where);
		if (run?.cancelled() || !this.continueOnFail()) throw nodeError;
		return [[{ json: errorJson(nodeError), pairedItem: { item: 0 } }]];
	}
	return [items];
}

/**
 * The per-item operations. Message operations go through the dispatcher: up to Parallel Requests items at once,
 * paced by the Sending options; the others one item at a time. Output items keep the input order and their pairing.
 * Without Continue On Fail the first failure stops new items, the ones in progress finish, and the error says how
 * many items were sent before it. A cancelled execution starts no further item and ends with one error.
 */
async function runPerItem(
	this: IExecuteFunctions,
	operation: ItemOperation,
	items: INodeExecutionData[],
	where: { resource: ResourceName; operation: string },
	run: SendRun | undefined,
): Promise<INodeExecutionData[]> {
	const batching = readBatching.call(this, where.resource);
	const result = await dispatch(
		items.length,
		{
			parallel: run?.parallel ?? 1,
			stopOnFailure: !this.continueOnFail(),
			batch: batching && { size: batching.size, intervalMs: batching.intervalMs },
			signal: run?.connection.cancel,
		},
		(itemIndex) => runItem.call(this, operation, itemIndex, run, where),
		run ? run.sleep : async (ms) => await waitUnlessCancelled(ms, this),
	);
	if (result.cancelled) {
		// n8n keeps no output of a canceled execution: the log (and a campaign's record) is where this is told.
		this.logger.info(`Messaging Gateway: the execution was canceled: ${result.succeeded} of ${items.length} items were sent`, {
			node: this.getNode().name,
			workflowId: this.getWorkflow().id,
			executionId: this.getExecutionId(),
		});
		throw cancelledRun(this, result.succeeded, items.length);
	}

	if (result.stoppedBy) {
		const nodeError = asNodeError(this.getNode(), result.stoppedBy.error, result.stoppedBy.index);
		if (items.length > 1) {
			// Not attempted: never started, or stopped by the breaker before its request.
			const notSent = result.outcomes.filter((outcome) => outcome === undefined).length + (run?.breaker.stoppedItems ?? 0);
			const refusal = run?.breaker.blocking(undefined) ?? run?.breaker.trippedBy(result.stoppedBy.index);
			const because = refusal ? ` because ${refusal.reason}` : '';
			const sent = `${result.succeeded} of ${items.length} items were sent before the run stopped at item ${result.stoppedBy.index}${because}; ${notSent} were not sent (items in progress finished, no further item was started). n8n's Retry On Fail does not send them again; a Retry of the execution from the executions list is a new run and sends every item again, unless the node has a Campaign (docs/campaigns.md).`;
			nodeError.description = nodeError.description ? `${nodeError.description} ${sent}` : sent;
			if (refusal) nodeError.message = `${nodeError.message} (${notSent} items not sent: ${refusal.reason})`;
		}
		throw nodeError;
	}
	return outputOf.call(this, result);
}

/** The pause between batches of an operation without a send run: the execution's cancellation ends it. */
async function waitUnlessCancelled(ms: number, context: IExecuteFunctions): Promise<void> {
	const cancel = new Cancellation(context.getExecutionCancelSignal());
	try {
		await cancel.wait(ms);
	} finally {
		cancel.close();
	}
}

/**
 * One item: its recipient's turn is claimed first, synchronously (no await comes before it, so claims follow the
 * order in which the dispatcher starts items, which is item order), then the operation runs, then the turn is
 * released, whether the item was sent or failed.
 */
async function runItem(
	this: IExecuteFunctions,
	operation: ItemOperation,
	itemIndex: number,
	run: SendRun | undefined,
	where: RefusalContext,
): Promise<IDataObject | IDataObject[]> {
	let claimed: ClaimedTurn | undefined;
	if (run && operation.recipientOf) {
		const to = operation.recipientOf.call(this, itemIndex, run);
		claimed = { to, turn: run.turns.claim(to) };
	}
	try {
		const output = await operation.execute.call(this, itemIndex, run, claimed);
		claimed?.turn.done(false);
		return output;
	} catch (error) {
		claimed?.turn.done(true);
		const nodeError = asNodeError(this.getNode(), error, itemIndex);
		throw describeRefusal(this.getNode(), nodeError, itemIndex, refusalContext.call(this, where, itemIndex));
	}
}

/** Where a refusal happened; Message > Send adds how its template is given (a refusal's field depends on it). */
function refusalContext(this: IExecuteFunctions, where: RefusalContext, itemIndex: number): RefusalContext {
	if (where.resource !== 'message' || where.operation !== 'send') return where;
	try {
		const templateSource = this.getNodeParameter('templateParameterSource', itemIndex, 'manual');
		return { ...where, templateSource: typeof templateSource === 'string' ? templateSource : undefined };
	} catch {
		return where;
	}
}

function outputOf(this: IExecuteFunctions, result: DispatchResult<IDataObject | IDataObject[]>): INodeExecutionData[] {
	const output: INodeExecutionData[] = [];
	result.outcomes.forEach((outcome, itemIndex) => {
		if (!outcome) return;
		if (outcome.ok) {
			for (const json of Array.isArray(outcome.value) ? outcome.value : [outcome.value]) {
				output.push({ json, pairedItem: { item: itemIndex } });
			}
		} else {
			output.push({ json: errorJson(asNodeError(this.getNode(), outcome.error, itemIndex)), pairedItem: { item: itemIndex } });
		}
	});
	return output;
}

/** The one error of a cancelled run ("canceled", n8n's word, so that the execution shows as canceled). */
function cancelledRun(context: IExecuteFunctions, sent: number, total: number): NodeOperationError {
	return new NodeOperationError(context.getNode(), `The execution was canceled: ${sent} of ${total} items were sent`, {
		description:
			'No further item was started and requests in flight were aborted; an aborted request may have been accepted by the gateway and is not repeated.',
	});
}


function errorJson(error: NodeApiError | NodeOperationError): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error.description) json.description = error.description;
	if (error instanceof NodeApiError && error.httpCode) json.httpCode = error.httpCode;
	return json;
}
