/**
 * The person record of the bulk upload (spec section 2.8): its fields, its key fields and the types of custom
 * attributes. Pure data and small lookups; no n8n imports.
 */

import {
	PERSON_ATTRIBUTE_TYPES,
	PERSON_FIELDS,
	PERSON_JSON_CUSTOM_ATTRIBUTES_KEY,
	PERSON_KEY_FIELDS,
	PERSON_NAME_FIELDS,
} from '../../gateway/spec';

/** Person fields in the order they are written (spec 2.8; names are PascalCase in JSON and CSV). */
export { PERSON_FIELDS };
export type PersonField = (typeof PERSON_FIELDS)[number];

/** Fields that identify a person (rule 1). */
export const KEY_FIELDS = PERSON_KEY_FIELDS;
export type KeyField = (typeof KEY_FIELDS)[number];

/** At least one of these is required in every record (rule 3). */
export const NAME_FIELDS: readonly string[] = PERSON_NAME_FIELDS;

/**
 * Key configuration (rule 2): empty means "no keys configured" (records are united by Email OR CPF OR Phone);
 * otherwise the configured keys in priority order, the first one being required in each record.
 */
export type KeyConfiguration = readonly KeyField[];

/** Types of a custom attribute (rule 5), spelled as the spec lists them. */
export const ATTRIBUTE_TYPES = PERSON_ATTRIBUTE_TYPES;
export type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** Key of the custom attributes in a JSON person object (rule 6). */
export const JSON_CUSTOM_ATTRIBUTES_KEY = PERSON_JSON_CUSTOM_ATTRIBUTES_KEY;

/** Separator of CSV fields (rule 7) and of the name and type in a custom attribute column header. */
export const CSV_DELIMITER = ';';
export const CSV_ATTRIBUTE_TYPE_SEPARATOR = ':';

/** Loose spelling of a key: case, underscores, dashes, dots and spaces do not matter (`first_name` = `FirstName`). */
function looseKey(key: string): string {
	return key.toLowerCase().replace(/[\s_\-.]/g, '');
}

/**
 * Column names that spreadsheets use for a person field (English and Portuguese), compared loosely. `E-mail` needs
 * no entry: the dash is dropped and it reads `email`.
 */
const FIELD_ALIASES: ReadonlyArray<[string, PersonField]> = [
	['Mail', 'Email'],
	['Mobile', 'Phone'],
	['Mobile Phone', 'Phone'],
	['Phone Number', 'Phone'],
	['Celular', 'Phone'],
	['Telefone', 'Phone'],
	['WhatsApp', 'Phone'],
	['Sobrenome', 'LastName'],
];

/** Columns that hold a whole name; automatic mapping splits them into FirstName and LastName (the last word). */
const FULL_NAME_KEYS = new Set(['name', 'fullname', 'nome', 'nomecompleto']);

const FIELD_BY_LOOSE_KEY = new Map<string, PersonField>([
	...PERSON_FIELDS.map((field): [string, PersonField] => [looseKey(field), field]),
	...FIELD_ALIASES.map(([alias, field]): [string, PersonField] => [looseKey(alias), field]),
]);
const TYPE_BY_LOWERCASE = new Map<string, AttributeType>(ATTRIBUTE_TYPES.map((type) => [type.toLowerCase(), type]));

/** The person field an item key stands for (`email`, `E-mail`, `first_name`, `WhatsApp`), or undefined. */
export function personFieldForKey(key: string): PersonField | undefined {
	return FIELD_BY_LOOSE_KEY.get(looseKey(key));
}

/** Whether an item key holds a whole name (`Name`, `Full Name`, `Nome`). */
export function isFullNameKey(key: string): boolean {
	return FULL_NAME_KEYS.has(looseKey(key));
}

/** An attribute type from any casing (`integer`, `Integer`), or undefined when it is not one of rule 5's types. */
export function attributeTypeFromName(name: string): AttributeType | undefined {
	return TYPE_BY_LOWERCASE.get(name.trim().toLowerCase());
}

export function isPersonField(field: string): field is PersonField {
	return (PERSON_FIELDS as readonly string[]).includes(field);
}

/**
 * The columns of a person file: which person fields and which custom attributes (name and type) it carries.
 * Rows are arrays aligned with these lists, which keeps a million records cheap to map, check and write.
 */
export interface PersonColumns {
	readonly fields: readonly PersonField[];
	readonly attributes: ReadonlyArray<{ readonly name: string; readonly type: AttributeType }>;
}

/** A record before validation: raw values as they came, aligned with its columns. */
export interface RawPersonRow {
	readonly columns: PersonColumns;
	readonly fields: readonly unknown[];
	readonly attributes: readonly unknown[];
}

/**
 * A valid record in its written form: every value is the exact text to write (CPF and phone digits only, Float with
 * a decimal place, Boolean `true`/`false`), `undefined` when absent.
 */
export interface PersonRow {
	readonly columns: PersonColumns;
	readonly fields: ReadonlyArray<string | undefined>;
	readonly attributes: ReadonlyArray<string | undefined>;
}

/** One broken rule of one record. `itemIndex` is the input item (or the record's position in a file). */
export interface PersonViolation {
	itemIndex: number;
	field: string;
	reason: string;
	value?: string;
}
