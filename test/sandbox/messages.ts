/**
 * `POST /api/Messages` (spec sections 2.2, 2.3, 4.1): the body of every message type and of mark-as-read, checked
 * field by field, and the success answers. Limits the spec does not give follow the network's well-known ones
 * (NETWORK_LIMITS, docs/gateway.md).
 */
import { randomBytes } from 'node:crypto';

import { CHANNEL, MESSAGE_TYPES, NETWORK_LIMITS, type MessageType } from '../../nodes/gateway/spec';
import {
	array,
	describe,
	LOCALE_PATTERN,
	matching,
	object,
	oneOf,
	onlyKeys,
	optionalString,
	required,
	string,
	type JsonObject,
} from './check';
import { invalid } from './errors';

/** International digits format: country code and number, digits only (E.164 without the plus). */
const PHONE_PATTERN = /^\d{8,15}$/;
const MEDIA_ID_PATTERN = /^\d+$/;
const CONTACT_TYPES = ['HOME', 'WORK'] as const;

export type MessageRequest = { kind: 'send'; type: MessageType; to: string } | { kind: 'read'; messageId: string };

/** Validates a body of `POST /api/Messages`; throws a 400 naming the first offending field. */
export function validateMessage(body: unknown): MessageRequest {
	const message = object(body, 'body');
	if (message.status !== undefined) return validateMarkAsRead(message);

	required(message, '', ['messaging_product', 'recipient_type', 'to', 'type']);
	oneOf(message.messaging_product, 'messaging_product', [CHANNEL]);
	oneOf(message.recipient_type, 'recipient_type', ['individual']);
	const to = matching(message.to, 'to', PHONE_PATTERN, 'a phone number in international digits (8 to 15 digits, no +)');
	const type = oneOf(message.type, 'type', MESSAGE_TYPES);
	onlyKeys(message, '', ['messaging_product', 'recipient_type', 'to', 'type', ...MESSAGE_TYPES]);
	for (const other of MESSAGE_TYPES) {
		if (other !== type && message[other] !== undefined) {
			throw invalid(other, `must not be present when type is '${type}' (the object must be named after type)`);
		}
	}
	if (message[type] === undefined) throw invalid(type, `is required when type is '${type}'`);
	TYPE_VALIDATORS[type](message[type], type);
	return { kind: 'send', type, to };
}

function validateMarkAsRead(message: JsonObject): MessageRequest {
	onlyKeys(message, '', ['messaging_product', 'status', 'message_id']);
	required(message, '', ['messaging_product', 'status', 'message_id']);
	oneOf(message.messaging_product, 'messaging_product', [CHANNEL]);
	oneOf(message.status, 'status', ['read']);
	return { kind: 'read', messageId: string(message.message_id, 'message_id') };
}

const TYPE_VALIDATORS: Record<MessageType, (value: unknown, field: string) => void> = {
	text: validateText,
	template: validateTemplate,
	interactive: validateInteractive,
	contacts: validateContacts,
	location: validateLocation,
	image: validateCaptionedMedia,
	audio: validateMediaById,
	video: validateCaptionedMedia,
	sticker: validateMediaById,
	document: validateDocument,
	reaction: validateReaction,
};

function validateText(value: unknown, field: string): void {
	const text = object(value, field);
	onlyKeys(text, field, ['body']);
	string(text.body, `${field}.body`);
}

function validateTemplate(value: unknown, field: string): void {
	const template = object(value, field);
	onlyKeys(template, field, ['name', 'language', 'components']);
	string(template.name, `${field}.name`);
	const language = object(template.language, `${field}.language`);
	onlyKeys(language, `${field}.language`, ['policy', 'code']);
	oneOf(language.policy, `${field}.language.policy`, ['deterministic']);
	matching(language.code, `${field}.language.code`, LOCALE_PATTERN, 'a locale code of the form xx_XX');
	if (template.components === undefined) return;
	array(template.components, `${field}.components`).forEach((item, i) => {
		const path = `${field}.components[${i}]`;
		const component = object(item, path);
		const type = oneOf(component.type, `${path}.type`, ['body', 'button']);
		if (type === 'button') {
			onlyKeys(component, path, ['type', 'sub_type', 'index', 'parameters']);
			oneOf(component.sub_type, `${path}.sub_type`, ['url']);
			matching(component.index, `${path}.index`, /^\d+$/, 'the button position as numeric text');
		} else {
			onlyKeys(component, path, ['type', 'parameters']);
		}
		array(component.parameters, `${path}.parameters`, { min: 1 }).forEach((p, j) => {
			const parameter = object(p, `${path}.parameters[${j}]`);
			onlyKeys(parameter, `${path}.parameters[${j}]`, ['type', 'text']);
			oneOf(parameter.type, `${path}.parameters[${j}].type`, ['text']);
			string(parameter.text, `${path}.parameters[${j}].text`);
		});
	});
}

function validateInteractive(value: unknown, field: string): void {
	const interactive = object(value, field);
	const kind = oneOf(interactive.type, `${field}.type`, ['button', 'list']);
	if (kind === 'button') validateReplyButtons(interactive, field);
	else validateList(interactive, field);
}

function validateReplyButtons(interactive: JsonObject, field: string): void {
	onlyKeys(interactive, field, ['type', 'body', 'footer', 'action']);
	validateTextObject(interactive.body, `${field}.body`);
	if (interactive.footer !== undefined && interactive.footer !== null) {
		validateTextObject(interactive.footer, `${field}.footer`);
	}
	const action = object(interactive.action, `${field}.action`);
	onlyKeys(action, `${field}.action`, ['buttons']);
	const buttons = array(action.buttons, `${field}.action.buttons`, { min: 1, max: NETWORK_LIMITS.maxReplyButtons });
	const ids = new Set<string>();
	buttons.forEach((item, i) => {
		const path = `${field}.action.buttons[${i}]`;
		const button = object(item, path);
		onlyKeys(button, path, ['type', 'reply']);
		oneOf(button.type, `${path}.type`, ['reply']);
		const reply = object(button.reply, `${path}.reply`);
		onlyKeys(reply, `${path}.reply`, ['id', 'title']);
		const id = string(reply.id, `${path}.reply.id`);
		string(reply.title, `${path}.reply.title`, { maxLength: NETWORK_LIMITS.maxReplyButtonTitleLength });
		if (ids.has(id)) throw invalid(`${path}.reply.id`, `must be unique, '${id}' is used twice`);
		ids.add(id);
	});
}

function validateList(interactive: JsonObject, field: string): void {
	onlyKeys(interactive, field, ['type', 'header', 'body', 'footer', 'action']);
	if (interactive.header !== undefined) {
		const header = object(interactive.header, `${field}.header`);
		onlyKeys(header, `${field}.header`, ['type', 'text']);
		oneOf(header.type, `${field}.header.type`, ['text']);
		string(header.text, `${field}.header.text`);
	}
	validateTextObject(interactive.body, `${field}.body`);
	if (interactive.footer !== undefined) validateTextObject(interactive.footer, `${field}.footer`);
	const action = object(interactive.action, `${field}.action`);
	onlyKeys(action, `${field}.action`, ['button', 'sections']);
	string(action.button, `${field}.action.button`);
	const sections = array(action.sections, `${field}.action.sections`, { min: 1 });
	const rowIds = new Set<string>();
	let rowCount = 0;
	sections.forEach((item, i) => {
		const path = `${field}.action.sections[${i}]`;
		const section = object(item, path);
		onlyKeys(section, path, ['title', 'rows']);
		// The network needs a title on each section only when there are several.
		if (sections.length > 1 || section.title !== undefined) string(section.title, `${path}.title`);
		array(section.rows, `${path}.rows`, { min: 1 }).forEach((r, j) => {
			const rowPath = `${path}.rows[${j}]`;
			const row = object(r, rowPath);
			onlyKeys(row, rowPath, ['id', 'title', 'description']);
			const id = string(row.id, `${rowPath}.id`);
			string(row.title, `${rowPath}.title`);
			optionalString(row.description, `${rowPath}.description`, { allowEmpty: true });
			if (rowIds.has(id)) throw invalid(`${rowPath}.id`, `must be unique, '${id}' is used twice`);
			rowIds.add(id);
			rowCount++;
		});
	});
	if (rowCount > NETWORK_LIMITS.maxListRows) {
		throw invalid(`${field}.action.sections`, `must have at most ${NETWORK_LIMITS.maxListRows} rows in all, got ${rowCount}`);
	}
}

function validateTextObject(value: unknown, field: string): void {
	const holder = object(value, field);
	onlyKeys(holder, field, ['text']);
	string(holder.text, `${field}.text`);
}

function validateContacts(value: unknown, field: string): void {
	array(value, field, { min: 1 }).forEach((item, i) => {
		const path = `${field}[${i}]`;
		const card = object(item, path);
		onlyKeys(card, path, ['addresses', 'birthday', 'emails', 'name', 'org', 'phones', 'urls']);
		const name = object(card.name, `${path}.name`);
		stringFields(name, `${path}.name`, ['formatted_name', 'first_name', 'last_name', 'middle_name', 'suffix', 'prefix']);
		string(name.formatted_name, `${path}.name.formatted_name`);
		if (card.birthday !== undefined) {
			matching(card.birthday, `${path}.birthday`, /^\d{4}-(0[1-9]|1[0-2])-(0[1-9]|[12]\d|3[01])$/, 'a date YYYY-MM-DD');
		}
		if (card.org !== undefined) stringFields(object(card.org, `${path}.org`), `${path}.org`, ['company', 'department', 'title']);
		typedList(card.addresses, `${path}.addresses`, ['street', 'city', 'state', 'zip', 'country', 'country_code', 'type']);
		typedList(card.emails, `${path}.emails`, ['email', 'type']);
		typedList(card.phones, `${path}.phones`, ['phone', 'type', 'wa_id']);
		typedList(card.urls, `${path}.urls`, ['url', 'type']);
	});
}

/** An optional object whose listed keys are all optional strings. */
function stringFields(holder: JsonObject, field: string, keys: readonly string[]): void {
	onlyKeys(holder, field, keys);
	for (const key of keys) optionalString(holder[key], `${field}.${key}`, { allowEmpty: true });
}

/** The contact card arrays: entries of string fields with an optional `type` of HOME or WORK. */
function typedList(value: unknown, field: string, keys: readonly string[]): void {
	if (value === undefined) return;
	array(value, field).forEach((item, i) => {
		const entry = object(item, `${field}[${i}]`);
		stringFields(entry, `${field}[${i}]`, keys);
		if (entry.type !== undefined) oneOf(entry.type, `${field}[${i}].type`, CONTACT_TYPES);
	});
}

function validateLocation(value: unknown, field: string): void {
	const location = object(value, field);
	onlyKeys(location, field, ['longitude', 'latitude', 'name', 'address']);
	coordinate(location.latitude, `${field}.latitude`, 90);
	coordinate(location.longitude, `${field}.longitude`, 180);
	optionalString(location.name, `${field}.name`, { allowEmpty: true });
	optionalString(location.address, `${field}.address`, { allowEmpty: true });
}

/** Coordinates are strings in the spec (section 2.2): a decimal number in text, within range. */
function coordinate(value: unknown, field: string, limit: number): void {
	if (typeof value !== 'string') throw invalid(field, `must be a string holding a decimal number, got ${describe(value)}`);
	if (!/^-?\d+(\.\d+)?$/.test(value.trim())) throw invalid(field, `must be a decimal number, got ${JSON.stringify(value)}`);
	if (Math.abs(Number(value)) > limit) throw invalid(field, `must be between -${limit} and ${limit}, got ${value}`);
}

function validateMediaById(value: unknown, field: string): void {
	const media = object(value, field);
	onlyKeys(media, field, ['id']);
	matching(media.id, `${field}.id`, MEDIA_ID_PATTERN, 'a media id from the media upload (digits)');
}

/** Image and video: the media id and an optional caption (docs/gateway.md: the network takes it; spec.ts CAPTIONED_MEDIA_KINDS). */
function validateCaptionedMedia(value: unknown, field: string): void {
	const media = object(value, field);
	onlyKeys(media, field, ['id', 'caption']);
	matching(media.id, `${field}.id`, MEDIA_ID_PATTERN, 'a media id from the media upload (digits)');
	optionalString(media.caption, `${field}.caption`, { allowEmpty: true });
}

function validateDocument(value: unknown, field: string): void {
	const document = object(value, field);
	onlyKeys(document, field, ['id', 'caption', 'filename']);
	matching(document.id, `${field}.id`, MEDIA_ID_PATTERN, 'a media id from the media upload (digits)');
	optionalString(document.caption, `${field}.caption`, { allowEmpty: true });
	optionalString(document.filename, `${field}.filename`);
}

function validateReaction(value: unknown, field: string): void {
	const reaction = object(value, field);
	onlyKeys(reaction, field, ['message_id', 'emoji']);
	string(reaction.message_id, `${field}.message_id`);
	// An empty emoji removes the reaction.
	string(reaction.emoji, `${field}.emoji`, { allowEmpty: true });
}

let messageCounter = 0;

/** A unique opaque message id in the network's `wamid.` form. */
export function newMessageId(): string {
	messageCounter++;
	return `wamid.SBX${Date.now().toString(36).toUpperCase()}${messageCounter.toString(36).toUpperCase()}${randomBytes(6).toString('hex').toUpperCase()}`;
}

/** Spec 2.3 for sends; `{ success: true }` for mark-as-read (docs/gateway.md). */
export function messageResponse(request: MessageRequest): unknown {
	if (request.kind === 'read') return { success: true };
	return {
		messaging_product: CHANNEL,
		contacts: [{ input: request.to, wa_id: request.to }],
		messages: [{ id: newMessageId() }],
	};
}
