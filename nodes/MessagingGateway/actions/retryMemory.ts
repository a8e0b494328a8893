/**
 * What n8n's Retry On Fail must not repeat: the requests of this node run that the gateway accepted, or may have
 * accepted (message sends and mark-as-reads, person files and their parts), so that a retry answers them from here
 * instead of sending them again.
 *
 * What n8n does (n8n-core's workflow-execute, its retry loop; test/harness/run.ts reproduces it): when a node with
 * Retry On Fail throws, or its first output item has `json.error`, the engine runs the node again with the same input
 * and the same execution data, up to Max Tries (clamped to 2-5, 3 by default). The memory is kept where n8n keeps a
 * node's own state for an execution, its node context (`getContext('node')`), with the number of tries so far: a call
 * of the node within Max Tries of the last one that left a memory is a retry of it; any other is a new run of the
 * node (a loop's next round), which starts a new memory. A node without Retry On Fail keeps nothing. When a run
 * returns in a way n8n does not retry, its memory goes (`close`). Entries are JSON (the context is saved as such).
 */
import { createHash } from 'crypto';

import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { hasUnknownOutcome, markUnknownOutcome } from '../../gateway/errors';
import { apiError } from '../../gateway/requestErrors';

/** The error of a request that may have arrived, as a retry gives it again. */
export interface UncertainFailure {
	message: string;
	description?: string;
	httpCode?: string;
}

/** An entry of a request: its answer, or its error of unknown outcome. */
type RequestEntry<Answer> = { accepted: true; answer: Answer } | { accepted: false; failure: UncertainFailure };

/** The memory's sections: one per kind of request. */
export type RetrySection = 'messages' | 'personFiles' | 'personParts';

/** The node context's value: the tries of the node run so far, and the entries of each section by key. */
interface Saved {
	tries: number;
	sections: Partial<Record<RetrySection, Record<string, unknown>>>;
}

const CONTEXT_KEY = 'retryMemory';

export class RetryMemory {
	/** Undefined without Retry On Fail: there is no retry to answer. */
	private readonly saved: Saved | undefined;
	private readonly maxTries: number;

	/** Opened once per call of the node: it counts the call as a try. */
	constructor(private readonly context: IExecuteFunctions) {
		const node = context.getNode();
		// n8n's own clamp of Max Tries (workflow-execute's getRetryParams).
		this.maxTries = Math.min(5, Math.max(2, node.maxTries || 3));
		if (node.retryOnFail !== true) return;
		const nodeContext = context.getContext('node');
		const earlier = nodeContext[CONTEXT_KEY] as Saved | undefined;
		this.saved = earlier && earlier.tries < this.maxTries ? { ...earlier, tries: earlier.tries + 1 } : { tries: 1, sections: {} };
		nodeContext[CONTEXT_KEY] = this.saved;
	}

	get<Entry>(section: RetrySection, key: string): Entry | undefined {
		return this.saved?.sections[section]?.[key] as Entry | undefined;
	}

	set<Entry>(section: RetrySection, key: string, entry: Entry): void {
		if (!this.saved) return;
		(this.saved.sections[section] ??= {})[key] = entry;
	}

	/**
	 * A request an earlier try of this node run made (a message, a person file): its answer again, or its error of
	 * unknown outcome given again under `itemIndex`; undefined when there was none, or it was not sent.
	 */
	answerOf<Answer extends object>(section: RetrySection, key: string, itemIndex: number): Answer | undefined {
		const earlier = this.get<RequestEntry<Answer>>(section, key);
		if (earlier?.accepted) return { ...earlier.answer };
		if (earlier) throw replayedFailure(this.context, earlier.failure, itemIndex);
		return undefined;
	}

	/** The gateway accepted the request: a retry gives `answer` again. */
	accepted(section: RetrySection, key: string, answer: object): void {
		this.set<RequestEntry<object>>(section, key, { accepted: true, answer: { ...answer } });
	}

	/** The request failed: when its outcome is unknown, a retry gives its error again and does not send it. */
	failed(section: RetrySection, key: string, error: unknown): void {
		if (error instanceof NodeApiError && hasUnknownOutcome(error)) this.set<RequestEntry<object>>(section, key, { accepted: false, failure: uncertainFailureOf(error) });
	}

	/**
	 * The node run returned `output`: the memory stays for n8n's next try (Retry On Fail, its first item an error, a
	 * try left), or goes.
	 */
	close(output: INodeExecutionData[] | undefined): void {
		if (!this.saved) return;
		const retried = output?.[0]?.json?.error !== undefined && this.saved.tries < this.maxTries;
		if (!retried) delete this.context.getContext('node')[CONTEXT_KEY];
	}
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

/**
 * What the memory knows an item's message by: its index and a hash of the message before any upload (a retry uploads
 * again and gets a new media id), so that a retry with the same input finds it; a message that changed between tries
 * (an expression with `$now`) is a new message.
 */
export function retryKeyOf(itemIndex: number, message: unknown): string {
	return `${itemIndex}:${createHash('sha256').update(JSON.stringify(message)).digest('base64')}`;
}
