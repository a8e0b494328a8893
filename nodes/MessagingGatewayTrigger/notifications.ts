/**
 * Notifications delivered to a registered webhook → flat items for the trigger. Pure: no n8n imports.
 *
 * The gateway sends Meta's `value` object alone (docs/gateway.md); Meta's full envelope
 * `{ object, entry: [{ changes: [{ field, value }] }] }` is accepted too and unwrapped. The kind of a `value` is told
 * by its keys: `messages` (incoming messages), `statuses` (sent / delivered / read / failed of outgoing messages),
 * `event` + `message_template_id` (template status update), `errors` (errors not tied to a message).
 */

import { explainNetworkCode } from '../gateway/networkErrors';
import { recipientDigits } from '../gateway/recipient';

type JsonObject = Record<string, unknown>;

/** One item per incoming message. Every key is always there (null when it does not apply): expressions stay stable. */
export interface MessageItem {
	event: 'message';
	messageId: string | null;
	from: string | null;
	contactName: string | null;
	timestamp: string | null;
	timestampUnix: number | null;
	type: string | null;
	text: string | null;
	replyId: string | null;
	mediaId: string | null;
	location: JsonObject | null;
	context: JsonObject | null;
	phoneNumberId: string | null;
	displayPhoneNumber: string | null;
	message: JsonObject;
	contact: JsonObject | null;
	metadata: JsonObject | null;
	[key: string]: unknown;
}

/** One item per status update of an outgoing message. */
export interface StatusItem {
	event: 'status';
	status: string | null;
	messageId: string | null;
	recipientId: string | null;
	/** The recipient's digits only: the same form as the send output's `recipient`, to join the two (docs/trigger.md). */
	recipient: string | null;
	timestamp: string | null;
	timestampUnix: number | null;
	errors: unknown[] | null;
	/** Code and most helpful text of the first error, for a failed message. */
	errorCode: number | string | null;
	errorMessage: string | null;
	/** For a failed status: what happened and what to do (nodes/gateway/networkErrors.ts); null otherwise. */
	reason: string | null;
	hint: string | null;
	/** `conversation.origin.type` (service, marketing, utility, authentication...), when the network sent one. */
	conversationCategory: string | null;
	/** `pricing.category` and `pricing.billable`, when the network sent them. */
	pricingCategory: string | null;
	billable: boolean | null;
	conversation: JsonObject | null;
	pricing: JsonObject | null;
	phoneNumberId: string | null;
	displayPhoneNumber: string | null;
	statusUpdate: JsonObject;
	metadata: JsonObject | null;
	[key: string]: unknown;
}

/** A template was approved, rejected, paused, disabled... */
export interface TemplateStatusItem {
	event: 'template_status';
	status: string;
	templateId: string;
	templateName: string | null;
	templateLanguage: string | null;
	reason: string | null;
	notification: JsonObject;
	[key: string]: unknown;
}

/** Errors the network reports outside of any message (`value.errors`). */
export interface ErrorItem {
	event: 'error';
	errors: unknown[];
	phoneNumberId: string | null;
	displayPhoneNumber: string | null;
	metadata: JsonObject | null;
	[key: string]: unknown;
}

/** A change of another subscription field (envelope form only, where the `field` names it). */
export interface OtherEventItem {
	event: string;
	field: string;
	value: unknown;
	[key: string]: unknown;
}

export type NotificationItem = MessageItem | StatusItem | TemplateStatusItem | ErrorItem | OtherEventItem;

export type ParsedNotification =
	| { isNotification: true; form: 'value' | 'envelope'; items: NotificationItem[] }
	| { isNotification: false; reason: string };

/** Status updates of outgoing messages on the network. */
export const MESSAGE_STATUSES = ['sent', 'delivered', 'read', 'failed'] as const;

/** Types of incoming messages on the network. */
export const INCOMING_MESSAGE_TYPES = [
	'text',
	'image',
	'audio',
	'video',
	'document',
	'sticker',
	'location',
	'contacts',
	'interactive',
	'button',
	'reaction',
	'order',
	'system',
	'unsupported',
] as const;

const MEDIA_MESSAGE_TYPES = ['image', 'audio', 'video', 'document', 'sticker'];

export interface NotificationFilters {
	/** Status updates are noise for most workflows: off unless asked for. */
	statusUpdates?: 'none' | 'all' | 'chosen';
	/** With `statusUpdates: 'chosen'`: the statuses to keep. */
	statuses?: readonly string[];
	/** Incoming message types to keep; empty or absent keeps every type. */
	messageTypes?: readonly string[];
}

const NOT_A_NOTIFICATION =
	'Not a notification: expected the gateway\'s notification object (with "messages", "statuses", or "event" and ' +
	'"message_template_id") or Meta\'s envelope ({ object, entry: [{ changes: [{ field, value }] }] })';

export function parseNotification(payload: unknown): ParsedNotification {
	if (!isObject(payload)) return { isNotification: false, reason: NOT_A_NOTIFICATION };

	if (isEnvelope(payload)) {
		const items: NotificationItem[] = [];
		let recognizedChanges = 0;
		for (const entry of payload.entry as unknown[]) {
			if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
			for (const change of entry.changes as unknown[]) {
				if (!isObject(change)) continue;
				const valueItems = itemsOfValue(change.value);
				if (valueItems) {
					items.push(...valueItems);
					recognizedChanges++;
				} else if (typeof change.field === 'string' && change.field !== '' && change.value !== undefined) {
					items.push({ event: change.field, field: change.field, value: change.value });
					recognizedChanges++;
				}
			}
		}
		if (recognizedChanges === 0) return { isNotification: false, reason: NOT_A_NOTIFICATION };
		return { isNotification: true, form: 'envelope', items };
	}

	const items = itemsOfValue(payload);
	if (!items) return { isNotification: false, reason: NOT_A_NOTIFICATION };
	return { isNotification: true, form: 'value', items };
}

/** Keeps what the user asked for: status updates only when enabled, incoming messages only of the chosen types. */
export function filterNotificationItems(items: NotificationItem[], filters: NotificationFilters): NotificationItem[] {
	const statusUpdates = filters.statusUpdates ?? 'none';
	const chosenStatuses = new Set(filters.statuses ?? []);
	const messageTypes = new Set(filters.messageTypes ?? []);
	return items.filter((item) => {
		if (item.event === 'status') {
			if (statusUpdates === 'all') return true;
			if (statusUpdates === 'chosen') return chosenStatuses.has(String(item.status));
			return false;
		}
		if (item.event === 'message') return messageTypes.size === 0 || messageTypes.has(String(item.type));
		return true;
	});
}

/**
 * Drops the items of the account's other phones: those whose `metadata.phone_number_id` names another phone. Items
 * that name no phone (template events, other fields) concern the whole account and are kept.
 */
export function itemsOfPhone(items: NotificationItem[], phoneId: string): NotificationItem[] {
	const wanted = phoneId.trim();
	return items.filter((item) => {
		const phone = item.phoneNumberId;
		return typeof phone !== 'string' || phone.trim() === wanted;
	});
}

/** `value` object → its items, or undefined when it is no notification value. */
function itemsOfValue(value: unknown): NotificationItem[] | undefined {
	if (!isObject(value)) return undefined;
	const hasMessages = Array.isArray(value.messages);
	const hasStatuses = Array.isArray(value.statuses);
	if (hasMessages || hasStatuses) {
		const items: NotificationItem[] = [];
		if (hasMessages) items.push(...(value.messages as unknown[]).filter(isObject).map((m) => messageItem(m, value)));
		if (hasStatuses) items.push(...(value.statuses as unknown[]).filter(isObject).map((s) => statusItem(s, value)));
		return items;
	}
	if (typeof value.event === 'string' && isId(value.message_template_id)) return [templateStatusItem(value)];
	if (Array.isArray(value.errors) && isObject(value.metadata)) {
		const metadata = value.metadata;
		return [
			{
				event: 'error',
				errors: value.errors,
				phoneNumberId: stringOrNull(metadata.phone_number_id),
				displayPhoneNumber: stringOrNull(metadata.display_phone_number),
				metadata,
			},
		];
	}
	return undefined;
}

function messageItem(message: JsonObject, value: JsonObject): MessageItem {
	const type = stringOrNull(message.type);
	const typed = type !== null && isObject(message[type]) ? (message[type] as JsonObject) : {};
	const metadata = isObject(value.metadata) ? value.metadata : null;
	const from = stringOrNull(message.from);
	const contact = findContact(value.contacts, from);
	const profile = contact && isObject(contact.profile) ? contact.profile : {};
	const { text, replyId } = textAndReplyId(type, typed);
	return {
		event: 'message',
		messageId: stringOrNull(message.id),
		from,
		contactName: stringOrNull(profile.name),
		...timestamps(message.timestamp),
		type,
		text,
		replyId,
		mediaId: type !== null && MEDIA_MESSAGE_TYPES.includes(type) ? stringOrNull(typed.id) : null,
		location: type === 'location' && isObject(message.location) ? message.location : null,
		context: isObject(message.context) ? message.context : null,
		phoneNumberId: stringOrNull(metadata?.phone_number_id),
		displayPhoneNumber: stringOrNull(metadata?.display_phone_number),
		message,
		contact,
		metadata,
	};
}

/** The words the user sent or chose, and the id of the chosen button or list row. */
function textAndReplyId(type: string | null, typed: JsonObject): { text: string | null; replyId: string | null } {
	switch (type) {
		case 'text':
			return { text: stringOrNull(typed.body), replyId: null };
		case 'interactive': {
			// button_reply or list_reply; other interactive replies (flows) carry neither
			const reply =
				typeof typed.type === 'string' && isObject(typed[typed.type]) ? (typed[typed.type] as JsonObject) : {};
			return { text: stringOrNull(reply.title), replyId: stringOrNull(reply.id) };
		}
		case 'button':
			// a quick-reply button of a template
			return { text: stringOrNull(typed.text), replyId: stringOrNull(typed.payload) };
		case 'image':
		case 'video':
		case 'document':
			return { text: stringOrNull(typed.caption), replyId: null };
		default:
			return { text: null, replyId: null };
	}
}

function statusItem(statusUpdate: JsonObject, value: JsonObject): StatusItem {
	const metadata = isObject(value.metadata) ? value.metadata : null;
	const errors = Array.isArray(statusUpdate.errors) ? (statusUpdate.errors as unknown[]) : null;
	const firstError = errors && isObject(errors[0]) ? errors[0] : null;
	const errorData = firstError && isObject(firstError.error_data) ? firstError.error_data : {};
	const status = stringOrNull(statusUpdate.status);
	const errorCode = firstError && isId(firstError.code) ? firstError.code : null;
	const errorMessage = firstError
		? stringOrNull(errorData.details) ?? stringOrNull(firstError.message) ?? stringOrNull(firstError.title)
		: null;
	const failure = status === 'failed' ? explainNetworkCode(errorCode, errorMessage ?? undefined) : null;
	const recipientId = stringOrNull(statusUpdate.recipient_id);
	const conversation = isObject(statusUpdate.conversation) ? statusUpdate.conversation : null;
	const origin = conversation && isObject(conversation.origin) ? conversation.origin : null;
	const pricing = isObject(statusUpdate.pricing) ? statusUpdate.pricing : null;
	return {
		event: 'status',
		status,
		messageId: stringOrNull(statusUpdate.id),
		recipientId,
		recipient: recipientDigits(recipientId),
		...timestamps(statusUpdate.timestamp),
		errors,
		errorCode,
		errorMessage,
		reason: failure?.reason ?? null,
		hint: failure?.hint ?? null,
		conversationCategory: stringOrNull(origin?.type),
		pricingCategory: stringOrNull(pricing?.category),
		billable: typeof pricing?.billable === 'boolean' ? pricing.billable : null,
		conversation,
		pricing,
		phoneNumberId: stringOrNull(metadata?.phone_number_id),
		displayPhoneNumber: stringOrNull(metadata?.display_phone_number),
		statusUpdate,
		metadata,
	};
}

function templateStatusItem(value: JsonObject): TemplateStatusItem {
	return {
		event: 'template_status',
		status: String(value.event),
		templateId: String(value.message_template_id),
		templateName: stringOrNull(value.message_template_name),
		templateLanguage: stringOrNull(value.message_template_language),
		reason: stringOrNull(value.reason),
		notification: value,
	};
}

function findContact(contacts: unknown, waId: string | null): JsonObject | null {
	if (!Array.isArray(contacts) || waId === null) return null;
	return (contacts as unknown[]).filter(isObject).find((contact) => String(contact.wa_id) === waId) ?? null;
}

/** The network sends Unix seconds as a string. */
function timestamps(raw: unknown): { timestamp: string | null; timestampUnix: number | null } {
	const seconds = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
	if (!Number.isFinite(seconds)) return { timestamp: null, timestampUnix: null };
	const date = new Date(seconds * 1000);
	if (Number.isNaN(date.getTime())) return { timestamp: null, timestampUnix: null };
	return { timestamp: date.toISOString(), timestampUnix: seconds };
}

function isEnvelope(payload: JsonObject): boolean {
	return Array.isArray(payload.entry) && (payload.object === undefined || typeof payload.object === 'string');
}

function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isId(value: unknown): value is string | number {
	return (typeof value === 'string' && value !== '') || (typeof value === 'number' && Number.isFinite(value));
}

/** Ids and numbers may come as numbers; flat fields are strings. */
function stringOrNull(value: unknown): string | null {
	if (typeof value === 'string') return value;
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	return null;
}
