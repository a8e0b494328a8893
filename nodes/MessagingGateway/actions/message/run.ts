/**
 * One run of a message operation (Send, Mark as Read, Send and Wait: one call of the node's execute by n8n), and what
 * its items share: the credential and n8n's cancel signal (the connection), the Sending options, the schedule of its
 * requests (schedule.ts: the items in progress, each recipient's turn, the requests in flight, the pace), the refusals
 * that stop the run (gateway/networkErrors.ts, the breaker), and the record that keeps n8n's Retry On Fail from sending twice (retryRecord.ts).
 *
 * An item's way through the run: the operation reads and checks it, takes its recipient's turn when it starts (item
 * order), and calls `send`, which waits for the turn, a request slot and the pace, sends, waits out the network's
 * throughput answers (a message it refused was not sent: it goes again), and reads the answer. `forEachItem` starts the
 * items and turns their outcomes into output items (paired, with Continue On Fail's error items), or into the run's one
 * error. Every wait ends at once when the execution is canceled; requests in flight are aborted (transport.ts).
 */
import { createHash } from 'crypto';

import type { IDataObject, IExecuteFunctions, INode, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { wait } from '../../../gateway/delay';
import { hasUnknownOutcome, markUnknownOutcome, MAY_HAVE_BEEN_ACCEPTED, networkCodeOf, waitOf, type Wait } from '../../../gateway/errors';
import { readDefaultCountry } from '../../../gateway/phone';
import { apiError, type GatewayAnswer, type GatewayConnection, type GatewayRequest, openConnection, request } from '../../../gateway/transport';
import { asNodeError, describeRefusal, errorJson, inputError, type RefusalContext } from '../common';
import { replayedFailure, RetryRecord, uncertainFailureOf, type UncertainFailure } from '../retryRecord';
import { notSentText, refusalOf } from '../../../gateway/networkErrors';
import { dispatch, Pacer, RecipientTurns, RequestSlots, type RecipientTurn, RunBreaker, templateOf } from './schedule';
import { cleanRecipient, defaultCountryField, MessageInputError, recipientField } from './types/common';

// ---- The Sending options (sending.ts shows them) ----

export interface SendingSettings {
	parallel: number;
	perSecond: number;
	perRecipientMs: number;
	timeoutMs: number;
	/** Batches: after every `size` items, `intervalMs` before the next; none unless an option of them is set. */
	batch?: { size: number; intervalMs: number };
}

/**
 * Defaults: 80 messages per second is the network's default tier per business phone; 20 parallel requests reach it
 * with a gateway up to 250 ms away (20 / 0.25 s = 80/s) while holding few connections; 60 s per request.
 */
export const SENDING_DEFAULTS = { parallel: 20, perSecond: 80, perRecipientMs: 0, timeoutMs: 60_000 } as const;

/** The batch options' defaults, when one of them is set. */
export const BATCHING_DEFAULTS = { size: 50, intervalMs: 1000 } as const;

/** The Sending options of a run (item 0's: they hold no expression per item). */
export function readSending(context: IExecuteFunctions): SendingSettings {
	const options = context.getNodeParameter('sending', 0, {}) as IDataObject;
	const number = (value: unknown, fallback: number, min: number) => {
		const parsed = Number(value ?? fallback);
		return Number.isFinite(parsed) && parsed >= min ? parsed : fallback;
	};
	const settings: SendingSettings = {
		parallel: Math.floor(number(options.parallelRequests, SENDING_DEFAULTS.parallel, 1)),
		perSecond: number(options.messagesPerSecond, SENDING_DEFAULTS.perSecond, 0),
		perRecipientMs: number(options.recipientIntervalMs, SENDING_DEFAULTS.perRecipientMs, 0),
		timeoutMs: number(options.timeout, SENDING_DEFAULTS.timeoutMs / 1000, 0.001) * 1000,
	};
	if (options.batchSize !== undefined || options.batchInterval !== undefined) {
		const size = Number(options.batchSize ?? BATCHING_DEFAULTS.size);
		const intervalMs = Number(options.batchInterval ?? BATCHING_DEFAULTS.intervalMs);
		if (size > 0 && intervalMs > 0) settings.batch = { size, intervalMs };
	}
	return settings;
}

/** Items in progress beyond the requests in flight, so that an item waiting for its recipient's turn leaves a slot to another. */
export const LOOKAHEAD = 20;

/** What `send` does besides sending `body`. */
export interface SendOptions {
	/** The item's turn among the run's messages to its recipient. */
	turn?: RecipientTurn;
	/** What the retry record knows the item's message by (its index and its message before any upload). */
	retryKey: string;
	/** A check right before the request leaves (a campaign's lock); it throws to stop the item. */
	beforeRequest?: () => void;
	/** Mark as Read: the id of the message marked, which the answer does not carry. */
	markedMessageId?: string;
}

type RetryEntry = { accepted: true; output: IDataObject } | { accepted: false; failure: UncertainFailure };

export class MessageRun {
	/** The node, copied once (n8n's getNode copies it on every call). */
	readonly node: INode;
	readonly settings: SendingSettings;
	private readonly pacer: Pacer;
	private readonly turns = new RecipientTurns();
	private readonly slots: RequestSlots;
	private readonly breaker = new RunBreaker();
	/** What this node run sent, for n8n's Retry On Fail; none without it (nothing would ask). */
	private readonly retries: RetryRecord | undefined;
	/** Parameters without an expression, read once per run (the same for every item). */
	private readonly fixed = new Map<string, unknown>();
	private readonly credentialCountry: ReturnType<typeof readDefaultCountry>;
	private readonly startedAt = Date.now();
	private accepted = 0;
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
		this.retries = this.node.retryOnFail === true ? new RetryRecord(context) : undefined;
		this.credentialCountry = readDefaultCountry(connection.settings.defaultCountry);
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

	/**
	 * The item's recipient in international digits; national numbers are read in the node's Default Country, or else
	 * the credential's. No await: the operation takes the recipient's turn with it as the item starts.
	 */
	recipientOf(itemIndex: number): string {
		const own = this.param(defaultCountryField.name, itemIndex, '');
		const read = own === '' || own === undefined ? this.credentialCountry : readDefaultCountry(own);
		if ('problem' in read) {
			throw own === '' || own === undefined
				? inputError(this.node, itemIndex, 'Default Country of the Messaging Gateway credential', read.problem, 'Open the credential and correct Default Country, or leave it empty. Nothing was sent.')
				: inputError(this.node, itemIndex, defaultCountryField.displayName, read.problem);
		}
		const recipient = this.param(recipientField.name, itemIndex, '');
		return this.check(itemIndex, () => cleanRecipient(recipient, { defaultCountry: read.country }));
	}

	/** The item's turn among the run's messages to `recipient`: take it as the item starts, before any await. */
	turnOf(recipient: string): RecipientTurn {
		return this.turns.take(recipient);
	}

	/**
	 * Runs pure reading and checking code for the item: its MessageInputError names the item and the field (all the
	 * message types' checks are pure); call it for everything an item needs before its first request, so that bad
	 * input sends nothing.
	 */
	check<T>(itemIndex: number, read: () => T): T {
		try {
			return read();
		} catch (error) {
			if (error instanceof MessageInputError) throw inputError(this.node, itemIndex, error.field, error.reason);
			throw asNodeError(this.node, error, itemIndex);
		}
	}

	/**
	 * Waits for work the run's items share (a template read once for all items with its ID); its error is given again
	 * under this item's index (an error names one item), and a cancel ends the wait.
	 */
	async shared<T>(work: Promise<T>, itemIndex: number): Promise<T> {
		try {
			return await work;
		} catch (error) {
			if (!(error instanceof NodeApiError)) throw asNodeError(this.node, error, itemIndex);
			const again = apiError(this.context, (error.errorResponse ?? { message: error.message }) as never, {
				message: error.message,
				description: error.description ?? undefined,
				httpCode: error.httpCode ?? undefined,
				itemIndex,
			});
			again.context = { ...error.context, itemIndex };
			throw again;
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
	 * items in input order, paired. Without Continue On Fail the first failure stops new items (those in progress
	 * finish) and is the run's one error, saying how many were sent; with it, a failure is an error item (with
	 * `errorFields(itemIndex)` beside the error). A canceled execution starts no further item and ends with one error.
	 */
	async forEachItem(
		order: readonly number[],
		where: (itemIndex: number) => RefusalContext,
		work: (itemIndex: number) => Promise<IDataObject | IDataObject[]>,
		errorFields?: (itemIndex: number) => IDataObject | undefined,
	): Promise<INodeExecutionData[]> {
		const continueOnFail = this.context.continueOnFail();
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
				beforeNext: async () => {
					await wait(0, this.connection.signal);
				},
			},
			async (itemIndex) => {
				try {
					return await work(itemIndex);
				} catch (error) {
					const nodeError = describeRefusal(this.node, asNodeError(this.node, error, itemIndex), itemIndex, where(itemIndex));
					if (!continueOnFail && nodeError.context.notAttempted !== true) this.stopAt(itemIndex);
					throw nodeError;
				}
			},
			async (ms) => {
				await wait(ms, this.connection.signal);
			},
		);
		const total = order.length;
		if (result.cancelled) {
			// n8n keeps no output of a canceled execution: the log and the error are where the count is told.
			this.context.logger.info(`Messaging Gateway: the execution was canceled: ${result.succeeded} of ${total} items were sent`, {
				node: this.node.name,
				workflowId: this.context.getWorkflow().id,
				executionId: this.context.getExecutionId(),
			});
			throw new NodeOperationError(this.node, `The execution was canceled: ${result.succeeded} of ${total} items were sent`, {
				description: 'No further item was started and requests in flight were aborted; an aborted request may have been accepted by the gateway and is not repeated.',
			});
		}
		if (result.stoppedBy) throw this.stoppedError(result.stoppedBy, result.outcomes, result.succeeded, total);
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
	 * Sends a message or mark-as-read body: the steps of one item after its body is built. Its output puts first the
	 * ids users map: `messageId` (the message sent, or marked), `waId` (the recipient's network id), `to` and
	 * `recipient`, then the gateway's answer.
	 *
	 * 1. An item sent (or of unknown outcome) in an earlier try of this node run (n8n's Retry On Fail) gets that output
	 *    or error again, without a request.
	 * 2. It waits for its recipient's turn (every earlier item to the same recipient done); without Continue On Fail,
	 *    a later message is not sent after an earlier one to the same recipient failed.
	 * 3. It waits for a request slot and the pace, unless a refusal of the run reaches it (the breaker), and is sent.
	 * 4. A throughput answer of the network (130429, or a 429) or its pair rate answer (131056) means it was not sent:
	 *    it waits (the run slows down) and goes again, until its Timeout has passed since its first try.
	 * 5. An answer without what the spec's response carries (`messages[].id` for a send, `success: true` for a
	 *    mark-as-read) is an error of unknown outcome; an accepted answer is remembered for Retry On Fail.
	 */
	async send(itemIndex: number, body: object, options: SendOptions): Promise<IDataObject> {
		const earlier = this.retries?.get<RetryEntry>('messages', options.retryKey);
		if (earlier?.accepted) return { ...earlier.output };
		if (earlier) throw replayedFailure(this.context, earlier.failure, itemIndex);
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
			let answer: GatewayAnswer;
			let startedAt = 0;
			try {
				// Checked after the waits too: a refusal, or the run's stop, may have come while this item waited.
				this.stopIfRefused(itemIndex, template);
				await this.pace(itemIndex, to, () => {
					this.stopIfRefused(itemIndex, template);
					options.beforeRequest?.();
				});
				startedAt = Date.now();
				answer = await request.call(this.context, this.connection, {
					endpoint: 'messages',
					method: 'POST',
					body: body as IDataObject,
					itemIndex,
					timeoutMs: this.settings.timeoutMs,
				});
			} catch (error) {
				const waitFor = startedAt > 0 ? this.waitOf(error, itemIndex, to, startedAt, firstTry, tries) : undefined;
				if (waitFor) continue;
				// Before the slot goes to the next item: without Continue On Fail, nothing after this item is sent.
				if (!this.context.continueOnFail() && !(error as { context?: { notAttempted?: boolean } }).context?.notAttempted) this.stopAt(itemIndex);
				if (startedAt > 0) this.remember(error, options.retryKey, template, itemIndex);
				throw asNodeError(this.node, error, itemIndex);
			} finally {
				release();
			}
			this.pacer.accepted(Date.now());
			this.accepted++;
			const output = outputOf(this.context, itemIndex, answer.body, to, options.markedMessageId);
			this.retries?.set<RetryEntry>('messages', options.retryKey, { accepted: true, output });
			return { ...output };
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
	 * The run is over and gave `output`: its retry record goes unless n8n runs it again, and when the network's answers
	 * made it wait, a hint on the node's output says how fast it could go.
	 */
	close(output: INodeExecutionData[]): void {
		this.retries?.close(output);
		const { throughputWaits, pairRateWaits, pace, lowestPace } = this.pacer.pacing;
		if (throughputWaits + pairRateWaits === 0) return;
		const seconds = (Date.now() - this.startedAt) / 1000;
		const rate = seconds > 0 ? Math.round(this.accepted / seconds) : this.accepted;
		const parts: string[] = [];
		if (throughputWaits) {
			parts.push(
				`The phone number's throughput limit answered ${throughputWaits} time${throughputWaits === 1 ? '' : 's'} (code 130429 or HTTP 429): those messages waited and went again. The run slowed to ${Math.round(lowestPace)} messages per second at its lowest and ended at ${Number.isFinite(pace) ? Math.round(pace) : 'no cap'}; it sent ${rate} per second on average. Set Sending > Messages per Second near that to send without the waits.`,
			);
		}
		if (pairRateWaits) {
			parts.push(
				`The network answered ${pairRateWaits} time${pairRateWaits === 1 ? '' : 's'} that a recipient was messaged too often (code 131056, about one message every 6 seconds): those messages waited and went again. Sending > Interval per Recipient spaces them from the start.`,
			);
		}
		const message = parts.join(' ');
		this.context.addExecutionHints({ message, location: 'outputPane' });
		this.context.logger.info(`Messaging Gateway: ${message}`, { node: this.node.name, executionId: this.context.getExecutionId() });
	}

	/** The run stops at a failed item (without Continue On Fail): the first one stops it. */
	private stopAt(itemIndex: number): void {
		this.stoppedAt ??= itemIndex;
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
		if (this.stoppedAt !== undefined && this.positionOf(itemIndex) > this.positionOf(this.stoppedAt)) {
			const error = new NodeOperationError(this.node, `Not sent (item ${itemIndex}): the run stopped at item ${this.stoppedAt}`, { itemIndex });
			error.context.notAttempted = true;
			throw error;
		}
		const refusal = this.breaker.stop(template);
		if (!refusal) return;
		throw new NodeOperationError(this.node, notSentText(itemIndex, refusal), {
			itemIndex,
			description: 'The same refusal would come for this message, so it was not sent. Fix the cause, then run again (with a Campaign, only what was not sent goes).',
		});
	}

	/**
	 * A refusal that is a wait (errors.ts, waitOf): the pace follows it, and true when the message goes again. After
	 * its Timeout has passed since the first try, the refusal is the item's error, saying what to change.
	 */
	private waitOf(error: unknown, itemIndex: number, to: string | undefined, startedAt: number, firstTry: number, tries: number): boolean {
		if (!(error instanceof NodeApiError) || this.cancelled) return false;
		const answerWait: Wait | undefined = waitOf(Number(error.httpCode), error.errorResponse, retryAfterHeaderOf(error));
		if (!answerWait) return false;
		const now = Date.now();
		// A Retry-After past the Timeout is not waited for (nor does it hold the run's other items).
		const tooLong = answerWait.kind === 'throughput' && answerWait.retryAfterMs !== undefined && now + answerWait.retryAfterMs - firstTry > this.settings.timeoutMs;
		if (!tooLong) {
			if (answerWait.kind === 'throughput') this.pacer.throughputRefused(now, startedAt, answerWait.retryAfterMs);
			else if (to !== undefined) this.pacer.pairRateRefused(now, to);
			if (now + this.pacer.waitFor(now, to) - firstTry <= this.settings.timeoutMs) return true;
		}
		const seconds = Math.round((now - firstTry) / 100) / 10;
		const what =
			answerWait.kind === 'throughput'
				? "the phone number's message throughput was reached"
				: 'the recipient was messaged too often (the network\'s pair rate)';
		const fix =
			answerWait.kind === 'throughput'
				? 'Lower Sending > Messages per Second to what the phone number allows (docs/sending.md says where to read it), or send when fewer messages leave from this number.'
				: 'Send to this recipient less often (Sending > Interval per Recipient), then run again.';
		error.message = `Not sent (item ${itemIndex}): ${what}; the gateway refused it ${tries} time${tries === 1 ? '' : 's'} in ${seconds} s, and the Timeout (${this.settings.timeoutMs / 1000} s) has passed`;
		error.description = `${fix} Nothing was sent for this item.`;
		return false;
	}

	/**
	 * A failed message request: a refusal that reaches further messages stops them (and says nothing of this message);
	 * any other refusal is this message's (`context.messageRequest`: a campaign records it); an unknown outcome is kept
	 * for Retry On Fail (and a campaign keeps its claim).
	 */
	private remember(error: unknown, retryKey: string, template: string | undefined, itemIndex: number): void {
		if (!(error instanceof NodeApiError)) return;
		const refusal = refusalOf(itemIndex, { httpCode: error.httpCode ?? undefined, code: networkCodeOf(error.errorResponse), template });
		if (refusal) this.breaker.trip(refusal);
		if (hasUnknownOutcome(error)) {
			error.context.messageRequest = 'unknown';
			this.retries?.set<RetryEntry>('messages', retryKey, { accepted: false, failure: uncertainFailureOf(error) });
		} else if (!refusal && !waitOf(Number(error.httpCode), error.errorResponse)) {
			error.context.messageRequest = 'refused';
		}
	}

	/**
	 * The run's one error when a failure stopped it: the first failure, with how many items were sent, how many failed
	 * and how many were not attempted (never started, or stopped before their request), and why it stopped.
	 */
	private stoppedError(
		stoppedBy: { index: number; error: unknown },
		outcomes: ReadonlyArray<{ ok: true } | { ok: false; error: unknown } | undefined>,
		sent: number,
		total: number,
	): NodeApiError | NodeOperationError {
		const nodeError = asNodeError(this.node, stoppedBy.error, stoppedBy.index);
		if (total <= 1) return nodeError;
		const notAttempted = (error: unknown) => (error as { context?: { notAttempted?: boolean } }).context?.notAttempted === true;
		const failed = outcomes.filter((outcome) => outcome && !outcome.ok && !notAttempted(outcome.error)).length;
		const notSent = total - sent;
		const refusal = this.breaker.blocking(undefined) ?? this.breaker.trippedBy(stoppedBy.index);
		const because = refusal ? ` because ${refusal.reason}` : '';
		const failedText = failed > 1 ? `${failed} failed and ${notSent - failed} were not attempted` : `${notSent} were not sent`;
		const told = `${sent} of ${total} items were sent before the run stopped at item ${stoppedBy.index}${because}; ${failedText} (items in progress finished, no further request was made). n8n's Retry On Fail does not send them again; a Retry of the execution from the executions list is a new run and sends every item again, unless the node has a Campaign (docs/campaigns.md).`;
		nodeError.description = nodeError.description ? `${nodeError.description} ${told}` : told;
		if (refusal) nodeError.message = `${nodeError.message} (${sent} of ${total} sent, ${notSent} not sent: ${refusal.reason})`;
		return nodeError;
	}
}

const holdsExpression = (value: unknown): boolean =>
	typeof value === 'string'
		? value.startsWith('=')
		: typeof value === 'object' && value !== null && Object.values(value).some(holdsExpression);

/** A 429's Retry-After, as transport.ts keeps it on the error. */
function retryAfterHeaderOf(error: NodeApiError): number | undefined {
	const seconds = error.context.retryAfterSeconds;
	return typeof seconds === 'number' ? seconds : undefined;
}

/** The output of an accepted send or mark-as-read; an answer without what it must carry is of unknown outcome. */
function outputOf(context: IExecuteFunctions, itemIndex: number, answer: IDataObject, to: string | undefined, markedMessageId: string | undefined): IDataObject {
	const sentId = firstOf(answer.messages, 'id');
	const confirmed = markedMessageId === undefined ? sentId !== undefined : answer.success === true || sentId !== undefined;
	if (!confirmed) {
		const missing = markedMessageId === undefined ? 'the id of the sent message (messages[].id)' : 'a confirmation (success: true)';
		throw markUnknownOutcome(
			apiError(context, { answer: JSON.stringify(answer).slice(0, 200) }, {
				message: `The gateway answered without ${missing}`,
				description: MAY_HAVE_BEEN_ACCEPTED,
				httpCode: '200',
				itemIndex,
			}),
		);
	}
	const output: IDataObject = { messageId: sentId ?? markedMessageId };
	const waId = firstOf(answer.contacts, 'wa_id');
	if (waId !== undefined) output.waId = waId;
	if (to !== undefined) output.to = to;
	// The network's id of the recipient, or the digits sent to: the digits-only form the trigger's status items carry
	// (nodes/gateway/recipient.ts), so that one expression joins a status to its message.
	const recipient = waId ?? to;
	if (recipient !== undefined) output.recipient = recipient;
	for (const [name, value] of Object.entries(answer)) if (!(name in output)) output[name] = value;
	return output;
}

function firstOf(list: unknown, key: string): string | undefined {
	if (!Array.isArray(list)) return undefined;
	const value: unknown = (list[0] as IDataObject | undefined)?.[key];
	return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}

/**
 * What the retry record knows an item's message by: its index and a hash of the message before any upload (a retry
 * uploads again and gets a new media id), so that a retry with the same input finds it; a message that changed
 * between tries (an expression with `$now`) is a new message.
 */
export function retryKeyOf(itemIndex: number, message: unknown): string {
	return `${itemIndex}:${createHash('sha256').update(JSON.stringify(message)).digest('base64')}`;
}
