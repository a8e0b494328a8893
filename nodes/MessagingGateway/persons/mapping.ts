/**
 * Item JSON → person record (spec 2.8), in two modes.
 *
 * Auto: keys that name a person field, ignoring case, underscores, dashes and spaces (`email`, `first_name`), or a
 * usual spreadsheet name of it (`E-mail`, `Mobile`, `Celular`, `WhatsApp`), fill that field; a whole-name column
 * (`Name`, `Nome`) is split into FirstName and LastName; every other key becomes a custom attribute whose type is
 * inferred from its values across all items (see `inferAttributeType`) unless overridden. Nested objects and arrays
 * are written as compact JSON text in a String attribute; in a person field they are refused ("must be text").
 *
 * Defined: the fields and custom attributes (name, type, value) are given explicitly, per item.
 */
import {
	ATTRIBUTE_TYPES,
	type AttributeType,
	PERSON_FIELDS,
	type PersonColumns,
	type PersonField,
	isFullNameKey,
	personFieldForKey,
	type RawPersonRow,
} from './fields';
import { isAbsent, isInvalid, normaliseDatetime } from './values';

/** An error in how the mapping is configured (not in one record's data). */
export class PersonMappingError extends Error {
	constructor(
		message: string,
		readonly itemIndex?: number,
		/** The field or custom attribute it is about, when it is about one. */
		readonly field?: string,
	) {
		super(message);
		this.name = 'PersonMappingError';
	}
}

function checkAttributeType(name: string, type: string): void {
	if (!(ATTRIBUTE_TYPES as readonly string[]).includes(type)) {
		throw new PersonMappingError(`Type "${type}" of attribute "${name}" is not one of ${ATTRIBUTE_TYPES.join(', ')}`);
	}
}

// ---- Type inference ----

const KIND_INTEGER = 1;
const KIND_FLOAT = 2;
const KIND_BOOLEAN = 4;
const KIND_DATETIME = 8;
const KIND_STRING = 16;

/** Digit strings with leading zeros (zip codes, ids) and longer than 15 digits (card numbers) stay text. */
const INTEGER_TEXT = /^-?(?:0|[1-9]\d{0,14})$/;
const FLOAT_TEXT = /^-?(?:0|[1-9]\d*)\.\d+$/;

function valueKind(value: unknown): number {
	switch (typeof value) {
		case 'number':
			if (!Number.isFinite(value)) return KIND_STRING;
			return Number.isSafeInteger(value) ? KIND_INTEGER : Number.isInteger(value) ? KIND_STRING : KIND_FLOAT;
		case 'bigint':
			return KIND_INTEGER;
		case 'boolean':
			return KIND_BOOLEAN;
		case 'string': {
			const text = value.trim();
			if (INTEGER_TEXT.test(text)) return KIND_INTEGER;
			if (FLOAT_TEXT.test(text)) return KIND_FLOAT;
			const lower = text.toLowerCase();
			if (lower === 'true' || lower === 'false') return KIND_BOOLEAN;
			if (text.length >= 10 && text.charCodeAt(4) === 45 && !isInvalid(normaliseDatetime(text))) return KIND_DATETIME;
			return KIND_STRING;
		}
		default:
			return value instanceof Date ? KIND_DATETIME : KIND_STRING;
	}
}

/** The type that every seen kind of value fits: Integer and Float together make Float; any other mix is String. */
function typeOfKinds(kinds: number): AttributeType {
	switch (kinds) {
		case KIND_INTEGER:
			return 'Integer';
		case KIND_FLOAT:
		case KIND_INTEGER | KIND_FLOAT:
			return 'Float';
		case KIND_BOOLEAN:
			return 'Boolean';
		case KIND_DATETIME:
			return 'Datetime';
		default:
			return 'String';
	}
}

/** The type inferred from a list of values (absent values do not count; no value at all gives String). */
export function inferAttributeType(values: Iterable<unknown>): AttributeType {
	let kinds = 0;
	for (const value of values) if (!isAbsent(value)) kinds |= valueKind(value);
	return typeOfKinds(kinds);
}

// ---- Auto mode ----

export interface AutoMappingOptions {
	/** Type per custom attribute name (case-sensitive), replacing the inferred type. */
	typeOverrides?: Readonly<Record<string, AttributeType>>;
	/** Item keys to leave out entirely (for example `row_number` from Google Sheets). */
	ignoredKeys?: readonly string[];
}

/** What automatic mapping made of the item keys, for the output: the user sees where each column went. */
export interface AutoMappingReport {
	/** Person field → the item keys that fill it, in the order they are tried. */
	fields: Partial<Record<PersonField, string[]>>;
	/** Keys holding a whole name, split into FirstName and LastName (the last word) when those have no value. */
	splitNames: string[];
	/** Keys that became custom attributes, with their type. */
	customAttributes: Record<string, AttributeType>;
}

export interface AutoMapping {
	readonly columns: PersonColumns;
	readonly report: AutoMappingReport;
	/** Maps one item's JSON onto the columns: a new record each time, holding nothing of the item but its values. */
	map(json: Readonly<Record<string, unknown>>): RawPersonRow;
}

/** `Ana Maria Souza` → [`Ana Maria`, `Souza`]; one word is a first name. */
export function splitFullName(value: unknown): [string | undefined, string | undefined] {
	if (typeof value !== 'string') return [undefined, undefined];
	const words = value.trim().split(/\s+/);
	if (words[0] === '') return [undefined, undefined];
	if (words.length === 1) return [words[0], undefined];
	return [words.slice(0, -1).join(' '), words[words.length - 1]];
}

/**
 * Looks at every item once to learn the columns: which person fields occur, which other keys occur (in order of first
 * appearance) and the type of each. Items only are read; nothing is kept per item.
 */
export function planAutoMapping(
	items: Iterable<Readonly<Record<string, unknown>>>,
	options: AutoMappingOptions = {},
): AutoMapping {
	const ignored = new Set(options.ignoredKeys ?? []);
	const overrides = options.typeOverrides ?? {};
	for (const [name, type] of Object.entries(overrides)) checkAttributeType(name, type);

	/** Person field → the item keys that fill it, an exact PascalCase key first. */
	const sourcesByField = new Map<PersonField, string[]>();
	/** Custom attribute names in order of first sight, and the kinds of values seen for each. */
	const attributeNames: string[] = [];
	const attributeKinds: number[] = [];
	/** Every key seen → its attribute's position, or NOT_AN_ATTRIBUTE (a person field, a name to split, ignored). */
	const positionByKey = new Map<string, number>();
	const NOT_AN_ATTRIBUTE = -1;
	const splitNames: string[] = [];

	/** A key seen for the first time: where it goes. */
	const classifyKey = (key: string): number => {
		if (ignored.has(key)) return NOT_AN_ATTRIBUTE;
		if (isFullNameKey(key)) {
			splitNames.push(key);
			return NOT_AN_ATTRIBUTE;
		}
		const field = personFieldForKey(key);
		if (field) {
			const sources = sourcesByField.get(field) ?? [];
			if (key === field) sources.unshift(key);
			else sources.push(key);
			sourcesByField.set(field, sources);
			return NOT_AN_ATTRIBUTE;
		}
		attributeNames.push(key);
		attributeKinds.push(0);
		return attributeNames.length - 1;
	};

	for (const json of items) {
		for (const key in json) {
			let position = positionByKey.get(key);
			if (position === undefined) {
				position = classifyKey(key);
				positionByKey.set(key, position);
			}
			if (position === NOT_AN_ATTRIBUTE) continue;
			const kinds = attributeKinds[position];
			// Text settles the type (String whatever comes next): the values after it need not be read.
			if ((kinds & KIND_STRING) !== 0) continue;
			const value = json[key];
			if (!isAbsent(value)) attributeKinds[position] = kinds | valueKind(value);
		}
	}

	const splitsNames = splitNames.length > 0;
	const fields = PERSON_FIELDS.filter(
		(field) => sourcesByField.has(field) || (splitsNames && (field === 'FirstName' || field === 'LastName')),
	);
	const fieldSources = fields.map((field) => sourcesByField.get(field) ?? []);
	const firstNameAt = fields.indexOf('FirstName');
	const lastNameAt = fields.indexOf('LastName');
	const columns: PersonColumns = {
		fields,
		attributes: attributeNames.map((name, position) => ({
			name,
			type: overrides[name] ?? typeOfKinds(attributeKinds[position]),
		})),
	};

	const report: AutoMappingReport = {
		fields: Object.fromEntries([...sourcesByField].filter(([, keys]) => keys.length > 0)),
		splitNames,
		customAttributes: Object.fromEntries(columns.attributes.map(({ name, type }) => [name, type])),
	};

	return {
		columns,
		report,
		map(json) {
			const fieldValues = new Array<unknown>(fields.length);
			for (let i = 0; i < fieldSources.length; i++) {
				const sources = fieldSources[i];
				let value = sources.length > 0 ? json[sources[0]] : undefined;
				// Several keys may fill one field (`email` and `Email`): the first one with a value wins.
				for (let s = 1; s < sources.length && isAbsent(value); s++) value = json[sources[s]];
				fieldValues[i] = value;
			}
			if (splitsNames && isAbsent(fieldValues[firstNameAt]) && isAbsent(fieldValues[lastNameAt])) {
				let fullName: unknown;
				for (let s = 0; s < splitNames.length && isAbsent(fullName); s++) fullName = json[splitNames[s]];
				[fieldValues[firstNameAt], fieldValues[lastNameAt]] = splitFullName(fullName);
			}
			const attributeValues = attributeNames.map((name) => json[name]);
			return { columns, fields: fieldValues, attributes: attributeValues };
		},
	};
}

// ---- Defined mode ----

export interface DefinedAttribute {
	name: string;
	type: AttributeType;
	value: unknown;
}

/** One item's explicitly defined person: field values by field, and custom attributes. */
export interface DefinedPerson {
	fields: Partial<Record<PersonField, unknown>>;
	attributes: readonly DefinedAttribute[];
}

export interface DefinedMapping {
	readonly columns: PersonColumns;
	/**
	 * Maps one item's defined person onto the columns. The columns come from the configuration, so an item whose
	 * attribute names or types differ from it is a configuration error.
	 */
	map(person: DefinedPerson, itemIndex: number): RawPersonRow;
}

/** Columns from the configuration: the fields and the attributes (name and type) that are defined. */
export function planDefinedMapping(configuration: {
	fields: readonly PersonField[];
	attributes: ReadonlyArray<{ name: string; type: AttributeType }>;
}): DefinedMapping {
	const fields = PERSON_FIELDS.filter((field) => configuration.fields.includes(field));
	const attributeIndex = new Map<string, number>();
	const attributes: Array<{ name: string; type: AttributeType }> = [];
	for (const { name, type } of configuration.attributes) {
		if (name.trim() === '') throw new PersonMappingError('A custom attribute has no name');
		checkAttributeType(name, type);
		if (attributeIndex.has(name)) throw new PersonMappingError(`Custom attribute "${name}" is defined twice`);
		attributeIndex.set(name, attributes.length);
		attributes.push({ name, type });
	}
	const columns: PersonColumns = { fields, attributes };

	return {
		columns,
		map(person, itemIndex) {
			const fieldValues = fields.map((field) => person.fields[field]);
			const attributeValues = new Array<unknown>(attributes.length);
			for (const { name, type, value } of person.attributes) {
				const index = attributeIndex.get(name);
				if (index === undefined || attributes[index].type !== type) {
					throw new PersonMappingError(
						index === undefined
							? `Custom attribute "${name}" is not one of the first item's attributes`
							: `Custom attribute "${name}" is ${type} in this item and ${attributes[index].type} in the first item`,
						itemIndex,
						name,
					);
				}
				attributeValues[index] = value;
			}
			return { columns, fields: fieldValues, attributes: attributeValues };
		},
	};
}
