/**
 * Person-record files of the bulk upload (spec sections 2.8, 4.9), read as a stream: the records are counted by
 * small byte scanners that never hold more than one record, so a 1 GB upload costs no more memory than a small one.
 * The shape is checked exactly where it is cheap: the CSV header and the JSON array structure always, the field
 * values of the first records (errors a writer makes are systematic, so they show in the first records).
 */
import { PERSON_ATTRIBUTE_TYPES, PERSON_FIELDS, PERSON_KEY_FIELDS } from '../../nodes/gateway/spec';

const KEY_FIELDS: readonly string[] = PERSON_KEY_FIELDS;

/** Rule 5; JSON examples write the type in lowercase, so the case of the type is free. */
const ATTRIBUTE_TYPES = PERSON_ATTRIBUTE_TYPES.map((type) => type.toLowerCase() as Lowercase<(typeof PERSON_ATTRIBUTE_TYPES)[number]>);
type AttributeType = (typeof ATTRIBUTE_TYPES)[number];

/** How many leading records have their values checked. */
const CHECKED_RECORDS = 1000;
const MAX_CHECKED_RECORD_BYTES = 1024 * 1024;

export interface RecordScanner {
	write(chunk: Buffer): void;
	/** Finishes the scan; `error` is set when the file does not have the spec's shape. */
	end(): void;
	readonly records: number;
	readonly error: string | null;
}

const QUOTE = 0x22;
const SEMICOLON = 0x3b;
const LF = 0x0a;
const CR = 0x0d;

/**
 * CSV of rule 7: `;`-separated, header first, fields optionally quoted with `"` (a quote inside doubled), quoted
 * fields may hold `;` and line breaks. Empty lines are skipped. Counts the records after the header.
 */
export class CsvRecordScanner implements RecordScanner {
	records = 0;
	error: string | null = null;
	private header: Array<{ name: string; type: AttributeType | null }> | null = null;
	private inQuotes = false;
	private quoteInQuotes = false; // a `"` inside a quoted field: either an escaped quote or the closing one
	private atFieldStart = true;
	private recordHasContent = false;
	private separators = 0;
	private recordBytes: Buffer[] | null = [];
	private recordSize = 0;
	private firstChunk = true;

	write(chunk: Buffer): void {
		if (this.error) return;
		if (this.firstChunk) {
			this.firstChunk = false;
			if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
		}
		let recordStart = 0;
		for (let i = 0; i < chunk.length; i++) {
			const byte = chunk[i];
			if (this.inQuotes) {
				if (this.quoteInQuotes) {
					this.quoteInQuotes = false;
					if (byte === QUOTE) continue;
					this.inQuotes = false;
				} else {
					if (byte === QUOTE) this.quoteInQuotes = true;
					else {
						// Skip ahead to the next quote: nothing else matters inside a quoted field.
						const next = chunk.indexOf(QUOTE, i + 1);
						if (next < 0) i = chunk.length - 1;
						else {
							i = next;
							this.quoteInQuotes = true;
						}
					}
					continue;
				}
			}
			if (byte === SEMICOLON) {
				this.separators++;
				this.atFieldStart = true;
				this.recordHasContent = true;
			} else if (byte === LF) {
				if (this.recordBytes !== null) this.keepRecordBytes(chunk.subarray(recordStart, i));
				this.endRecord();
				recordStart = i + 1;
				if (this.error) return;
			} else if (byte !== CR) {
				if (byte === QUOTE && this.atFieldStart) this.inQuotes = true;
				this.atFieldStart = false;
				this.recordHasContent = true;
			}
		}
		if (this.recordBytes !== null) this.keepRecordBytes(chunk.subarray(recordStart));
	}

	end(): void {
		if (this.error) return;
		if (this.inQuotes && !this.quoteInQuotes) {
			this.error = `record ${this.records + 1} has a quoted field that is never closed`;
			return;
		}
		this.inQuotes = false;
		this.endRecord();
		if (!this.error && this.header === null) this.error = 'the CSV file is empty: the first line must be the header';
	}

	private keepRecordBytes(bytes: Buffer): void {
		if (this.recordBytes === null || bytes.length === 0) return;
		this.recordSize += bytes.length;
		if (this.recordSize > MAX_CHECKED_RECORD_BYTES) this.recordBytes = null;
		else this.recordBytes.push(Buffer.from(bytes));
	}

	private endRecord(): void {
		const fieldCount = this.separators + 1;
		const text = this.recordBytes ? Buffer.concat(this.recordBytes).toString('utf8') : null;
		const hadContent = this.recordHasContent;
		this.separators = 0;
		this.atFieldStart = true;
		this.recordHasContent = false;
		this.recordSize = 0;
		this.recordBytes = this.header === null || this.records < CHECKED_RECORDS ? [] : null;
		if (!hadContent) return;
		if (this.header === null) {
			this.error = text === null ? 'the CSV header line is too long' : this.readHeader(splitCsvRecord(text));
			if (!this.error) this.recordBytes = [];
			return;
		}
		this.records++;
		if (fieldCount !== this.header.length) {
			this.error = `record ${this.records} has ${fieldCount} fields but the header has ${this.header.length}`;
			return;
		}
		if (text !== null) this.error = this.checkRecord(splitCsvRecord(text));
	}

	private readHeader(names: string[]): string | null {
		const header: Array<{ name: string; type: AttributeType | null }> = [];
		for (const raw of names) {
			const name = raw.trim();
			const typed = /^([^:]+):([A-Za-z]+)$/.exec(name);
			if ((PERSON_FIELDS as readonly string[]).includes(name)) header.push({ name, type: null });
			else if (typed && (ATTRIBUTE_TYPES as readonly string[]).includes(typed[2].toLowerCase())) {
				header.push({ name: typed[1], type: typed[2].toLowerCase() as AttributeType });
			} else {
				return (
					`the CSV header field ${JSON.stringify(name)} is neither a person field (${PERSON_FIELDS.join(', ')}) ` +
					'nor a custom attribute Name:Type with a type of String, Integer, Float, Boolean, Datetime'
				);
			}
		}
		const seen = new Set<string>();
		for (const { name } of header) {
			if (seen.has(name)) return `the CSV header names ${name} twice`;
			seen.add(name);
		}
		if (!header.some((column) => KEY_FIELDS.includes(column.name))) {
			return `the CSV header has none of the key fields ${KEY_FIELDS.join(', ')}: at least one must be sent`;
		}
		this.header = header;
		return null;
	}

	private checkRecord(values: string[]): string | null {
		const header = this.header ?? [];
		if (!header.some((column, i) => KEY_FIELDS.includes(column.name) && values[i].trim() !== '')) {
			return `record ${this.records} has no value in any key field (${KEY_FIELDS.join(', ')})`;
		}
		for (let i = 0; i < header.length; i++) {
			const { name, type } = header[i];
			if (type && values[i] !== '') {
				const problem = attributeValueProblem(type, values[i]);
				if (problem) return `record ${this.records}, column ${name}:${type}: ${problem}`;
			}
		}
		return null;
	}
}

/** Splits one CSV record (without its line break) into field values, undoing the quoting. */
export function splitCsvRecord(record: string): string[] {
	const fields: string[] = [];
	let field = '';
	let quoted = false;
	let atStart = true;
	for (let i = 0; i < record.length; i++) {
		const char = record[i];
		if (quoted) {
			if (char === '"' && record[i + 1] === '"') {
				field += '"';
				i++;
			} else if (char === '"') quoted = false;
			else field += char;
		} else if (char === ';') {
			fields.push(field);
			field = '';
			atStart = true;
			continue;
		} else if (char === '"' && atStart) quoted = true;
		else if (char !== '\r') field += char;
		atStart = false;
	}
	fields.push(field);
	return fields;
}

const OPEN_OBJECT = 0x7b;
const CLOSE_OBJECT = 0x7d;
const OPEN_ARRAY = 0x5b;
const CLOSE_ARRAY = 0x5d;
const COMMA = 0x2c;
const BACKSLASH = 0x5c;

/**
 * JSON of rule 6: one top-level array of person objects. Tracks strings (with escapes), nesting and the commas of
 * the top level, so a missing comma, a trailing comma or two arrays glued together are refused. Counts the elements.
 */
export class JsonRecordScanner implements RecordScanner {
	records = 0;
	error: string | null = null;
	private stack: number[] = [];
	private inString = false;
	private escaped = false;
	private started = false;
	private finished = false;
	/** At the top level: true after `[` or `,` (a value must come), false after a value (`,` or `]` must come). */
	private expectValue = true;
	private afterComma = false;
	private elementBytes: Buffer[] | null = null;
	private elementSize = 0;
	private firstChunk = true;

	write(chunk: Buffer): void {
		if (this.error) return;
		if (this.firstChunk) {
			this.firstChunk = false;
			if (chunk[0] === 0xef && chunk[1] === 0xbb && chunk[2] === 0xbf) chunk = chunk.subarray(3);
		}
		let elementStart = this.elementBytes ? 0 : -1;
		let nextBackslash = chunk.indexOf(BACKSLASH);
		for (let i = 0; i < chunk.length; i++) {
			const byte = chunk[i];
			if (this.inString) {
				if (this.escaped) {
					this.escaped = false;
					continue;
				}
				// Jump to the string's next quote or backslash: nothing else matters inside a string.
				if (nextBackslash >= 0 && nextBackslash < i) nextBackslash = chunk.indexOf(BACKSLASH, i);
				const nextQuote = chunk.indexOf(QUOTE, i);
				const stop = nextBackslash >= 0 && (nextQuote < 0 || nextBackslash < nextQuote) ? nextBackslash : nextQuote;
				if (stop < 0) break;
				i = stop;
				if (chunk[i] === BACKSLASH) this.escaped = true;
				else this.inString = false;
				continue;
			}
			if (byte === 0x20 || byte === LF || byte === CR || byte === 0x09) continue;
			if (this.finished) return this.fail('there is content after the closing ] of the top-level array');
			if (!this.started) {
				if (byte !== OPEN_ARRAY) return this.fail('the JSON file must be an array of person objects (it must start with [)');
				this.started = true;
				this.stack.push(OPEN_ARRAY);
				continue;
			}
			const depth = this.stack.length;
			if (depth === 1) {
				if (byte === CLOSE_ARRAY) {
					if (this.afterComma) return this.fail(`there is a comma after the last element (element ${this.records})`);
					this.stack.pop();
					this.finished = true;
					continue;
				}
				if (byte === COMMA) {
					if (this.expectValue) return this.fail(`a comma comes where element ${this.records + 1} should be`);
					this.expectValue = true;
					this.afterComma = true;
					continue;
				}
				if (!this.expectValue) return this.fail(`a comma is missing after element ${this.records}`);
				if (byte !== OPEN_OBJECT) return this.fail(`element ${this.records + 1} of the array is not an object`);
				this.records++;
				this.expectValue = false;
				this.afterComma = false;
				this.stack.push(OPEN_OBJECT);
				if (this.records <= CHECKED_RECORDS) {
					this.elementBytes = [];
					this.elementSize = 0;
					elementStart = i;
				}
				continue;
			}
			if (byte === QUOTE) this.inString = true;
			else if (byte === OPEN_OBJECT || byte === OPEN_ARRAY) this.stack.push(byte);
			else if (byte === CLOSE_OBJECT || byte === CLOSE_ARRAY) {
				const open = this.stack.pop();
				if ((byte === CLOSE_OBJECT) !== (open === OPEN_OBJECT)) return this.fail(`element ${this.records} has mismatched brackets`);
				if (this.stack.length === 1 && this.elementBytes && elementStart >= 0) {
					this.keepElementBytes(chunk.subarray(elementStart, i + 1));
					elementStart = -1;
					this.checkElement();
					if (this.error) return;
				}
			}
		}
		if (this.elementBytes && elementStart >= 0) this.keepElementBytes(chunk.subarray(elementStart));
	}

	end(): void {
		if (this.error) return;
		if (!this.started) this.fail('the JSON file is empty: it must be an array of person objects');
		else if (!this.finished) this.fail(`the JSON array is not closed (the file ends inside element ${this.records})`);
	}

	private fail(message: string): void {
		this.error = message;
	}

	private keepElementBytes(bytes: Buffer): void {
		if (!this.elementBytes) return;
		this.elementSize += bytes.length;
		if (this.elementSize > MAX_CHECKED_RECORD_BYTES) this.elementBytes = null;
		else this.elementBytes.push(Buffer.from(bytes));
	}

	private checkElement(): void {
		const bytes = this.elementBytes;
		this.elementBytes = null;
		if (!bytes) return;
		let person: unknown;
		try {
			person = JSON.parse(Buffer.concat(bytes).toString('utf8'));
		} catch (error) {
			return this.fail(`element ${this.records} is not valid JSON: ${(error as Error).message}`);
		}
		const problem = jsonPersonProblem(person as Record<string, unknown>);
		if (problem) this.fail(`element ${this.records}: ${problem}`);
	}
}

function jsonPersonProblem(person: Record<string, unknown>): string | null {
	for (const [key, value] of Object.entries(person)) {
		if (key === 'customAttributes' || key === 'CustomAttributes') {
			const problem = customAttributesProblem(value);
			if (problem) return problem;
		} else if (!(PERSON_FIELDS as readonly string[]).includes(key)) {
			return `${key} is not a person field (${PERSON_FIELDS.join(', ')}, customAttributes)`;
		} else if (typeof value !== 'string') {
			return `${key} must be a string`;
		}
	}
	if (!KEY_FIELDS.some((key) => typeof person[key] === 'string' && (person[key] as string).trim() !== '')) {
		return `it has no value in any key field (${KEY_FIELDS.join(', ')})`;
	}
	return null;
}

function customAttributesProblem(value: unknown): string | null {
	if (typeof value !== 'object' || value === null || Array.isArray(value)) {
		return 'customAttributes must be an object mapping attribute names to { Type, Value }';
	}
	for (const [name, attribute] of Object.entries(value)) {
		if (typeof attribute !== 'object' || attribute === null || Array.isArray(attribute)) {
			return `customAttributes.${name} must be an object { Type, Value }`;
		}
		const { Type: type, Value: attributeValue, ...rest } = attribute as Record<string, unknown>;
		const extra = Object.keys(rest);
		if (extra.length > 0) return `customAttributes.${name} has the field ${extra[0]}; only Type and Value are allowed`;
		if (typeof type !== 'string' || !(ATTRIBUTE_TYPES as readonly string[]).includes(type.toLowerCase())) {
			return `customAttributes.${name}.Type must be one of String, Integer, Float, Boolean, Datetime`;
		}
		const problem = attributeValueProblem(type.toLowerCase() as AttributeType, attributeValue);
		if (problem) return `customAttributes.${name}.Value: ${problem}`;
	}
	return null;
}

/** Rule 5: the value conforms to its type; CSV values are text, JSON values may be bare numbers and booleans. */
function attributeValueProblem(type: AttributeType, value: unknown): string | null {
	if (type === 'string') return typeof value === 'string' ? null : 'a String value must be a string';
	if (type === 'integer') {
		if (typeof value === 'number') return Number.isInteger(value) ? null : `${value} is not an integer`;
		return typeof value === 'string' && /^-?\d+$/.test(value) ? null : `${JSON.stringify(value)} is not an integer`;
	}
	if (type === 'float') {
		if (typeof value === 'number') return Number.isFinite(value) ? null : `${value} is not a number`;
		return typeof value === 'string' && /^-?\d+\.\d+$/.test(value)
			? null
			: `${JSON.stringify(value)} is not a Float (a decimal point and at least one decimal, no currency sign)`;
	}
	if (type === 'boolean') {
		if (typeof value === 'boolean') return null;
		return typeof value === 'string' && /^(true|false)$/i.test(value) ? null : `${JSON.stringify(value)} is not a Boolean`;
	}
	// ISO 8601 proper: `T` between date and time, a decimal point, an offset of hours and minutes.
	return typeof value === 'string' && /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?$/.test(value)
		? null
		: `${JSON.stringify(value)} is not a Datetime (a date YYYY-MM-DD or an ISO 8601 timestamp)`;
}
