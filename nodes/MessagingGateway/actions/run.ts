/**
 * One run of a message operation (one call of the node's execute by n8n): what the run's items share, created by the
 * router before the first item starts and handed to each item.
 *
 * - the connection: the credential read once, and n8n's cancel signal of the execution;
 * - the credential's Default Country, read once (an item checks it only when it has no Default Country of its own);
 * - the Sending options: the pacer (messages per second, a 429 pause for all, the interval per recipient), the
 *   deadline of each request;
 * - recipient turns: messages to one recipient leave one after another, in item order;
 * - the scope of the retry record (n8n's Retry On Fail runs the node again with the same scope, retrySafe.ts);
 * - the templates read by ID in this run.
 *
 * Cancellation: once n8n aborts the execution, every wait of the run (pacing, a 429 pause, the pause between
 * batches, a recipient's turn) ends at once with a "canceled" error, and requests in flight are aborted (transport).
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readDefaultCountry } from '../../gateway/phone';
import { RunBreaker } from './campaigns/breaker';
import { openConnection, type GatewayConnection, type RequestPacing } from '../../gateway/transport';
import { Pacer, takeTurn } from './dispatcher';
import { RecipientTurns } from './recipientTurns';
import { recordScopeOf } from './retrySafe';
import type { SendingSettings } from './sending';

export interface SendRun {
	readonly connection: GatewayConnection;
	/** Items in progress at once (Parallel Requests). */
	readonly parallel: number;
	/** The credential's Default Country, read once: a country, or why it cannot be used. */
	readonly credentialCountry: ReturnType<typeof readDefaultCountry>;
	readonly timeoutMs: number;
	readonly turns: RecipientTurns;
	/** The engine's object for this node run, the same on every try of Retry On Fail; none in some test contexts. */
	readonly recordScope: object | undefined;
	/** Template reads of this run by template ID (each ID is read once; items in progress share a pending read). */
	readonly templateReads: Map<string, Promise<unknown>>;
	/** Refusals that stop further sends of the run (campaigns/breaker.ts). */
	readonly breaker: RunBreaker;
	/** Checks made before each request of an item leaves; one throws to stop the item (the campaign's hold lapsed). */
	readonly beforeSend: Array<(itemIndex: number) => void>;
	/** Work the router awaits when the run is over, sent, stopped or cancelled (the campaign record's last writes). */
	readonly atEnd: Array<() => Promise<void>>;
	/** n8n cancelled the execution. */
	cancelled(): boolean;
	/** Resolves after `ms`, or at once when the execution is cancelled. */
	sleep(ms: number): Promise<void>;
	/** Resolves with `promise`; throws the "canceled" error as soon as the execution is cancelled. */
	until<T>(promise: Promise<T>, itemIndex: number): Promise<T>;
	/** The pacing of one request to `recipient`: its start waits for the pacer; a 429 pauses every request of the run. */
	pacing(recipient: string | undefined, itemIndex: number): RequestPacing;
	/** The error of an item that did not start or stopped waiting because the execution was cancelled. */
	cancelledError(itemIndex: number): NodeOperationError;
	/** The run is over: stops listening to the execution's cancel signal. */
	close(): void;
}

export async function openSendRun(context: IExecuteFunctions, settings: SendingSettings): Promise<SendRun> {
	const connection = await openConnection.call(context);
	const { cancel } = connection;
	const pacer = new Pacer({ perSecond: settings.perSecond, perRecipientMs: settings.perRecipientMs });
	const cancelled = () => cancel.aborted;
	const sleep = async (ms: number) => {
		await cancel.wait(ms);
	};
	const cancelledError = (itemIndex: number) =>
		new NodeOperationError(context.getNode(), `The execution was canceled: item ${itemIndex} was not sent`, { itemIndex });

	return {
		connection,
		parallel: settings.parallel,
		credentialCountry: readDefaultCountry(connection.settings.defaultCountry),
		timeoutMs: settings.timeoutMs,
		turns: new RecipientTurns(),
		recordScope: recordScopeOf(context),
		templateReads: new Map(),
		breaker: new RunBreaker(),
		beforeSend: [],
		atEnd: [],
		cancelled,
		sleep,
		cancelledError,
		close: () => cancel.close(),
		async until<T>(promise: Promise<T>, itemIndex: number): Promise<T> {
			if (cancel.aborted) throw cancelledError(itemIndex);
			let unsubscribe: () => void = () => undefined;
			const aborted = new Promise<never>((_, reject) => {
				unsubscribe = cancel.subscribe(() => reject(cancelledError(itemIndex)));
			});
			try {
				return await Promise.race([promise, aborted]);
			} finally {
				unsubscribe();
			}
		},
		pacing(recipient, itemIndex) {
			const clock = {
				now: () => Date.now(),
				sleep: async (ms: number) => {
					await sleep(ms);
					if (cancelled()) throw cancelledError(itemIndex);
				},
			};
			return {
				beforeAttempt: async () => {
					if (cancelled()) throw cancelledError(itemIndex);
					await takeTurn(pacer, clock, recipient);
				},
				pause: (waitMs) => pacer.pause(Date.now(), waitMs),
			};
		},
	};
}
