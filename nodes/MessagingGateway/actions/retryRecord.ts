/**
 * What n8n's Retry On Fail must not repeat: the requests of this node run that the gateway accepted, or may have
 * accepted (message sends and mark-as-reads, person files and their parts), so that a retry answers them from here
 * instead of sending them again.
 *
 * What n8n does (n8n-core's workflow-execute, the retry loop; test/harness/run.ts reproduces it): when a node with
 * Retry On Fail throws, or its first output item has `json.error`, the engine runs the node again with the same input,
 * the same run index and the same execution data, up to Max Tries. The record is kept where n8n keeps a node's own
 * state for an execution, its node context (`getContext('node')`, saved with the execution), under the node's run
 * index: every try of a run finds it, and a later run of the node in a loop has its own. When a node run ends in a way
 * n8n does not retry, the router drops the record (`forgetRetryRecord`); a run that failed keeps it with the failed
 * execution. Entries are JSON (the context is saved as such); a key names the item and what was sent.
 */
import type { IExecuteFunctions, INodeExecutionData, NodeApiError } from 'n8n-workflow';

import { markUnknownOutcome } from '../../gateway/errors';
import { apiError } from '../../gateway/transport';

/** The error of a request that may have arrived, as a retry gives it again. */
export interface UncertainFailure {
	message: string;
	description?: string;
	httpCode?: string;
}

/** The record's sections: one per kind of request. */
export type RetrySection = 'messages' | 'personFiles' | 'personParts';

type RunRecord = Partial<Record<RetrySection, Record<string, unknown>>>;

/** The node context's key of a run's record. */
function recordKeyOf(context: IExecuteFunctions): string {
	const runIndex = Number(context.evaluateExpression('{{ $runIndex }}', 0));
	return `retryRecord:${Number.isInteger(runIndex) ? runIndex : 0}`;
}

/** One section of this node run's record: entries by key, kept in the node context itself. */
export class RetryRecord<Entry> {
	private readonly entries: Record<string, Entry>;

	constructor(context: IExecuteFunctions, section: RetrySection) {
		const run = (context.getContext('node')[recordKeyOf(context)] ??= {}) as RunRecord;
		this.entries = (run[section] ??= {}) as Record<string, Entry>;
	}

	get(key: string): Entry | undefined {
		return this.entries[key];
	}

	set(key: string, entry: Entry): void {
		this.entries[key] = entry;
	}

	/** Entries held (for tests). */
	get size(): number {
		return Object.keys(this.entries).length;
	}
}

/**
 * The node run is over: its record goes, unless n8n will run the node again (Retry On Fail, and the first output item
 * is an error: n8n's retry condition for a node that returned).
 */
export function forgetRetryRecord(context: IExecuteFunctions, output: INodeExecutionData[] | undefined): void {
	const retried = context.getNode().retryOnFail === true && output?.[0]?.json?.error !== undefined;
	if (retried) return;
	const nodeContext = context.getContext('node');
	delete nodeContext[recordKeyOf(context)];
}

/** What is kept of an error of unknown outcome, to give it again on a retry. */
export function uncertainFailureOf(error: NodeApiError): UncertainFailure {
	const { message, description, httpCode } = error;
	const failure: UncertainFailure = { message };
	if (description) failure.description = description;
	if (httpCode) failure.httpCode = httpCode;
	return failure;
}

/** The error of a request of unknown outcome, rebuilt for a retry that does not send it again. */
export function replayedFailure(context: IExecuteFunctions, failure: UncertainFailure, itemIndex: number | undefined): NodeApiError {
	return markUnknownOutcome(apiError(context, { message: failure.message }, { ...failure, itemIndex }));
}
