/**
 * What every message type shares: the input error the builders throw, the body envelope of spec 2.2, the
 * recipient number cleaning, and small readers that turn editor or expression values into checked strings.
 * Pure: `import type` only from n8n-workflow, so the builders are tested without n8n.
 */
import type { IDisplayOptions, INodeProperties } from 'n8n-workflow';

import { checkPhone, phoneProblemText, readDefaultCountry, type CountryCode } from '../../../../gateway/phone';
import { CHANNEL, type MessageType } from '../../../../gateway/spec';

/**
 * Bad input of one field. `field` is the label the user sees in the editor (with the entry for nested values, such
 * as 'Reply Buttons › button 2 › Title'); `reason` says what is wrong and what to enter instead. The operation turns
 * it into a NodeOperationError with the item index.
 */
export class MessageInputError extends Error {
	constructor(
		readonly field: string,
		readonly reason: string,
		/** What to do, when it is not correcting the field of the item (the credential's field). */
		readonly description?: string,
	) {
		super(`${field}: ${reason}`);
		this.name = 'MessageInputError';
	}
}

/** The type-specific part of a message: `type` and the object named after it (spec 2.2). */
export type MessagePayload<T extends MessageType = MessageType, O = unknown> = T extends MessageType
	? { type: T } & { [K in T]: O }
	: never;

/** A complete message body of spec 2.2. */
export type MessageBody = {
	messaging_product: typeof CHANNEL;
	recipient_type: 'individual';
	to: string;
	type: MessageType;
	[typeObject: string]: unknown;
};

/** The common fields of spec 2.2 around a type-specific payload. `to` must already be clean (see `cleanRecipient`). */
export function messageBody(to: string, payload: MessagePayload): MessageBody {
	return { messaging_product: CHANNEL, recipient_type: 'individual', to, ...payload };
}

/** Values of the "Message Type" selector, one per editor choice (interactive and media have several). */
export type MessageTypeChoice =
	| 'text'
	| 'template'
	| 'interactiveButtons'
	| 'interactiveList'
	| 'contacts'
	| 'location'
	| 'image'
	| 'audio'
	| 'video'
	| 'document'
	| 'sticker'
	| 'reaction';

/** displayOptions of a type's fields: resource Message, operation Send, the given Message Type choices. */
export function showForMessageTypes(choices: MessageTypeChoice[], extra: IDisplayOptions['show'] = {}): IDisplayOptions {
	return { show: { resource: ['message'], operation: ['send'], messageType: choices, ...extra } };
}

/** The recipient of Send and of Send and Wait for Response. */
export const recipientField: INodeProperties = {
	displayName: 'Recipient Phone Number',
	name: 'recipientPhoneNumber',
	type: 'string',
	default: '',
	required: true,
	placeholder: 'e.g. +55 11 98888-7777',
	description:
		'Phone number of the recipient with its country code, or a national number when a Default Country is set. Spaces, dashes and brackets are fine.',
	displayOptions: { show: { resource: ['message'], operation: ['send', 'sendAndWait'] } },
};

/** Overrides the credential's Default Country for the recipients of this node. */
export const defaultCountryField: INodeProperties = {
	displayName: 'Default Country',
	name: 'defaultCountry',
	type: 'string',
	default: '',
	placeholder: 'e.g. BR',
	description:
		"Two-letter country code (ISO 3166) of recipient numbers written without their country code, such as (11) 98888-7777 in BR. Empty: the credential's Default Country.",
	displayOptions: { show: { resource: ['message'], operation: ['send', 'sendAndWait'] } },
};

/**
 * The recipient in international digits (E.164 without `+`), from what people type: `+55 (11) 98888-7777`,
 * `0055 11 98888 7777`, `5511988887777`, or `(11) 98888-7777` with the Default Country BR. A number that is not
 * valid for its country's plan, or is invented, is refused with the reason (see gateway/phone.ts).
 */
export function cleanRecipient(
	input: unknown,
	options: { defaultCountry?: CountryCode; field?: string } = {},
): string {
	const result = checkPhone(input, { defaultCountry: options.defaultCountry });
	if ('problem' in result) {
		throw new MessageInputError(options.field ?? recipientField.displayName, phoneProblemText(input, result.problem));
	}
	return result.digits;
}

/**
 * The item's recipient in international digits: a national number is read in the node's Default Country when it has
 * one, else in the credential's; a bad Default Country is the item's error, saying where to correct it.
 */
export function readRecipient(input: unknown, nodeCountry: unknown, credentialCountry: string): string {
	const fromNode = nodeCountry !== '' && nodeCountry !== undefined;
	const country = readDefaultCountry(fromNode ? nodeCountry : credentialCountry);
	if ('problem' in country) {
		throw fromNode
			? new MessageInputError(defaultCountryField.displayName, country.problem)
			: new MessageInputError('Default Country of the Messaging Gateway credential', country.problem, 'Open the credential and correct Default Country, or leave it empty. Nothing was sent.');
	}
	return cleanRecipient(input, { defaultCountry: country.country });
}

/**
 * A parameter value as text. Numbers and booleans become their text (expressions often give numbers for ids and
 * zip codes); null and undefined become ''. Objects are refused: they would reach the gateway as "[object Object]".
 */
export function readString(value: unknown, field: string): string {
	const result = textOf(value);
	if ('problem' in result) throw new MessageInputError(field, result.problem);
	return result.text;
}

/** A text value that must not be empty after trimming; returned trimmed. */
export function requiredText(value: unknown, field: string, hint = ''): string {
	const text = readString(value, field).trim();
	if (text === '') throw new MessageInputError(field, `is required${hint ? `; ${hint}` : ''}`);
	return text;
}

/** A text value that may be empty; returned trimmed. */
export function optionalText(value: unknown, field: string): string {
	return readString(value, field).trim();
}

/** Length in characters as people count them (code points, so an emoji counts once, not as two UTF-16 units). */
export function characterCount(text: string): number {
	return Array.from(text).length;
}

/**
 * The entries of a multiple-values fixedCollection: the editor stores `{ <option>: [ {...}, ... ] }`; an expression
 * may give the list itself. Anything else is refused with the field's name.
 */
export function collectionEntries(value: unknown, option: string, field: string): Array<Record<string, unknown>> {
	if (value === undefined || value === null || value === '') return [];
	const list = Array.isArray(value) ? value : isPlainObject(value) ? (value[option] ?? []) : undefined;
	if (!Array.isArray(list) || !list.every(isPlainObject)) {
		throw new MessageInputError(field, `must be a list of entries, got ${JSON.stringify(value)}`);
	}
	return list;
}

export function isPlainObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The text of a value: strings as they are, numbers and booleans as their text, null and undefined as ''. An
 * expression may give an object or a list where text belongs; `String()` would send it as "[object Object]", so such
 * values are refused by the one reader every operation uses.
 */
export function textOf(value: unknown): { text: string } | { problem: string } {
	if (value === undefined || value === null) return { text: '' };
	if (typeof value === 'string') return { text: value };
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return { text: String(value) };
	const kind = Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value;
	return {
		problem: `must be text, got ${kind}${excerptOf(value)}; make the expression give text (for a field of an object, name the field)`,
	};
}

function excerptOf(value: unknown): string {
	let json: string | undefined;
	try {
		json = JSON.stringify(value);
	} catch {
		return '';
	}
	if (json === undefined) return '';
	return ` (${json.length > 40 ? `${json.slice(0, 39)}…` : json})`;
}

/**
 * The output of an accepted send or mark-as-read (`markedMessageId`: the message marked, which the answer does not
 * carry); undefined when the answer lacks what the spec's response carries (`messages[].id` for a send,
 * `success: true` for a mark-as-read): its outcome is unknown. The ids users map come first: `messageId`, `waId` (the
 * recipient's network id), `to`, and `recipient`: the network's id, or the digits sent to, the digits-only form the
 * trigger's status items carry (gateway/recipient.ts), so that one expression joins a status to its message.
 */
export function sentOutput(answer: Record<string, unknown>, to: string | undefined, markedMessageId: string | undefined): Record<string, unknown> | undefined {
	const sentId = firstOf(answer.messages, 'id');
	const confirmed = markedMessageId === undefined ? sentId !== undefined : answer.success === true || sentId !== undefined;
	if (!confirmed) return undefined;
	const output: Record<string, unknown> = { messageId: sentId ?? markedMessageId };
	const waId = firstOf(answer.contacts, 'wa_id');
	if (waId !== undefined) output.waId = waId;
	if (to !== undefined) output.to = to;
	const recipient = waId ?? to;
	if (recipient !== undefined) output.recipient = recipient;
	for (const [name, value] of Object.entries(answer)) if (!(name in output)) output[name] = value;
	return output;
}

function firstOf(list: unknown, key: string): string | undefined {
	if (!Array.isArray(list)) return undefined;
	const value: unknown = (list[0] as Record<string, unknown> | undefined)?.[key];
	return typeof value === 'string' || typeof value === 'number' ? String(value) : undefined;
}
