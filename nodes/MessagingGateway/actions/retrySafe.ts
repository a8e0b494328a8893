/**
 * Requests that n8n's Retry On Fail must not repeat (message sends, mark-as-reads, person file uploads), on top of the
 * pure SentRecord: the record's scope is the engine's `executeData` of the node run (sentRecord.ts says why), an
 * accepted request's output is given back as a copy, and a request of unknown outcome (errors.ts, outcomeOfStatus)
 * is answered on a retry with its error rebuilt, without a second request.
 */
import type { IExecuteFunctions, NodeApiError } from 'n8n-workflow';

import { hasUnknownOutcome, markUnknownOutcome } from '../../gateway/errors';
import { apiError } from '../../gateway/transport';
import { asNodeError } from './nodeErrors';
import { SentRecord } from './sentRecord';

/** What a retry gets for a request that may have arrived: the same error, rebuilt. */
export interface UncertainFailure {
	message: string;
	description?: string;
	httpCode?: string;
}

/** What is kept of an error of unknown outcome, to give it again on a retry (`replayedFailure`). */
export function uncertainFailureOf(error: NodeApiError): UncertainFailure {
	const { message, description, httpCode } = error;
	return { message, description: description ?? undefined, httpCode: httpCode ?? undefined };
}

/** The error of a request of unknown outcome, rebuilt for a retry that does not send it again. */
export function replayedFailure(context: IExecuteFunctions, failure: UncertainFailure, itemIndex: number | undefined): NodeApiError {
	return markUnknownOutcome(apiError(context, { message: failure.message }, { ...failure, itemIndex }));
}

export class RetrySafeRequests<Output extends object> {
	private readonly record = new SentRecord<Output, UncertainFailure>();

	/** The earlier try's output for `key` in this node run (a copy), its error thrown again, or undefined. */
	earlier(context: IExecuteFunctions, scope: object | undefined, key: string, itemIndex: number | undefined): Output | undefined {
		const entry = scope && this.record.lookup(scope, key);
		if (!entry) return undefined;
		if (entry.accepted) return { ...entry.output };
		throw replayedFailure(context, entry.failure, itemIndex);
	}

	/** Runs `request` and remembers its output, or its error when its outcome is unknown (it may have arrived). */
	async send(
		context: IExecuteFunctions,
		scope: object | undefined,
		key: string,
		itemIndex: number | undefined,
		request: () => Promise<Output>,
	): Promise<Output> {
		try {
			const output = await request();
			if (scope) this.record.remember(scope, key, { accepted: true, output });
			return { ...output };
		} catch (error) {
			if (scope && hasUnknownOutcome(error)) {
				this.record.remember(scope, key, { accepted: false, failure: uncertainFailureOf(error as NodeApiError) });
			}
			throw asNodeError(context.getNode(), error, itemIndex);
		}
	}
}

/** The engine's object for this node run, the same on every retry (absent in some test contexts). */
export function recordScopeOf(context: IExecuteFunctions): object | undefined {
	return typeof context.getExecuteData === 'function' ? context.getExecuteData() : undefined;
}
