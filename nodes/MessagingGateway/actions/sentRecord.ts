/**
 * The record that makes n8n's Retry On Fail safe: what the gateway accepted (or may have accepted) in this node run,
 * so that a retry of the node answers those items from the record instead of sending them again. Pure: no n8n imports.
 *
 * What n8n does (n8n-core workflow-execute, the retry loop): when a node with Retry On Fail throws, or its first
 * output item has `json.error`, the engine runs the node again with the same input, the same run index and the same
 * `executeData` object, up to Max Tries. A record is therefore scoped to that object (the execution, the node and the
 * run together) and keyed inside it by the item and its request body.
 *
 * What it covers: retries of the same node run in the same process, which is where n8n retries (in queue mode the
 * whole execution, retries included, runs on one worker). A later run of the node (a loop, runIndex + 1), a new
 * execution, or "Retry" of a failed execution from the list are new runs and send again, as the user asked.
 *
 * Bounds: one entry per item sent (a hash of its body and the small answer the node outputs). The scopes are held
 * in a WeakMap, so a record lives exactly as long as the engine keeps the run's `executeData`, which it drops when
 * the node's run is over; nothing accumulates across executions.
 */
import { createHash } from 'crypto';

/** What a retry gives back for an item: the output of the accepted send, or the error of a send that may have arrived. */
export type SentEntry<Output, Failure> = { accepted: true; output: Output } | { accepted: false; failure: Failure };

export class SentRecord<Output, Failure> {
	private readonly scopes = new WeakMap<object, Map<string, SentEntry<Output, Failure>>>();

	/** The entry of a request sent earlier in this scope with the same item and body. */
	lookup(scope: object, key: string): SentEntry<Output, Failure> | undefined {
		return this.scopes.get(scope)?.get(key);
	}

	remember(scope: object, key: string, entry: SentEntry<Output, Failure>): void {
		let entries = this.scopes.get(scope);
		if (!entries) {
			entries = new Map();
			this.scopes.set(scope, entries);
		}
		entries.set(key, entry);
	}

	/** Entries held for a scope (for tests and diagnostics). */
	size(scope: object): number {
		return this.scopes.get(scope)?.size ?? 0;
	}
}

/** The key of an item's request: its index and a hash of its body (a retry with a different body is a new send). */
export function sentKey(itemIndex: number, body: unknown): string {
	return `${itemIndex}:${createHash('sha256').update(JSON.stringify(body)).digest('base64')}`;
}
