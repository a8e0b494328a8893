/**
 * What the message operations share between reading parameters and answering: reading a type's parameters, turning
 * a builder's MessageInputError into a NodeOperationError that names the item and the field, and sending a body to
 * `POST /api/Messages` with the ids of the answer lifted to the top of the output.
 */
import type { IDataObject, IExecuteFunctions, INode, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { readDefaultCountry, type CountryCode } from '../../../gateway/phone';
import { gatewayRequest, getGatewaySettings } from '../../../gateway/transport';
import { inputError, readTextParameter } from '../parameters';
import { cleanRecipient, defaultCountryField, MessageInputError, recipientField } from './types/common';

/** The current values of the given top-level fields, each defaulting to the field's default when it is hidden. */
export function readParameters(this: IExecuteFunctions, itemIndex: number, fields: INodeProperties[]): IDataObject {
	const values: IDataObject = {};
	for (const field of fields) values[field.name] = this.getNodeParameter(field.name, itemIndex, field.default);
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
		if (!(error instanceof MessageInputError)) throw error;
		throw new NodeOperationError(node, `${error.field} (item ${itemIndex}): ${error.reason}`, {
			itemIndex,
			description: `Correct "${error.field}" of item ${itemIndex}. Nothing was sent for this item.`,
		});
	}
}

/**
 * The recipient of an item in international digits. National numbers are read in the node's Default Country, or
 * else the credential's; a bad country code is refused naming where it was set.
 */
export async function readRecipient(this: IExecuteFunctions, itemIndex: number): Promise<string> {
	const recipient = this.getNodeParameter(recipientField.name, itemIndex, '');
	const country = await defaultCountryOf.call(this, itemIndex);
	return checkInput(this.getNode(), itemIndex, () => cleanRecipient(recipient, { defaultCountry: country }));
}

async function defaultCountryOf(this: IExecuteFunctions, itemIndex: number): Promise<CountryCode | undefined> {
	const field = defaultCountryField.displayName;
	const own = readTextParameter.call(this, defaultCountryField.name, itemIndex, field);
	if (own !== '') {
		const read = readDefaultCountry(own);
		if ('problem' in read) throw inputError.call(this, itemIndex, field, read.problem);
		return read.country;
	}
	const read = readDefaultCountry((await getGatewaySettings.call(this)).defaultCountry);
	if ('problem' in read) {
		throw new NodeOperationError(this.getNode(), `Default Country of the Messaging Gateway credential: ${read.problem}`, {
			itemIndex,
			description: 'Open the credential and correct Default Country, or leave it empty. Nothing was sent.',
		});
	}
	return read.country;
}

/**
 * Sends a message or mark-as-read body and returns the gateway's answer with `messageId` (the id of the sent
 * message, or `fallbackMessageId` when the answer has none) and `waId` (the recipient's network id) on top.
 */
export async function postMessage(
	this: IExecuteFunctions,
	itemIndex: number,
	body: object,
	fallbackMessageId?: string,
): Promise<IDataObject> {
	const response = await gatewayRequest.call(this, {
		endpoint: 'messages',
		method: 'POST',
		body: body as IDataObject,
		itemIndex,
	});
	const answer = response.body;
	const output: IDataObject = { ...answer };
	const messageId = firstOf(answer.messages, 'id') ?? fallbackMessageId;
	const waId = firstOf(answer.contacts, 'wa_id');
	if (messageId !== undefined) output.messageId = messageId;
	if (waId !== undefined) output.waId = waId;
	return output;
}

function firstOf(list: unknown, key: string): string | undefined {
	if (!Array.isArray(list)) return undefined;
	const value: unknown = (list[0] as IDataObject | undefined)?.[key];
	return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
