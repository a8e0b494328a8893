/**
 * Contacts message (spec 2.2, type `contacts`): one or more contact cards with every field of the spec (addresses,
 * birthday, emails, name with all its parts, org, phones with an optional wa_id, urls; HOME/WORK types).
 * Cards come from the editor's fields or as JSON in the spec's own shape; both go through the same checks, which
 * drop empty values, turn numbers into text (all values are strings) and refuse keys the spec does not have.
 */
import type { INodeProperties } from 'n8n-workflow';

import {
	collectionEntries,
	isPlainObject,
	MessageInputError,
	type MessagePayload,
	readString,
	showForMessageTypes,
} from './common';

export const CONTACT_VALUE_TYPES = ['HOME', 'WORK'] as const;
export type ContactValueType = (typeof CONTACT_VALUE_TYPES)[number];

const typeField: INodeProperties = {
	displayName: 'Type',
	name: 'type',
	type: 'options',
	options: [
		{ name: 'Home', value: 'HOME' },
		{ name: 'Work', value: 'WORK' },
	],
	default: 'HOME',
};

function textField(displayName: string, name: string, extra: Partial<INodeProperties> = {}): INodeProperties {
	return { displayName, name, type: 'string', default: '', ...extra };
}

export const fields: INodeProperties[] = [
	{
		displayName: 'Define Contacts',
		name: 'contactsInputMode',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Using Fields Below', value: 'fields', description: 'Fill in each contact card in the editor' },
			{ name: 'Using JSON', value: 'json', description: 'Give the cards as JSON in the shape of the gateway' },
		],
		default: 'fields',
		displayOptions: showForMessageTypes(['contacts']),
	},
	{
		displayName: 'Contacts (JSON)',
		name: 'contactsJson',
		type: 'json',
		default: '[\n  {\n    "name": { "formatted_name": "Maria Silva", "first_name": "Maria", "last_name": "Silva" },\n    "phones": [{ "phone": "+55 11 98888-7777", "type": "WORK" }]\n  }\n]',
		description:
			'An array of contact cards in the gateway\'s shape. Each card has a name {formatted_name, first_name, last_name, middle_name, suffix, prefix} and any of: birthday "YYYY-MM-DD"; org {company, department, title}; lists of phones {phone, type, wa_id}, emails {email, type}, addresses {street, city, state, zip, country, country_code, type} and URLs. Types are HOME or WORK.',
		displayOptions: showForMessageTypes(['contacts'], { contactsInputMode: ['json'] }),
	},
	{
		displayName: 'Contact Cards',
		name: 'contactCards',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Contact Card',
		default: {},
		description: 'The contacts to share; each needs a name',
		displayOptions: showForMessageTypes(['contacts'], { contactsInputMode: ['fields'] }),
		options: [
			{
				displayName: 'Card',
				name: 'card',
				values: [
					textField('Formatted Name', 'formattedName', {
						placeholder: 'e.g. Dr. Maria Silva',
						description: 'Full name as displayed; when empty it is made from the name parts',
					}),
					textField('Prefix', 'prefix', { placeholder: 'e.g. Dr.' }),
					textField('First Name', 'firstName'),
					textField('Middle Name', 'middleName'),
					textField('Last Name', 'lastName'),
					textField('Suffix', 'suffix', { placeholder: 'e.g. Jr.' }),
					textField('Birthday', 'birthday', { placeholder: 'e.g. 1990-05-17', description: 'Date of birth, YYYY-MM-DD' }),
					textField('Company', 'company'),
					textField('Department', 'department'),
					textField('Job Title', 'jobTitle'),
					{
						displayName: 'Phones',
						name: 'phones',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true },
						placeholder: 'Add Phone',
						default: {},
						options: [
							{
								displayName: 'Phone',
								name: 'phone',
								values: [
									textField('Phone Number', 'phone', { placeholder: 'e.g. +55 11 98888-7777' }),
									typeField,
									textField('WhatsApp ID', 'waId', {
										description: 'Network ID of this phone, when known; adds a "message" button to the card',
									}),
								],
							},
						],
					},
					{
						displayName: 'Emails',
						name: 'emails',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true },
						placeholder: 'Add Email',
						default: {},
						options: [
							{
								displayName: 'Email',
								name: 'email',
								values: [textField('Email', 'email', { placeholder: 'name@email.com' }), typeField],
							},
						],
					},
					{
						displayName: 'Addresses',
						name: 'addresses',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true },
						placeholder: 'Add Address',
						default: {},
						options: [
							{
								displayName: 'Address',
								name: 'address',
								values: [
									textField('Street', 'street'),
									textField('City', 'city'),
									textField('State', 'state'),
									textField('ZIP Code', 'zip'),
									textField('Country', 'country'),
									textField('Country Code', 'countryCode', { placeholder: 'e.g. BR' }),
									typeField,
								],
							},
						],
					},
					{
						displayName: 'URLs',
						name: 'urls',
						type: 'fixedCollection',
						typeOptions: { multipleValues: true },
						placeholder: 'Add URL',
						default: {},
						options: [
							{
								displayName: 'URL',
								name: 'url',
								values: [textField('URL', 'url', { placeholder: 'e.g. https://example.com' }), typeField],
							},
						],
					},
				],
			},
		],
	},
];

export type ContactCard = {
	addresses?: Array<Partial<Record<'street' | 'city' | 'state' | 'zip' | 'country' | 'country_code', string>> & { type?: ContactValueType }>;
	birthday?: string;
	emails?: Array<{ email: string; type?: ContactValueType }>;
	name: { formatted_name: string } & Partial<Record<'first_name' | 'last_name' | 'middle_name' | 'suffix' | 'prefix', string>>;
	org?: Partial<Record<'company' | 'department' | 'title', string>>;
	phones?: Array<{ phone: string; type?: ContactValueType; wa_id?: string }>;
	urls?: Array<{ url: string; type?: ContactValueType }>;
};

export type ContactsPayload = MessagePayload<'contacts', ContactCard[]>;

export interface ContactsParams {
	contactsInputMode?: unknown;
	contactsJson?: unknown;
	contactCards?: unknown;
}

export function build(params: ContactsParams): ContactsPayload {
	const fromJson = params.contactsInputMode === 'json';
	const root = fromJson ? 'Contacts (JSON)' : 'Contact Cards';
	const cards = fromJson ? parseCardsJson(params.contactsJson, root) : cardsFromFields(params.contactCards, root);
	if (cards.length === 0) throw new MessageInputError(root, 'add at least one contact card');
	return { type: 'contacts', contacts: cards.map((card, i) => checkCard(card, `${root} › card ${i + 1}`)) };
}

function parseCardsJson(value: unknown, root: string): unknown[] {
	let parsed = value;
	if (typeof value === 'string') {
		if (value.trim() === '') return [];
		// Thrown after the catch: the pure error is turned into the node's error by checkInput, not here.
		let invalid: string | undefined;
		try {
			parsed = JSON.parse(value);
		} catch (error) {
			invalid = (error as Error).message;
		}
		if (invalid !== undefined) throw new MessageInputError(root, `is not valid JSON (${invalid})`);
	}
	if (isPlainObject(parsed)) return [parsed];
	if (!Array.isArray(parsed)) throw new MessageInputError(root, 'must be an array of contact cards');
	return parsed;
}

/** The editor's card entries in the spec's shape (camelCase names to snake_case, nested collections to arrays). */
function cardsFromFields(value: unknown, root: string): unknown[] {
	return collectionEntries(value, 'card', root).map((entry, i) => {
		const where = `${root} › card ${i + 1}`;
		return {
			name: {
				formatted_name: entry.formattedName,
				first_name: entry.firstName,
				last_name: entry.lastName,
				middle_name: entry.middleName,
				suffix: entry.suffix,
				prefix: entry.prefix,
			},
			birthday: entry.birthday,
			org: { company: entry.company, department: entry.department, title: entry.jobTitle },
			phones: collectionEntries(entry.phones, 'phone', `${where} › phones`).map((p) => ({
				phone: p.phone,
				type: p.type,
				wa_id: p.waId,
			})),
			emails: collectionEntries(entry.emails, 'email', `${where} › emails`),
			addresses: collectionEntries(entry.addresses, 'address', `${where} › addresses`).map((a) => ({
				street: a.street,
				city: a.city,
				state: a.state,
				zip: a.zip,
				country: a.country,
				country_code: a.countryCode,
				type: a.type,
			})),
			urls: collectionEntries(entry.urls, 'url', `${where} › urls`),
		};
	});
}

const CARD_KEYS = ['addresses', 'birthday', 'emails', 'name', 'org', 'phones', 'urls'];
const NAME_KEYS = ['formatted_name', 'first_name', 'last_name', 'middle_name', 'suffix', 'prefix'];
const ORG_KEYS = ['company', 'department', 'title'];
const ADDRESS_KEYS = ['street', 'city', 'state', 'zip', 'country', 'country_code', 'type'];

function checkCard(value: unknown, where: string): ContactCard {
	const card = checkObject(value, where, CARD_KEYS);

	const name = stringValues(checkObject(card.name ?? {}, `${where} › name`, NAME_KEYS), `${where} › name`);
	if (!name.formatted_name) {
		// The network needs formatted_name; when only the parts are given, it is the parts in reading order.
		const parts = [name.prefix, name.first_name, name.middle_name, name.last_name, name.suffix].filter(Boolean);
		if (parts.length === 0) {
			throw new MessageInputError(`${where} › name`, 'is required; give a formatted name or a first or last name');
		}
		name.formatted_name = parts.join(' ');
	}
	const result: ContactCard = { name: name as ContactCard['name'] };

	const birthday = readString(card.birthday, `${where} › birthday`).trim();
	if (birthday !== '') result.birthday = checkDate(birthday, `${where} › birthday`);

	const org = stringValues(checkObject(card.org ?? {}, `${where} › org`, ORG_KEYS), `${where} › org`);
	if (Object.keys(org).length > 0) result.org = org;

	const phones = typedList(card.phones, `${where} › phones`, ['phone', 'type', 'wa_id'], 'phone');
	if (phones.length > 0) result.phones = phones as ContactCard['phones'];

	const emails = typedList(card.emails, `${where} › emails`, ['email', 'type'], 'email');
	for (const [i, email] of emails.entries()) {
		if (!/^[^\s@]+@[^\s@]+$/.test(email.email)) {
			throw new MessageInputError(`${where} › emails › entry ${i + 1} › email`, `"${email.email}" is not an email address`);
		}
	}
	if (emails.length > 0) result.emails = emails as ContactCard['emails'];

	const addresses = typedList(card.addresses, `${where} › addresses`, ADDRESS_KEYS, null);
	if (addresses.length > 0) result.addresses = addresses;

	const urls = typedList(card.urls, `${where} › urls`, ['url', 'type'], 'url');
	if (urls.length > 0) result.urls = urls as ContactCard['urls'];

	return result;
}

function checkObject(value: unknown, where: string, allowedKeys: string[]): Record<string, unknown> {
	if (!isPlainObject(value)) throw new MessageInputError(where, `must be an object, got ${JSON.stringify(value)}`);
	const unknown = Object.keys(value).filter((key) => !allowedKeys.includes(key));
	if (unknown.length > 0) {
		throw new MessageInputError(where, `has unknown field "${unknown[0]}"; the fields are ${allowedKeys.join(', ')}`);
	}
	return value;
}

/** Every value as trimmed text, empty ones left out. */
function stringValues(object: Record<string, unknown>, where: string): Record<string, string> {
	const result: Record<string, string> = {};
	for (const [key, value] of Object.entries(object)) {
		const text = readString(value, `${where} › ${key}`).trim();
		if (text !== '') result[key] = text;
	}
	return result;
}

/**
 * A list of {..., type} entries: each an object with known keys, values as text, `type` HOME or WORK (any case) or
 * absent, `requiredKey` present. Entries with nothing but a type are dropped (an untouched editor row).
 */
function typedList(
	value: unknown,
	where: string,
	allowedKeys: string[],
	requiredKey: string | null,
): Array<Record<string, string> & { type?: ContactValueType }> {
	if (value === undefined || value === null) return [];
	if (!Array.isArray(value)) throw new MessageInputError(where, 'must be a list');
	const result: Array<Record<string, string> & { type?: ContactValueType }> = [];
	for (const [i, entry] of value.entries()) {
		const entryWhere = `${where} › entry ${i + 1}`;
		const { type, ...values } = stringValues(checkObject(entry, entryWhere, allowedKeys), entryWhere);
		if (Object.keys(values).length === 0) continue;
		if (requiredKey !== null && !values[requiredKey]) {
			throw new MessageInputError(`${entryWhere} › ${requiredKey}`, 'is required');
		}
		if (type === undefined) {
			result.push(values);
			continue;
		}
		const upper = type.toUpperCase();
		if (!(CONTACT_VALUE_TYPES as readonly string[]).includes(upper)) {
			throw new MessageInputError(`${entryWhere} › type`, `"${type}" is not one of ${CONTACT_VALUE_TYPES.join(', ')}`);
		}
		result.push({ ...values, type: upper as ContactValueType });
	}
	return result;
}

/** `YYYY-MM-DD` of a real calendar day; a full ISO timestamp is cut to its date. */
function checkDate(text: string, where: string): string {
	const date = /^(\d{4})-(\d{2})-(\d{2})(?:[T ].*)?$/.exec(text);
	if (date) {
		const [year, month, day] = [Number(date[1]), Number(date[2]), Number(date[3])];
		const parsed = new Date(Date.UTC(year, month - 1, day));
		if (parsed.getUTCFullYear() === year && parsed.getUTCMonth() === month - 1 && parsed.getUTCDate() === day) {
			return `${date[1]}-${date[2]}-${date[3]}`;
		}
	}
	throw new MessageInputError(where, `"${text}" is not a date in the form YYYY-MM-DD`);
}
