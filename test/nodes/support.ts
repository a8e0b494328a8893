/**
 * What the node tests share: one sandbox gateway per test file (fresh state for each test), the action node run
 * against it in n8n's real execution context, and small readers of what a run gave back.
 */
import type { IDataObject, INodeParameters, NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { deduplicationRows, runNode, WORKFLOW_ID, type InputItem, type RunNodeResult } from '../harness';
import { sandboxCredentials, startSandbox, type Sandbox } from '../sandbox';

/** Starts a sandbox for the test file, resets it before each test and closes it after the file. */
export function useSandbox(): { readonly sandbox: Sandbox } {
	let sandbox: Sandbox | undefined;
	beforeAll(async () => {
		sandbox = await startSandbox();
	});
	afterAll(async () => await sandbox?.close());
	beforeEach(() => sandbox?.reset());
	return {
		get sandbox() {
			if (!sandbox) throw new Error('the sandbox starts in beforeAll');
			return sandbox;
		},
	};
}

export interface GatewayRunOptions {
	items?: InputItem[];
	continueOnFail?: boolean;
	/** Credential fields to change, e.g. `{ phoneId: '' }`. */
	credentials?: Record<string, string>;
	/** The node setting Retry On Fail (the harness re-runs the node as n8n's engine does). */
	retryOnFail?: { maxTries: number; waitBetweenTriesMs?: number };
	/** The node's typeVersion (default: the newest). */
	typeVersion?: number;
	/** The execution's cancel signal (n8n's stop). */
	abortSignal?: AbortSignal;
}

/** Runs the Messaging Gateway node with these parameters against the sandbox. */
export function runGateway(sandbox: Sandbox, parameters: INodeParameters, options: GatewayRunOptions = {}) {
	return runNode({
		node: new MessagingGateway(),
		parameters,
		credentials: sandboxCredentials(sandbox, options.credentials),
		items: options.items,
		continueOnFail: options.continueOnFail,
		retryOnFail: options.retryOnFail,
		typeVersion: options.typeVersion,
		abortSignal: options.abortSignal,
	});
}

/** Input items that hold only JSON. */
/** Message > Send of a text to each item's `phone`, plus `extra` parameters. */
export const sendText = (extra: INodeParameters = {}): INodeParameters => ({
	resource: 'message',
	operation: 'send',
	messageType: 'text',
	recipientPhoneNumber: '={{ $json.phone }}',
	textBody: 'Seu pedido saiu para entrega',
	...extra,
});

export const jsonItems = (items: IDataObject[]): InputItem[] => items.map((json) => ({ json }));

/** The JSON of the first output's items. */
export const outputJson = (result: RunNodeResult) => result.output[0].map((item) => item.json);

/**
 * The error a run throws; fails the test when the run does not throw. `tries`: how many tries n8n's Retry On Fail
 * made when the harness ran it.
 */
export async function rejectionOf(run: Promise<unknown>): Promise<(NodeOperationError | NodeApiError) & { tries?: number }> {
	try {
		await run;
	} catch (error) {
		return error as (NodeOperationError | NodeApiError) & { tries?: number };
	}
	throw new Error('The run did not fail');
}

/** Body Examples as the editor saves them: one field per placeholder ('1' for {{1}}), with the fields' schema. */
export const bodyExamples = (values: Record<string, unknown>): INodeParameters => ({
	bodyExampleValues: {
		mappingMode: 'defineBelow',
		value: values,
		matchingColumns: [],
		schema: Object.keys(values).map((id) => ({
			id,
			displayName: `Example for {{${id}}}`,
			required: false,
			defaultMatch: false,
			canBeUsedToMatch: false,
			display: true,
			type: 'string',
			removed: false,
		})),
		attemptToConvertTypes: false,
		convertFieldsToString: false,
	} as unknown as INodeParameters[string],
});

/**
 * Messages the sandbox accepted, by recipient (`alsoUnknown`: with the 504s, whose message may have arrived), to
 * count each recipient's messages.
 */
export function receivedBy(sandbox: Sandbox, alsoUnknown = false): Map<string, number> {
	const counts = new Map<string, number>();
	for (const request of sandbox.requests) {
		if (request.route !== 'messages' || (request.status !== 200 && !(alsoUnknown && request.status === 504))) continue;
		const to = (request.body as { to: string }).to;
		counts.set(to, (counts.get(to) ?? 0) + 1);
	}
	return counts;
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Until `condition` holds, looked at every 2 ms. */
export async function waitFor(condition: () => boolean): Promise<void> {
	while (!condition()) await sleep(2);
}

/** The campaign lock's row in the harness store: the workflow-scope row (nodes/MessagingGateway/actions/campaign/lock.ts). */
export const LOCK_ROW = `${WORKFLOW_ID}|`;

/** The lock's last stamp; undefined when the lock is free. */
export const lockStamp = () => deduplicationRows().get(LOCK_ROW)?.data as number | undefined;

/** A lock row as a holder that beat at `stamp` leaves it (a worker that died keeps its last stamp). */
export function lockRowBeatAt(stamp: number): void {
	(deduplicationRows() as Map<string, unknown>).set(LOCK_ROW, { mode: 'latestIncrementalKey', data: stamp });
}
