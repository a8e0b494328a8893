/**
 * Reading a person file the user already has (CSV per rule 7 or JSON per rule 6) into raw records, as it streams
 * in, so that it can be checked against the rules before it is uploaded. Nothing holds more than one record.
 *
 * CSV: the header names PascalCase person fields and `Name:Type` custom attribute columns; any other column makes the
 * file unusable (`PersonFileError`). JSON: a top-level array of person objects, scanned element by element (never one
 * `JSON.parse` of the whole file); keys other than the person fields and `customAttributes` are reported per record.
 */
import { readCsvRows } from '../../gateway/csv';
import {
	CSV_ATTRIBUTE_TYPE_SEPARATOR,
	JSON_CUSTOM_ATTRIBUTES_KEY,
	PERSON_FIELDS,
	type AttributeType,
	type PersonColumns,
	type PersonField,
	type PersonViolation,
	type RawPersonRow,
	attributeTypeFromName,
	isPersonField,
} from './fields';
import { excerpt } from './values';
import type { PersonFileFormatName } from './writers';

/** A file that cannot be read as a person file at all (not a JSON array, an unknown CSV column). */
export class PersonFileError extends Error {
	constructor(message: string) {
		super(message);
		this.name = 'PersonFileError';
	}
}

/** One record of a file: its raw values, or the reason it could not even be read. `index` counts from 0. */
export type FileRecord =
	| { index: number; raw: RawPersonRow; problem?: undefined }
	| { index: number; raw?: undefined; problem: PersonViolation };

type Input = AsyncIterable<Buffer | string>;

// ---- CSV ----

/** The columns a CSV header describes: person fields and `Name:Type` attributes, each with its cell position. */
export function columnsFromCsvHeader(header: readonly string[]): {
	columns: PersonColumns;
	fieldCells: number[];
	attributeCells: number[];
} {
	const fields: PersonField[] = [];
	const fieldCells: number[] = [];
	const attributes: Array<{ name: string; type: AttributeType }> = [];
	const attributeCells: number[] = [];
	header.forEach((cell, position) => {
		const name = cell.trim();
		if (isPersonField(name)) {
			if (fields.includes(name)) throw new PersonFileError(`Column "${name}" appears twice in the header`);
			fields.push(name);
			fieldCells.push(position);
			return;
		}
		const separator = name.lastIndexOf(CSV_ATTRIBUTE_TYPE_SEPARATOR);
		const type = separator > 0 ? attributeTypeFromName(name.slice(separator + 1)) : undefined;
		if (!type) {
			throw new PersonFileError(
				`Column "${excerpt(name)}" is neither a person field (${PERSON_FIELDS.join(', ')}) ` +
					'nor a custom attribute written Name:Type (String, Integer, Float, Boolean, Datetime)',
			);
		}
		attributes.push({ name: name.slice(0, separator), type });
		attributeCells.push(position);
	});
	return { columns: { fields, attributes }, fieldCells, attributeCells };
}

/** The records of a `;`-separated CSV person file, header first line. */
export async function* readCsvPersonFile(input: Input): AsyncGenerator<FileRecord> {
	let layout: ReturnType<typeof columnsFromCsvHeader> | undefined;
	let index = 0;
	for await (const cells of readCsvRows(input)) {
		if (!layout) {
			layout = columnsFromCsvHeader(cells);
			continue;
		}
		const recordIndex = index++;
		if (cells.length !== layout.fieldCells.length + layout.attributeCells.length) {
			yield {
				index: recordIndex,
				problem: {
					itemIndex: recordIndex,
					field: '(record)',
					reason: `has ${cells.length} cells, the header has ${layout.fieldCells.length + layout.attributeCells.length}`,
				},
			};
			continue;
		}
		const { columns, fieldCells, attributeCells } = layout;
		const fields = fieldCells.map((cell) => cells[cell]);
		const attributes = attributeCells.map((cell) => cells[cell]);
		yield { index: recordIndex, raw: { columns, fields, attributes } };
	}
	if (!layout) throw new PersonFileError('The CSV file is empty: it has no header line');
}

// ---- JSON ----

/**
 * The elements of a top-level JSON array, each parsed on its own as the text streams in. A text that is not an
 * array fails with a `PersonFileError`; an element that is not valid JSON is yielded as an `Error`.
 */
export async function* scanJsonArray(input: Input): AsyncGenerator<unknown> {
	const decoder = new TextDecoder('utf-8');
	let phase: 'before' | 'inside' | 'after' = 'before';
	let depth = 0;
	let inString = false;
	let escaped = false;
	let carried = '';
	let elementStart = -1;

	const parse = (text: string): unknown => {
		try {
			return JSON.parse(text);
		} catch (error) {
			return error instanceof Error ? error : new Error(String(error));
		}
	};

	for await (const chunk of input) {
		const text = typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true });
		const elements: unknown[] = [];
		for (let i = 0; i < text.length; i++) {
			const code = text.charCodeAt(i);
			if (phase === 'before') {
				if (code === 0x5b) {
					phase = 'inside';
					depth = 1;
				} else if (!isJsonSpace(code) && code !== 0xfeff) throw new PersonFileError('The JSON file is not an array');
				continue;
			}
			if (phase === 'after') {
				if (!isJsonSpace(code)) throw new PersonFileError('The JSON file has text after its closing ]');
				continue;
			}
			if (inString) {
				if (escaped) escaped = false;
				else if (code === 0x5c) escaped = true;
				else if (code === 0x22) inString = false;
				continue;
			}
			const atTop = depth === 1;
			if (atTop && (code === 0x2c || code === 0x5d)) {
				// `,` or the closing `]` of the array ends the element in progress.
				if (elementStart >= 0) {
					elements.push(parse(carried + text.slice(elementStart, i)));
					carried = '';
					elementStart = -1;
				} else if (code === 0x2c) throw new PersonFileError('The JSON array has an empty element');
				if (code === 0x5d) {
					phase = 'after';
					depth = 0;
				}
				continue;
			}
			if (isJsonSpace(code)) continue;
			if (elementStart < 0) elementStart = i;
			if (code === 0x22) inString = true;
			else if (code === 0x7b || code === 0x5b) depth++;
			else if (code === 0x7d || code === 0x5d) depth--;
		}
		if (elementStart >= 0) {
			carried += text.slice(elementStart);
			elementStart = 0;
		}
		yield* elements;
	}
	if (phase !== 'after') throw new PersonFileError(phase === 'before' ? 'The JSON file is empty' : 'The JSON file ends before its closing ]');
}

function isJsonSpace(code: number): boolean {
	return code === 0x20 || code === 0x0a || code === 0x0d || code === 0x09;
}

/** The records of a JSON person file (an array of person objects). */
export async function* readJsonPersonFile(input: Input): AsyncGenerator<FileRecord> {
	let index = 0;
	for await (const element of scanJsonArray(input)) {
		const recordIndex = index++;
		const problem = (field: string, reason: string, value?: unknown): FileRecord => ({
			index: recordIndex,
			problem: { itemIndex: recordIndex, field, reason, ...(value === undefined ? {} : { value: excerpt(value) }) },
		});
		if (element instanceof Error) {
			yield problem('(record)', `is not valid JSON: ${element.message}`);
			continue;
		}
		if (typeof element !== 'object' || element === null || Array.isArray(element)) {
			yield problem('(record)', 'is not a JSON object', element);
			continue;
		}
		const person = element as Record<string, unknown>;
		const fields: PersonField[] = [];
		const fieldValues: unknown[] = [];
		const attributes: Array<{ name: string; type: AttributeType }> = [];
		const attributeValues: unknown[] = [];
		let bad: FileRecord | undefined;
		for (const field of PERSON_FIELDS) {
			if (field in person) {
				fields.push(field);
				fieldValues.push(person[field]);
			}
		}
		for (const key of Object.keys(person)) {
			if (isPersonField(key)) continue;
			if (key !== JSON_CUSTOM_ATTRIBUTES_KEY && key !== 'CustomAttributes') {
				bad ??= problem(key, `is not a person field (${PERSON_FIELDS.join(', ')}) nor ${JSON_CUSTOM_ATTRIBUTES_KEY}`);
				continue;
			}
			const map = person[key];
			if (typeof map !== 'object' || map === null || Array.isArray(map)) {
				bad ??= problem(key, 'must be an object of { Type, Value } entries', map);
				continue;
			}
			for (const [name, entry] of Object.entries(map as Record<string, unknown>)) {
				const { Type, Value } = (entry ?? {}) as { Type?: unknown; Value?: unknown };
				const type = typeof Type === 'string' ? attributeTypeFromName(Type) : undefined;
				if (!type) {
					bad ??= problem(name, 'must be { Type, Value } with Type String, Integer, Float, Boolean or Datetime', entry);
					continue;
				}
				attributes.push({ name, type });
				attributeValues.push(Value);
			}
		}
		if (bad) {
			yield bad;
			continue;
		}
		yield { index: recordIndex, raw: { columns: { fields, attributes }, fields: fieldValues, attributes: attributeValues } };
	}
}

export function readPersonFile(input: Input, format: PersonFileFormatName): AsyncGenerator<FileRecord> {
	return format === 'csv' ? readCsvPersonFile(input) : readJsonPersonFile(input);
}
