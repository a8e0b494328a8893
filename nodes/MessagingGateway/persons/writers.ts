/**
 * Streaming serialisers of person files (spec 2.8 rules 6 and 7). A format turns the file into three kinds of text:
 * what comes before the first record, each record (with the separator it needs), and what closes the file. Nothing
 * holds more than one record; `personFileChunks` batches records into chunks of a few kilobytes for streams.
 *
 * CSV: `;` separated, header first, a custom attribute column is `Name:Type`; a value holding `;`, `"` or a line
 * break is quoted with quotes doubled; an absent value is an empty cell; lines end with `\n`.
 * JSON: an array of objects with PascalCase fields and `customAttributes: { name: { Type, Value } }`; Integer and
 * Float values are bare numbers, Boolean `true`/`false`, Datetime and String are strings; absent values are left out.
 */
import { PERSON_CONTENT_TYPES } from '../../gateway/spec';
import {
	type AttributeType,
	CSV_ATTRIBUTE_TYPE_SEPARATOR,
	CSV_DELIMITER,
	JSON_CUSTOM_ATTRIBUTES_KEY,
	type PersonColumns,
	type PersonRow,
} from './fields';

export type PersonFileFormatName = keyof typeof PERSON_CONTENT_TYPES;

export interface PersonFileFormat {
	readonly name: PersonFileFormatName;
	readonly contentType: string;
	/** Text before the first record of a file (the CSV header, the JSON `[`). */
	start(columns: PersonColumns): string;
	/** Text of one record; `indexInFile` is how many records this file already holds (JSON puts a comma first). */
	record(row: PersonRow, indexInFile: number): string;
	/** Text that closes a file. */
	end(): string;
}

export const CSV_LINE_BREAK = '\n';

/** A cell holding `;`, `"`, CR or LF is quoted, with its quotes doubled. */
export function csvCell(value: string): string {
	return /[;"\r\n]/.test(value) ? `"${value.replace(/"/g, '""')}"` : value;
}

export const csvFormat: PersonFileFormat = {
	name: 'csv',
	contentType: PERSON_CONTENT_TYPES.csv,
	start(columns) {
		const names = [
			...columns.fields,
			...columns.attributes.map(({ name, type }) => `${name}${CSV_ATTRIBUTE_TYPE_SEPARATOR}${type}`),
		];
		return names.map(csvCell).join(CSV_DELIMITER) + CSV_LINE_BREAK;
	},
	record(row) {
		let line = '';
		const { fields, attributes } = row;
		for (let i = 0; i < fields.length; i++) {
			if (i > 0) line += CSV_DELIMITER;
			const value = fields[i];
			if (value !== undefined) line += csvCell(value);
		}
		for (let i = 0; i < attributes.length; i++) {
			if (i > 0 || fields.length > 0) line += CSV_DELIMITER;
			const value = attributes[i];
			if (value !== undefined) line += csvCell(value);
		}
		return line + CSV_LINE_BREAK;
	},
	end() {
		return '';
	},
};

/** Attribute types written as bare JSON literals (rule 5: numbers without quotes); the others are JSON strings. */
export const BARE_JSON_TYPES: ReadonlySet<AttributeType> = new Set<AttributeType>(['Integer', 'Float', 'Boolean']);

const JSON_ATTRIBUTES_OPEN = `${JSON.stringify(JSON_CUSTOM_ATTRIBUTES_KEY)}:{`;

export const jsonFormat: PersonFileFormat = {
	name: 'json',
	contentType: PERSON_CONTENT_TYPES.json,
	start() {
		return '[';
	},
	record(row, indexInFile) {
		const { columns } = row;
		let text = indexInFile > 0 ? ',{' : '{';
		let first = true;
		const { fields, attributes } = row;
		for (let i = 0; i < fields.length; i++) {
			const value = fields[i];
			if (value === undefined) continue;
			text += `${first ? '' : ','}${JSON.stringify(columns.fields[i])}:${JSON.stringify(value)}`;
			first = false;
		}
		let attributesOpen = false;
		for (let i = 0; i < attributes.length; i++) {
			const value = attributes[i];
			if (value === undefined) continue;
			if (!attributesOpen) {
				text += (first ? '' : ',') + JSON_ATTRIBUTES_OPEN;
				attributesOpen = true;
			} else text += ',';
			// Integer, Float and Boolean texts are already valid JSON literals (validation wrote them so).
			const { name, type } = columns.attributes[i];
			const written = BARE_JSON_TYPES.has(type) ? value : JSON.stringify(value);
			text += `${JSON.stringify(name)}:{"Type":${JSON.stringify(type)},"Value":${written}}`;
		}
		return text + (attributesOpen ? '}}' : '}');
	},
	end() {
		return ']';
	},
};

export const PERSON_FILE_FORMATS: Record<PersonFileFormatName, PersonFileFormat> = { csv: csvFormat, json: jsonFormat };

/** Records are gathered into chunks of about this many characters before they are handed to a stream. */
export const CHUNK_CHARS = 64 * 1024;

/** A whole file as a sequence of text chunks, written record by record (no splitting; see parts.ts for that). */
export function* personFileChunks(
	format: PersonFileFormat,
	columns: PersonColumns,
	rows: Iterable<PersonRow>,
): Generator<string> {
	let chunk = format.start(columns);
	let index = 0;
	for (const row of rows) {
		chunk += format.record(row, index++);
		if (chunk.length >= CHUNK_CHARS) {
			yield chunk;
			chunk = '';
		}
	}
	chunk += format.end();
	if (chunk.length > 0) yield chunk;
}
