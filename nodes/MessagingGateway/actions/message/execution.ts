/**
 * What the message operations share between reading parameters and answering: reading a type's parameters, turning
 * a builder's MessageInputError into a NodeOperationError that names the item and the field, and sending a body to
 * `POST /api/Messages` (paced, retry-safe) with the ids of the answer first in the output.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { markUnknownOutcome, MAY_HAVE_BEEN_ACCEPTED } from '../../../gateway/errors';
import { readDefaultCountry, type CountryCode } from '../../../gateway/phone';
import { recipientDigits } from '../../../gateway/recipient';
import { apiError, gatewayRequest } from '../../../gateway/transport';
import { notSentText, refusalOf, templateOf } from '../campaigns/breaker';
import { asNodeError } from '../nodeErrors';
import { inputError, nodeOf, readParameter, readTextParameter } from '../parameters';
import type { RecipientTurn } from '../recipientTurns';
import { RetrySafeRequests } from '../retrySafe';
import type { SendRun } from '../run';
import { sentKey } from '../sentRecord';
import { cleanRecipient, defaultCountryField, MessageInputError, recipientField } from './types/common';

/** The current values of the given top-level fields, each defaulting to the field's default when it is hidden. */
export function readParameters(this: IExecuteFunctions, itemIndex: number, fields: INodeProperties[]): IDataObject {
	const values: IDataObject = {};
	for (const field of fields) values[field.name] = readParameter.call(this, field.name, itemIndex, field.default) as IDataObject[string];
	return values;
}

/**
 * Runs pure reading and checking code; a MessageInputError becomes a NodeOperationError naming the item and the
 * field. Call it for everything an item needs before its first request, so that bad input sends nothing.
 */
export function checkInput<T>(node: INode, itemIndex: number, read: () => T): T {
	try {
		return read();
	} catch (error) {
		if (!(error instanceof MessageInputError)) throw asNodeError(node, error, itemIndex);
		throw new NodeOperationError(node, `${error.field} (item ${itemIndex}): ${error.reason}`, {
			itemIndex,
			description: `Correct "${error.field}" of item ${itemIndex}. Nothing was sent for this item.`,
		});
	}
}

/**
 * The recipient of an item in international digits. National numbers are read in the node's Default Country, or
 * else the credential's (read once per run); a bad country code is refused naming where it was set. No await: the
 * router claims the recipient's turn with it as the item starts.
 */
export function readRecipient(this: IExecuteFunctions, itemIndex: number, run: SendRun): string {
	const recipient = readParameter.call(this, recipientField.name, itemIndex, '');
	const country = defaultCountryOf.call(this, itemIndex, run);
	return checkInput(nodeOf.call(this), itemIndex, () => cleanRecipient(recipient, { defaultCountry: country }));
}

function defaultCountryOf(this: IExecuteFunctions, itemIndex: number, run: SendRun): CountryCode | undefined {
	const field = defaultCountryField.displayName;
	const own = readTextParameter.call(this, defaultCountryField.name, itemIndex, field);
	if (own !== '') {
		const read = readDefaultCountry(own);
		if ('problem' in read) throw inputError.call(this, itemIndex, field, read.problem);
		return read.country;
	}
	const read = run.credentialCountry;
	if ('problem' in read) {
		throw inputError.call(
			this,
			itemIndex,
			'Default Country of the Messaging Gateway credential',
			read.problem,
			'Open the credential and correct Default Country, or leave it empty. Nothing was sent.',
		);
	}
	return read.country;
}

/** Sends and mark-as-reads of this process's node runs (see sentRecord.ts for what it covers and how it is bounded). */
const sentRecord = new RetrySafeRequests<IDataObject>();

/**
 * Sends a message or mark-as-read body: the steps of one item after its body is built. The output puts the ids
 * users map first: `messageId` (the sent message's id, or for mark-as-read the message marked), `waId` (the
 * recipient's network id) and `to`, then the gateway's answer.
 *
 * 1. An item sent (or of unknown outcome) in an earlier try of this run (n8n's Retry On Fail) gets that output or
 *    error again, without a request.
 * 2. It waits for its recipient's turn (every earlier item to the same recipient done); without Continue On Fail,
 *    a later message is not sent after an earlier one to the same recipient failed.
 * 3. It waits for the pacer, and is sent with the run's deadline and cancel signal.
 * 4. Its outcome is remembered for the retries of this run. An answer without what the spec's response carries
 *    (`messages[].id` for a send, `success: true` for a mark-as-read) is an error of unknown outcome.
 */
export async function postMessage(
	this: IExecuteFunctions,
	run: SendRun,
	itemIndex: number,
	body: object,
	fallbackMessageId?: string,
	turn?: RecipientTurn,
): Promise<IDataObject> {
	const key = sentKey(itemIndex, body);
	const earlier = sentRecord.earlier(this, run.recordScope, key, itemIndex);
	if (earlier) return earlier;
	if (turn && (await run.until(turn.ready, itemIndex)) && !this.continueOnFail()) {
		throw new NodeOperationError(nodeOf.call(this), `Not sent (item ${itemIndex}): an earlier message to the same recipient failed`, {
			itemIndex,
			description: 'Messages to one recipient are sent in item order, and the run stops at its first failure.',
		});
	}

	const to = (body as { to?: unknown }).to;
	const template = templateOf(body);
	const pacing = run.pacing(typeof to === 'string' ? to : undefined, itemIndex);
	return await sentRecord.send(this, run.recordScope, key, itemIndex, async () => {
		let response;
		try {
			response = await gatewayRequest.call(this, {
				endpoint: 'messages',
				method: 'POST',
				body: body as IDataObject,
				itemIndex,
				connection: run.connection,
				timeoutMs: run.timeoutMs,
				pacing: {
					// Checked after the pacer's wait too: a refusal may have come while this item waited for its slot.
					beforeAttempt: async () => {
						stopIfRefused(this, run, itemIndex, template);
						await pacing.beforeAttempt();
						stopIfRefused(this, run, itemIndex, template);
					},
					pause: (waitMs) => pacing.pause(waitMs),
				},
			});
		} catch (error) {
			const refusal = error instanceof NodeApiError ? refusalOf(itemIndex, { httpCode: error.httpCode ?? undefined, code: networkCodeOf(error), template }) : undefined;
			if (refusal) run.breaker.trip(refusal);
			throw asNodeError(nodeOf.call(this), error, itemIndex);
		}
		return outputOf(this, itemIndex, response.body, to, fallbackMessageId);
	});
}

/**
 * An item is not sent once a refusal that reaches it came (the API key, the account, or its template refused), or a
 * check of the run stops it (run.beforeSend).
 */
function stopIfRefused(context: IExecuteFunctions, run: SendRun, itemIndex: number, template: string | undefined): void {
	for (const check of run.beforeSend) check(itemIndex);
	const refusal = run.breaker.stop(template);
	if (!refusal) return;
	throw new NodeOperationError(nodeOf.call(context), notSentText(itemIndex, refusal), {
		itemIndex,
		description: 'The same refusal would come for this message, so it was not sent. Fix the cause, then run again (with a Campaign, only what was not sent goes).',
	});
}

/** The network's error code in a gateway error answer (Meta's `error.code`), when it has one. */
function networkCodeOf(error: NodeApiError): unknown {
	const answer = error.errorResponse as { error?: { code?: unknown } } | undefined;
	return answer?.error?.code;
}

function outputOf(
	context: IExecuteFunctions,
	itemIndex: number,
	answer: IDataObject,
	to: unknown,
	fallbackMessageId: string | undefined,
): IDataObject {
	const sentId = firstOf(answer.messages, 'id');
	const confirmed = fallbackMessageId === undefined ? sentId !== undefined : answer.success === true || sentId !== undefined;
	if (!confirmed) {
		const missing = fallbackMessageId === undefined ? 'the id of the sent message (messages[].id)' : 'a confirmation (success: true)';
		throw markUnknownOutcome(
			apiError(context, { answer: JSON.stringify(answer).slice(0, 200) }, {
				message: `The gateway answered without ${missing}`,
				description: MAY_HAVE_BEEN_ACCEPTED,
				httpCode: '200',
				itemIndex,
			}),
		);
	}
	const output: IDataObject = { messageId: sentId ?? fallbackMessageId };
	const waId = firstOf(answer.contacts, 'wa_id');
	if (waId !== undefined) output.waId = waId;
	if (typeof to === 'string') output.to = to;
	// The status items of the trigger carry the same digits-only form (nodes/gateway/recipient.ts): one join expression.
	const recipient = recipientDigits(waId ?? to);
	if (recipient !== null) output.recipient = recipient;
	for (const [name, value] of Object.entries(answer)) if (!(name in output)) output[name] = value;
	return output;
}

function firstOf(list: unknown, key: string): string | undefined {
	if (!Array.isArray(list)) return undefined;
	const value: unknown = (list[0] as IDataObject | undefined)?.[key];
	return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
