/**
 * In-process test harness: runs a node inside n8n-core's real execution contexts with real HTTP.
 * See README.md beside this file for usage.
 */
export { runNode, runWebhook, runHook, runLoadOptions, runCredentialTest } from './run';
export type {
	RunNodeOptions,
	RunNodeResult,
	RunWebhookOptions,
	RunWebhookResult,
	RunHookOptions,
	RunLoadOptionsOptions,
	RunCredentialTestOptions,
} from './run';
export { readBinary } from './binary';
export type { InputItem, BinaryInput } from './binary';
export type { RequestInput, ResponseRecord } from './http-fakes';
export { getLogs } from './container';
export {
	clearDeduplicationRows,
	deduplicationFaults,
	deduplicationRows,
	deduplicationWrites,
	holdNextDelete,
	holdNextWrite,
} from './deduplication';
export type { DeduplicationDelay, DeduplicationFaultScope, HeldStatement } from './deduplication';
export { measurePeakMemory } from './memory';
export type { MemoryMeasurement } from './memory';
export { EXECUTION_ID, N8N_BASE_URL, WEBHOOK_ID, WORKFLOW_ID } from './workflow';
