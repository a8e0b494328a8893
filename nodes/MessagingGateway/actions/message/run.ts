/**
 * One run of a message operation (Send, Mark as Read, Send and Wait: one call of the node's execute by n8n) and what
 * its items share: the connection (transport.ts), the Sending options, the schedule (schedule.ts: items in progress,
 * recipients' turns, requests in flight, the pace), the breaker, and the retry memory (retryMemory.ts).
 *
 * `forEachItem` starts the items and turns their outcomes into output items or the run's one error; the operation reads
 * and checks an item, takes its recipient's turn as it starts, and calls `send`. Every wait ends at once when the
 * execution is canceled; requests in flight are aborted.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { hasUnknownOutcome, networkCodeOf, PAIR_RATE_CODE, THROUGHPUT_CODE, waitOf } from '../../../gateway/errors';
import { unconfirmedAnswer } from '../../../gateway/requestErrors';
import { type GatewayAnswer, type GatewayConnection, type GatewayRequest, openConnection, request, wait } from '../../../gateway/transport';
import { asNodeError, describeRefusal, errorJson, inputError, type RefusalContext } from '../common';
import { RetryMemory, retryKeyOf } from '../retryMemory';
import { explainNetworkCode, notSentText, refusalOf } from '../../../gateway/networkErrors';
import { dispatch, type Outcome, Pacer, RecipientTurns, RequestSlots, type RecipientTurn, RunBreaker, templateOf } from './schedule';
import { pacingHint, readSending, type SendingSettings } from './sending';
import { defaultCountryField, MessageInputError, readRecipient, recipientField, sentOutput } from './types/common';

/**
 * Items read ahead of the requests in flight, so that a freed slot finds an item read and checked, and an item waiting
 * for its recipient's turn leaves a slot to another. As many as Parallel Requests was measured slower at 100 (405
 * against 532 messages/s at 100 ms, 570 against 829 at 0 ms: docs/benchmarks.md).
 */
export const LOOKAHEAD = 20;

/** What `send` does besides sending `body`. */
export interface SendOptions {
	/** The item's turn among the run's messages to its recipient. */
	turn?: RecipientTurn;
	/** What the retry memory knows the item's message by: the message before any upload (a retry uploads again). */
	message: unknown;
	/** A check right before the request leaves (a campaign's lock); it throws to stop the item. */
	beforeRequest?: () => void;
	/** Mark as Read: the id of the message marked, which the answer does not carry. */
	markedMessageId?: string;
}

export class MessageRun {
	/** The node, copied once (n8n's getNode copies it on every call). */
	readonly node: INode;
	readonly settings: SendingSettings;
	private readonly pacer: Pacer;
	private readonly turns = new RecipientTurns();
	private readonly slots: RequestSlots;
	private readonly breaker = new RunBreaker();
	/** What this node run sent, for n8n's Retry On Fail; none without it (nothing would ask). */
	private readonly retries: RetryMemory | undefined;
	/** Parameters without an expression, read once per run (the same for every item). */
	private readonly fixed = new Map<string, unknown>();
	private readonly startedAt = Date.now();
	/** Messages the gateway accepted in this run, of `total` items (forEachItem sets it). */
	private accepted = 0;
	private total = 0;
	/** Without Continue On Fail: the first item that failed; no item after it in the send order makes a request. */
	private stoppedAt: number | undefined;
	/** Each item's position in the send order (forEachItem). */
	private readonly position = new Map<number, number>();

	private constructor(
		readonly context: IExecuteFunctions,
		readonly connection: GatewayConnection,
	) {
		this.node = context.getNode();
		this.settings = readSending(context);
		this.pacer = new Pacer(this.settings);
		this.slots = new RequestSlots(this.settings.parallel);
		this.retries = this.node.retryOnFail === true ? new RetryMemory(context) : undefined;
	}

	static async open(context: IExecuteFunctions): Promise<MessageRun> {
		return new MessageRun(context, await openConnection.call(context));
	}

	get cancelled(): boolean {
		return this.connection.signal?.aborted === true;
	}

	/**
	 * `getNodeParameter(name, itemIndex, fallback)`; a value without an expression is read once for the run (a copy
	 * each time, so that an item cannot change it for the next). A parameter the node does not hold is the fallback.
	 */
	param(name: string, itemIndex: number, fallback?: unknown): unknown {
		const raw = this.node.parameters[name];
		if (raw === undefined) return fallback;
		if (this.fixed.has(name)) return structuredClone(this.fixed.get(name));
		const value = this.context.getNodeParameter(name, itemIndex, fallback);
		if (!holdsExpression(raw)) this.fixed.set(name, structuredClone(value));
		return value;
	}

	/** The item's recipient in international digits (types/common.ts, readRecipient); no await: see `turnOf`. */
	recipientOf(itemIndex: number): string {
		const recipient = this.param(recipientField.name, itemIndex, '');
		const nodeCountry = this.param(defaultCountryField.name, itemIndex, '');
		return this.check(itemIndex, () => readRecipient(recipient, nodeCountry, this.connection.settings.defaultCountry));
	}

	/** The item's turn among the run's messages to `recipient`: take it as the item starts, before any await. */
	turnOf(recipient: string): RecipientTurn {
		return this.turns.take(recipient);
	}

	/**
	 * Runs the item's pure reading and checking code (types/): its MessageInputError names the item and the field. All
	 * of an item is checked before its first request, so that bad input sends nothing.
	 */
	check<T>(itemIndex: number, read: () => T): T {
		try {
			return read();
		} catch (error) {
			if (error instanceof MessageInputError) throw inputError(this.node, itemIndex, error.field, error.reason, error.description);
			throw asNodeError(this.node, error, itemIndex);
		}
	}

	/** n8n's cancel signal of the execution (a download listens to it too). */
	get signal(): AbortSignal | undefined {
		return this.connection.signal;
	}

	/** The Timeout option in ms. */
	get timeoutMs(): number {
		return this.settings.timeoutMs;
	}

	/**
	 * Runs `work` for each item of `order`, at most Parallel Requests + LOOKAHEAD in progress, and gives the output
	 * items in input order, paired. Without Continue On Fail the first failure stops the run (items in progress finish)
	 * and is its one error; with it, a failure is an error item (`errorFields` beside it). A cancel is one error.
	 */
	async forEachItem(
		order: readonly number[],
		where: (itemIndex: number) => RefusalContext,
		work: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
		errorFields?: (itemIndex: number) => IDataObject | undefined,
	): Promise<INodeExecutionData[]> {
		const continueOnFail = this.context.continueOnFail();
		this.total = order.length;
		order.forEach((itemIndex, position) => this.position.set(itemIndex, position));
		const result = await dispatch(
			order,
			{
				window: this.settings.parallel + LOOKAHEAD,
				stopOnFailure: !continueOnFail,
				batch: this.settings.batch,
				signal: this.connection.signal,
				// A turn of n8n's sleep: the answers that came meanwhile are handled, and their items' next requests leave,
				// before another item is read; requests then leave as their slots free, not in rounds (docs/sending.md).
				beforeNext: () => this.sleep(0),
			},
			async (itemIndex) => {
				try {
					return await work(itemIndex);
				} catch (error) {
					const nodeError = describeRefusal(this.node, asNodeError(this.node, error, itemIndex), itemIndex, where(itemIndex));
					if (!continueOnFail && !isNotAttempted(nodeError)) this.stoppedAt ??= itemIndex;
					throw nodeError;
				}
			},
			(ms) => this.sleep(ms),
		);
		if (result.cancelled) {
			// n8n keeps no output of a canceled execution: the log, this error and the custom data (keepCount) tell the count.
			const told = `The execution was canceled: ${result.succeeded} of ${order.length} items were sent`;
			this.context.logger.info(`Messaging Gateway: ${told}`, { node: this.node.name, executionId: this.context.getExecutionId() });
			throw new NodeOperationError(this.node, told, {
				description: 'No further item was started and requests in flight were aborted; an aborted request may have been accepted by the gateway and is not repeated.',
			});
		}
		if (result.stoppedBy) throw this.stoppedError(result.stoppedBy, order.map((itemIndex) => result.outcomes[itemIndex]), result.succeeded);
		const output: INodeExecutionData[] = [];
		result.outcomes.forEach((outcome, itemIndex) => {
			if (!outcome) return;
			const pairedItem = { item: itemIndex };
			if (outcome.ok) {
				for (const json of Array.isArray(outcome.value) ? outcome.value : [outcome.value]) output.push({ json, pairedItem });
			} else {
				output.push({ json: { ...errorJson(asNodeError(this.node, outcome.error, itemIndex)), ...errorFields?.(itemIndex) }, pairedItem });
			}
		});
		return output;
	}

	/**
	 * Sends a message or mark-as-read body, and gives its output (types/common.ts, sentOutput):
	 * 1. an item an earlier try of this node run sent (n8n's Retry On Fail) gets that output or error again;
	 * 2. it waits for its recipient's turn; without Continue On Fail, not after an earlier message to them failed;
	 * 3. it waits for a request slot and the pace, unless the breaker or the run's stop reaches it, and is sent;
	 * 4. a throughput or pair rate answer (errors.ts, waitOf) was not sent: it waits and goes again, within its Timeout;
	 * 5. an answer without what the spec's response carries is of unknown outcome.
	 */
	async send(itemIndex: number, body: object, options: SendOptions): Promise<IDataObject> {
		const retryKey = this.retries && retryKeyOf(itemIndex, options.message);
		const earlier = retryKey === undefined ? undefined : this.retries?.answerOf<IDataObject>('messages', retryKey, itemIndex);
		if (earlier) return earlier;
		if (options.turn) {
			const failedBefore = await options.turn.ready;
			if (this.cancelled) throw this.cancelledError(itemIndex);
			if (failedBefore && !this.context.continueOnFail()) {
				throw new NodeOperationError(this.node, `Not sent (item ${itemIndex}): an earlier message to the same recipient failed`, {
					itemIndex,
					description: 'Messages to one recipient are sent in item order, and the run stops at its first failure.',
				});
			}
		}
		const to = typeof (body as { to?: unknown }).to === 'string' ? (body as { to: string }).to : undefined;
		const template = templateOf(body);
		const firstTry = Date.now();
		for (let tries = 1; ; tries++) {
			const release = await this.slots.take();
			let output: IDataObject | undefined;
			let startedAt = 0;
			try {
				// Checked after the waits too: a refusal, or the run's stop, may have come while this item waited.
				this.stopIfRefused(itemIndex, template);
				await this.pace(itemIndex, to, () => {
					this.stopIfRefused(itemIndex, template);
					options.beforeRequest?.();
				});
				startedAt = Date.now();
				const answer = await request.call(this.context, this.connection, {
					endpoint: 'messages',
					method: 'POST',
					body: body as IDataObject,
					itemIndex,
					timeoutMs: this.settings.timeoutMs,
				});
				output = sentOutput(answer.body, to, options.markedMessageId) as IDataObject | undefined;
				if (!output) throw unconfirmedAnswer(this.context, answer.body, itemIndex, options.markedMessageId);
			} catch (error) {
				if (startedAt > 0 && this.waitOf(error, itemIndex, to, startedAt, firstTry, tries)) continue;
				// Before the slot goes to the next item: without Continue On Fail, nothing after this item is sent.
				if (!this.context.continueOnFail() && !isNotAttempted(error)) this.stoppedAt ??= itemIndex;
				if (startedAt > 0) this.remember(error, retryKey, template, itemIndex);
				throw asNodeError(this.node, error, itemIndex);
			} finally {
				release();
			}
			this.pacer.accepted(Date.now());
			this.accepted++;
			this.keepCount();
			if (retryKey !== undefined) this.retries?.accepted('messages', retryKey, output);
			return { ...output };
		}
	}

	/**
	 * The count of messages sent, in the execution's custom data (`messagesSent`: "12 of 50"): n8n saves it when the
	 * execution is stopped, when the node's output and error are not kept (docs/campaigns.md). n8n 2.0's context has
	 * no custom data; outside an execution there is none to keep.
	 */
	private keepCount(): void {
		try {
			(this.context as { customData?: { set(key: string, value: string): void } }).customData?.set('messagesSent', `${this.accepted} of ${this.total}`);
		} catch {
			// Nothing to keep it in.
		}
	}

	/** One request of an item besides its message (a media upload, a template read): a request slot, the Timeout. */
	async request(gatewayRequest: GatewayRequest): Promise<GatewayAnswer> {
		const release = await this.slots.take();
		try {
			if (this.cancelled && gatewayRequest.itemIndex !== undefined) throw this.cancelledError(gatewayRequest.itemIndex);
			return await request.call(this.context, this.connection, { timeoutMs: this.settings.timeoutMs, ...gatewayRequest });
		} finally {
			release();
		}
	}

	/** The error of an item that did not start, or stopped waiting, because the execution was canceled. */
	cancelledError(itemIndex: number): NodeOperationError {
		return new NodeOperationError(this.node, `The execution was canceled: item ${itemIndex} was not sent`, { itemIndex });
	}

	/**
	 * The run is over and gave `output`: its retry memory goes unless n8n runs it again, and when the network's answers
	 * made it wait, a hint on the node's output says how fast it could go.
	 */
	close(output: INodeExecutionData[]): void {
		this.retries?.close(output);
		const seconds = (Date.now() - this.startedAt) / 1000;
		const message = pacingHint(this.pacer.pacing, seconds > 0 ? this.accepted / seconds : this.accepted);
		if (!message) return;
		this.context.addExecutionHints({ message, location: 'outputPane' });
		this.context.logger.info(`Messaging Gateway: ${message}`, { node: this.node.name, executionId: this.context.getExecutionId() });
	}

	/** Waits `ms`, less when the execution is canceled. */
	private async sleep(ms: number): Promise<void> {
		await wait(ms, this.connection.signal);
	}

	private positionOf(itemIndex: number): number {
		return this.position.get(itemIndex) ?? itemIndex;
	}

	/**
	 * Waits until the pace lets the item's request start, then `check`s it and counts the start, in one synchronous
	 * step (so that no other item takes the same slot). A cancel ends the wait with the item's "canceled" error.
	 */
	private async pace(itemIndex: number, to: string | undefined, check: () => void): Promise<void> {
		for (;;) {
			if (this.cancelled) throw this.cancelledError(itemIndex);
			const now = Date.now();
			const ms = this.pacer.waitFor(now, to);
			if (ms <= 0) {
				check();
				this.pacer.start(now, to);
				return;
			}
			if (!(await wait(ms, this.connection.signal))) throw this.cancelledError(itemIndex);
		}
	}

	/**
	 * An item is not sent once the run stopped at a failure (without Continue On Fail: items ahead of the failure that
	 * wait for their turn or a slot do not send), or a refusal that reaches it came (the API key, the account, or its
	 * template refused).
	 */
	private stopIfRefused(itemIndex: number, template: string | undefined): void {
		const stopped = this.stoppedAt !== undefined && this.positionOf(itemIndex) > this.positionOf(this.stoppedAt);
		const refusal = stopped ? undefined : this.breaker.blocking(template);
		if (!stopped && !refusal) return;
		const error = refusal
			? new NodeOperationError(this.node, notSentText(itemIndex, refusal), {
					itemIndex,
					description: 'The same refusal would come for this message, so it was not sent. Fix the cause, then run again (with a Campaign, only what was not sent goes).',
				})
			: new NodeOperationError(this.node, `Not sent (item ${itemIndex}): the run stopped at item ${this.stoppedAt}`, { itemIndex });
		error.context.notAttempted = true;
		throw error;
	}

	/**
	 * A refusal that is a wait (errors.ts, waitOf): the pace follows it, and true when the message goes again within
	 * its Timeout since the first try. Past it, the refusal is the item's error, with its code's reason and hint.
	 */
	private waitOf(error: unknown, itemIndex: number, to: string | undefined, startedAt: number, firstTry: number, tries: number): boolean {
		if (!(error instanceof NodeApiError) || this.cancelled) return false;
		const answerWait = waitOf(Number(error.httpCode), error.errorResponse, error.context.retryAfterSeconds);
		if (!answerWait) return false;
		const now = Date.now();
		if (this.pacer.refused(answerWait, now, startedAt, to, firstTry + this.settings.timeoutMs)) return true;
		const { reason, hint } = explainNetworkCode(answerWait.kind === 'throughput' ? THROUGHPUT_CODE : PAIR_RATE_CODE);
		const seconds = Math.round((now - firstTry) / 100) / 10;
		error.message = `Not sent (item ${itemIndex}): ${reason.replace(/\.$/, '')}; the gateway refused it ${tries} time${tries === 1 ? '' : 's'} in ${seconds} s, and its Timeout (${this.settings.timeoutMs / 1000} s) ends before it may go again`;
		error.description = `${hint} Nothing was sent for this item.`;
		error.context.described = true;
		return false;
	}

	/**
	 * A failed message request: a refusal that reaches further messages stops them (and says nothing of this message);
	 * any other refusal is this message's (`context.messageRequest`: a campaign records it); an unknown outcome is kept
	 * for Retry On Fail (and a campaign keeps its claim).
	 */
	private remember(error: unknown, retryKey: string | undefined, template: string | undefined, itemIndex: number): void {
		if (!(error instanceof NodeApiError)) return;
		const refusal = refusalOf(itemIndex, { httpCode: error.httpCode ?? undefined, code: networkCodeOf(error.errorResponse), template });
		if (refusal) this.breaker.trip(refusal);
		if (hasUnknownOutcome(error)) {
			error.context.messageRequest = 'unknown';
			if (retryKey !== undefined) this.retries?.failed('messages', retryKey, error);
		} else if (!refusal && !waitOf(Number(error.httpCode), error.errorResponse)) {
			error.context.messageRequest = 'refused';
		}
	}

	/**
	 * The run's one error when a failure stopped it: the first failure, with how many items were sent, failed, and were
	 * not attempted (never started, or stopped before their request), and the refusal that stopped the rest, if one did.
	 */
	private stoppedError(stoppedBy: { index: number; error: unknown }, outcomes: ReadonlyArray<Outcome<unknown> | undefined>, sent: number): NodeApiError | NodeOperationError {
		const nodeError = asNodeError(this.node, stoppedBy.error, stoppedBy.index);
		const total = outcomes.length;
		if (total <= 1) return nodeError;
		const failed = outcomes.filter((outcome) => outcome?.ok === false && !isNotAttempted(outcome.error)).length;
		const notAttempted = total - sent - failed;
		const refusal = this.breaker.blocking(undefined) ?? this.breaker.trippedBy(stoppedBy.index);
		const told = `${sent} of ${total} items were sent before the run stopped at item ${stoppedBy.index}${refusal ? ` because ${refusal.reason}` : ''}; ${failed} failed and ${notAttempted} were not attempted (items in progress finished, no further request was made). n8n's Retry On Fail does not send them again; a Retry of the execution from the executions list is a new run and sends every item again, unless the node has a Campaign (docs/campaigns.md).`;
		nodeError.description = nodeError.description ? `${nodeError.description} ${told}` : told;
		if (refusal) nodeError.message = `${nodeError.message} (${sent} of ${total} items sent, ${failed} refused, ${notAttempted} not sent: ${refusal.reason})`;
		return nodeError;
	}
}

/** An item stopped before its request: the run had stopped at an earlier failure. */
const isNotAttempted = (error: unknown): boolean => (error as { context?: { notAttempted?: boolean } }).context?.notAttempted === true;

const holdsExpression = (value: unknown): boolean =>
	typeof value === 'string'
		? value.startsWith('=')
		: typeof value === 'object' && value !== null && Object.values(value).some(holdsExpression);
