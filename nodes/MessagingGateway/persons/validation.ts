/**
 * The gateway's rules for one person record (spec 2.8, rules 1-7), and the written form of a valid record.
 *
 * - No keys configured: at least one of Email, CPF, Phone (rule 2). Keys configured: the highest-priority key (rule 3).
 * - FirstName or LastName (rule 3).
 * - Every key value present is real (rule 4): no placeholder, no invented number, CPF check digits, e-mail form,
 *   phone of 8-15 international digits. A bad optional key value fails the record too: the rule forbids sending it.
 * - Custom attribute values conform to their type (rule 5).
 *
 * Violations show a short excerpt of the bad value: users fix their sheets faster when they see it.
 */
import {
	KEY_FIELDS,
	type KeyConfiguration,
	type PersonColumns,
	type PersonField,
	type PersonRow,
	type PersonViolation,
	type RawPersonRow,
} from './fields';
import {
	ATTRIBUTE_NORMALISERS,
	excerpt,
	fieldText,
	type Invalid,
	isAbsent,
	isInvalid,
	normaliseCpf,
	normaliseEmail,
	normalisePhone,
} from './values';

/** The checked written form of the fields that have rules of their own; other fields are text (`fieldText`). */
export const FIELD_NORMALISERS: Partial<Record<PersonField, (value: unknown) => string | Invalid>> = {
	CPF: normaliseCpf,
	Email: normaliseEmail,
	Phone: normalisePhone,
};

/** What a set of columns needs for each record, computed once per set of columns. */
interface ColumnsPlan {
	fieldNormalisers: Array<(value: unknown) => string | Invalid>;
	keyIndexes: number[];
	requiredKeyIndex: number;
	nameIndexes: number[];
	attributeNormalisers: Array<(value: unknown) => string | Invalid>;
}

const plans = new WeakMap<PersonColumns, Map<string, ColumnsPlan>>();

/** The plan of the last call: a file's records share their columns and keys, so most calls look nothing up. */
let last: { columns: PersonColumns; keys: KeyConfiguration; plan: ColumnsPlan } | undefined;

function planFor(columns: PersonColumns, keys: KeyConfiguration): ColumnsPlan {
	if (last !== undefined && last.columns === columns && last.keys === keys) return last.plan;
	let byKeys = plans.get(columns);
	if (!byKeys) plans.set(columns, (byKeys = new Map()));
	const keysId = keys.join(',');
	let plan = byKeys.get(keysId);
	if (!plan) {
		plan = {
			fieldNormalisers: columns.fields.map((field) => FIELD_NORMALISERS[field] ?? fieldText),
			keyIndexes: KEY_FIELDS.map((field) => columns.fields.indexOf(field)).filter((index) => index >= 0),
			requiredKeyIndex: keys.length > 0 ? columns.fields.indexOf(keys[0]) : -1,
			nameIndexes: [columns.fields.indexOf('FirstName'), columns.fields.indexOf('LastName')].filter((i) => i >= 0),
			attributeNormalisers: columns.attributes.map(({ type }) => ATTRIBUTE_NORMALISERS[type]),
		};
		byKeys.set(keysId, plan);
	}
	last = { columns, keys, plan };
	return plan;
}

function addViolation(
	violations: PersonViolation[] | undefined,
	itemIndex: number,
	field: string,
	reason: string,
	value?: unknown,
): PersonViolation[] {
	const violation: PersonViolation = { itemIndex, field, reason };
	if (value !== undefined) violation.value = excerpt(value);
	if (violations === undefined) return [violation];
	violations.push(violation);
	return violations;
}

/**
 * Checks one record against the rules. Returns its written form when valid, or all of its violations. A key
 * configuration names the configured keys in priority order; empty means none configured.
 */
export function validatePersonRow(
	raw: RawPersonRow,
	itemIndex: number,
	keys: KeyConfiguration,
): PersonRow | PersonViolation[] {
	const { columns } = raw;
	const plan = planFor(columns, keys);
	let violations: PersonViolation[] | undefined;

	const fields = new Array<string | undefined>(columns.fields.length);
	for (let i = 0; i < fields.length; i++) {
		const value = raw.fields[i];
		if (isAbsent(value)) continue;
		const result = plan.fieldNormalisers[i](value);
		if (isInvalid(result)) violations = addViolation(violations, itemIndex, columns.fields[i], result.reason, value);
		else if (result !== '') fields[i] = result;
	}

	if (keys.length === 0) {
		let hasKey = false;
		for (let k = 0; k < plan.keyIndexes.length && !hasKey; k++) hasKey = !isAbsent(raw.fields[plan.keyIndexes[k]]);
		if (!hasKey) violations = addViolation(violations, itemIndex, KEY_FIELDS.join('/'), 'is missing: at least one of them is required');
	} else if (plan.requiredKeyIndex < 0 || isAbsent(raw.fields[plan.requiredKeyIndex])) {
		violations = addViolation(violations, itemIndex, keys[0], 'is required: it is the highest-priority key');
	}
	let hasName = false;
	for (let n = 0; n < plan.nameIndexes.length && !hasName; n++) hasName = fields[plan.nameIndexes[n]] !== undefined;
	if (!hasName) violations = addViolation(violations, itemIndex, 'FirstName/LastName', 'is missing: one of them is required');

	const attributes = new Array<string | undefined>(columns.attributes.length);
	for (let i = 0; i < attributes.length; i++) {
		const value = raw.attributes[i];
		if (isAbsent(value)) continue;
		const result = plan.attributeNormalisers[i](value);
		if (isInvalid(result)) {
			const { name, type } = columns.attributes[i];
			violations = addViolation(violations, itemIndex, name, `${result.reason} (${type})`, value);
		} else attributes[i] = result;
	}

	return violations ?? { columns, fields, attributes };
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
