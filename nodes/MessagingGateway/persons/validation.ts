/**
 * The gateway's rules for one person record (spec 2.8, rules 1-7), and the written form of a valid record.
 *
 * - No keys configured: at least one of Email, CPF, Phone (rule 2). Keys configured: the highest-priority key (rule 3).
 * - FirstName or LastName (rule 3).
 * - Every key value present is real (rule 4): no placeholder, no invented number, CPF check digits, e-mail form,
 *   a phone valid in its country's plan (docs/phone-numbers.md). A bad optional key value fails the record too.
 * - Custom attribute values conform to their type (rule 5).
 *
 * Violations show a short excerpt of the bad value: users fix their sheets faster when they see it.
 */
import {
	KEY_FIELDS,
	NAME_FIELDS,
	type KeyConfiguration,
	type PersonField,
	type PersonRow,
	type PersonViolation,
	type RawPersonRow,
} from './fields';
import type { CountryCode } from '../../gateway/phone';
import { excerpt, fieldText, type Invalid, isAbsent, isInvalid, normaliseAttribute, normaliseCpf, normaliseEmail, normalisePhone } from './values';

/** The checked written form of a field's value: the key fields have rules of their own (rule 4), the others are text. */
export function normaliseField(field: PersonField, value: unknown, defaultCountry?: CountryCode): string | Invalid {
	switch (field) {
		case 'CPF':
			return normaliseCpf(value);
		case 'Email':
			return normaliseEmail(value);
		case 'Phone':
			return normalisePhone(value, defaultCountry);
		default:
			return fieldText(value);
	}
}

function violation(itemIndex: number, field: string, reason: string, value?: unknown): PersonViolation {
	return value === undefined ? { itemIndex, field, reason } : { itemIndex, field, reason, value: excerpt(value) };
}

/**
 * The one validation of a record: its written form when valid (a new row: nothing of it is shared with another
 * record), or all of its violations. A key configuration names the configured keys in priority order; empty means
 * none configured; `defaultCountry` reads national phone numbers. On Invalid = Fail calls it in its first pass to
 * check every record and in its second to write them; Skip and file uploads call it once per record.
 */
export function validatePersonRow(
	raw: RawPersonRow,
	itemIndex: number,
	keys: KeyConfiguration,
	defaultCountry?: CountryCode,
): PersonRow | PersonViolation[] {
	const { columns } = raw;
	const violations: PersonViolation[] = [];
	const fields = new Array<string | undefined>(columns.fields.length);
	let hasKey = false;
	let hasName = false;
	for (let i = 0; i < columns.fields.length; i++) {
		const field = columns.fields[i];
		const value = raw.fields[i];
		if (isAbsent(value)) continue;
		if ((KEY_FIELDS as readonly string[]).includes(field)) hasKey = true;
		const result = normaliseField(field, value, defaultCountry);
		if (isInvalid(result)) {
			violations.push(violation(itemIndex, field, result.reason, value));
			continue;
		}
		if (result === '') continue;
		fields[i] = result;
		if (NAME_FIELDS.includes(field)) hasName = true;
	}

	if (keys.length === 0) {
		if (!hasKey) violations.push(violation(itemIndex, KEY_FIELDS.join('/'), 'is missing: at least one of them is required'));
	} else {
		const required = columns.fields.indexOf(keys[0]);
		if (required < 0 || isAbsent(raw.fields[required])) {
			violations.push(violation(itemIndex, keys[0], 'is required: it is the highest-priority key'));
		}
	}
	if (!hasName) violations.push(violation(itemIndex, NAME_FIELDS.join('/'), 'is missing: one of them is required'));

	const attributes = new Array<string | undefined>(columns.attributes.length);
	for (let i = 0; i < columns.attributes.length; i++) {
		const value = raw.attributes[i];
		if (isAbsent(value)) continue;
		const { name, type } = columns.attributes[i];
		const result = normaliseAttribute(type, value);
		if (isInvalid(result)) violations.push(violation(itemIndex, name, `${result.reason} (${type})`, value));
		else attributes[i] = result;
	}

	return violations.length > 0 ? violations : { columns, fields, attributes };
}

export function isPersonRow(result: PersonRow | PersonViolation[]): result is PersonRow {
	return !Array.isArray(result);
}

/** Counts valid and invalid records and keeps the first violations for the report. */
export class ValidationSummary {
	valid = 0;
	invalid = 0;
	readonly violations: PersonViolation[] = [];
	/**
	 * Per column (`CPF`, `Score:Float`), how many values of valid records are written in another form than the one
	 * they came in (`12` → `12.0`, `2024-05-01 10:00` → `2024-05-01T10:00`). Counted for files only: a file with any
	 * is sent rewritten, never as it is.
	 */
	readonly normalised: Record<string, number> = {};

	constructor(readonly maxViolations = 100) {}

	addNormalised(column: string): void {
		this.normalised[column] = (this.normalised[column] ?? 0) + 1;
	}

	get normalisedValues(): number {
		let total = 0;
		for (const column in this.normalised) total += this.normalised[column];
		return total;
	}

	addValid(): void {
		this.valid++;
	}

	addInvalid(violations: readonly PersonViolation[]): void {
		this.invalid++;
		for (const violation of violations) {
			if (this.violations.length >= this.maxViolations) break;
			this.violations.push(violation);
		}
	}
}

/** One line per violation: `item 3: Email "foo@" is not a valid e-mail address`. */
export function describeViolation(violation: PersonViolation, itemWord = 'item'): string {
	const value = violation.value === undefined ? '' : ` "${violation.value}"`;
	return `${itemWord} ${violation.itemIndex}: ${violation.field}${value} ${violation.reason}`;
}
