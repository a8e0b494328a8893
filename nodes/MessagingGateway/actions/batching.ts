/**
 * Batching of large message runs: after every `size` items, a pause of `intervalMs`, to stay under the network's
 * rate limits. The options are in the Sending group of message operations (`sending.batchSize`, `sending.batchInterval`).
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';

export interface Batching {
	size: number;
	intervalMs: number;
}

/** The defaults of the Batching options; an option left out takes its default. */
export const BATCHING_DEFAULTS: Batching = { size: 50, intervalMs: 1000 };

export function readBatching(this: IExecuteFunctions, resource: string): Batching | undefined {
	if (resource !== 'message') return undefined;
	const batching = this.getNodeParameter('sending', 0, {}) as IDataObject;
	if (batching.batchSize === undefined && batching.batchInterval === undefined) return undefined;
	const size = Number(batching.batchSize ?? BATCHING_DEFAULTS.size);
	const intervalMs = Number(batching.batchInterval ?? BATCHING_DEFAULTS.intervalMs);
	return size > 0 && intervalMs > 0 ? { size, intervalMs } : undefined;
}
