/**
 * Checking a person file the user already has against the rules, as it streams in: its valid records in written
 * form (for planning and rewriting it into parts) and a summary of the invalid ones. Nothing holds more than one
 * record.
 */
import { CSV_ATTRIBUTE_TYPE_SEPARATOR, type KeyConfiguration, type PersonRow, type RawPersonRow } from './fields';
import type { CountryCode } from '../../gateway/phone';
import type { SourceRecord } from './parts';
import { readPersonFile } from './reader';
import { isPersonRow, ValidationSummary, validatePersonRow } from './validation';
import { BARE_JSON_TYPES, type PersonFileFormatName } from './writers';

type Input = AsyncIterable<Buffer | string>;

export interface FileCheck {
	records: number;
	summary: ValidationSummary;
}

/**
 * The valid records of a file in their written form, for re-splitting it; invalid ones are counted in `summary`
 * and left out.
 */
export async function* validFileRecords(
	input: Input,
	format: PersonFileFormatName,
	keys: KeyConfiguration,
	summary: ValidationSummary,
	defaultCountry?: CountryCode,
): AsyncGenerator<SourceRecord> {
	for await (const record of readPersonFile(input, format)) {
		if (record.problem) {
			summary.addInvalid([record.problem]);
			continue;
		}
		const result = validatePersonRow(record.raw, record.index, keys, defaultCountry);
		if (isPersonRow(result)) {
			summary.addValid();
			countNormalised(record.raw, result, format, summary);
			yield { itemIndex: record.index, row: result };
		} else summary.addInvalid(result);
	}
}

/** Counts the values of a valid record that are written in another form than the file holds them. */
function countNormalised(raw: RawPersonRow, row: PersonRow, format: PersonFileFormatName, summary: ValidationSummary) {
	const { fields, attributes } = row.columns;
	for (let i = 0; i < fields.length; i++) {
		if (!isWrittenAsIs(raw.fields[i], row.fields[i], format, false)) summary.addNormalised(fields[i]);
	}
	for (let i = 0; i < attributes.length; i++) {
		const bare = format === 'json' && BARE_JSON_TYPES.has(attributes[i].type);
		if (!isWrittenAsIs(raw.attributes[i], row.attributes[i], format, bare)) {
			summary.addNormalised(`${attributes[i].name}${CSV_ATTRIBUTE_TYPE_SEPARATOR}${attributes[i].type}`);
		}
	}
}

/**
 * Whether the file's own value is what the gateway would get from the rewritten file. CSV cells are text; a JSON
 * file's numbers and booleans are bare literals, which the writer keeps bare (Integer, Float, Boolean).
 */
function isWrittenAsIs(raw: unknown, written: string | undefined, format: PersonFileFormatName, bare: boolean): boolean {
	if (written === undefined) return format === 'csv' ? raw === '' : raw === undefined;
	if (!bare) return raw === written;
	if (typeof raw === 'number') return Number(written) === raw;
	return typeof raw === 'boolean' && String(raw) === written;
}

/**
 * Reads a whole file and checks every record against the rules, holding nothing but the summary; each valid record
 * is handed to `onValid` (the planning of its parts).
 */
export async function checkPersonFile(
	input: Input,
	format: PersonFileFormatName,
	keys: KeyConfiguration,
	maxViolations = 100,
	onValid?: (record: SourceRecord) => void,
	defaultCountry?: CountryCode,
): Promise<FileCheck> {
	const summary = new ValidationSummary(maxViolations);
	for await (const record of validFileRecords(input, format, keys, summary, defaultCountry)) onValid?.(record);
	return { records: summary.valid + summary.invalid, summary };
}
