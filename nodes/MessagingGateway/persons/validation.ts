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
	type AttributeType,
	KEY_FIELDS,
	type KeyConfiguration,
	NAME_FIELDS,
	type PersonColumns,
	type PersonField,
	type PersonRow,
	type PersonViolation,
	type RawPersonRow,
} from './fields';
import { QUICK_WRITERS, type QuickWriter } from './quickWriters';
import {
	excerpt,
	fieldText,
	type Invalid,
	isAbsent,
	isFieldText,
	isInvalid,
	normaliseCpf,
	normaliseAttribute,
	normaliseEmail,
	normalisePhone,
} from './values';

/**
 * The checked written form of a field's value: the key fields (CPF, Email, Phone) have rules of their own (rule 4);
 * other fields are text (`fieldText`, see isPlainTextField). A switch rather than a function per field: one call site per rule, cheaper than one call site for
 * all (a million records come through here five times each or more).
 */
export function normaliseField(field: PersonField, value: unknown): string | Invalid {
	switch (field) {
		case 'CPF':
			return normaliseCpf(value);
		case 'Email':
			return normaliseEmail(value);
		case 'Phone':
			return normalisePhone(value);
		default:
			return fieldText(value);
	}
}

/** Fields whose value is plain text: the fields other than the keys, which normaliseField writes by `fieldText`. */
function isPlainTextField(field: PersonField): boolean {
	return !(KEY_FIELDS as readonly string[]).includes(field);
}

/**
 * Values of a type that are valid without their written form being built: a quick `true` that agrees with the
 * normaliser (a number is a valid Float when finite); `false` means "ask the normaliser", not "invalid".
 */
function attributeIsValid(type: AttributeType, value: unknown): boolean {
	// A switch rather than a function per type: one call site per type, which the compiler inlines (a million
	// records call this three times each).
	switch (type) {
		case 'String':
			return typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean';
		case 'Integer':
			return Number.isSafeInteger(value);
		case 'Float':
			return Number.isFinite(value);
		case 'Boolean':
			return typeof value === 'boolean';
		default:
			return false;
	}
}

/**
 * How each value of a set of columns is written: checked (its normaliser) or, for a key field, quickly (checkedRows.ts).
 * The one source for validation here and for the second pass of checkedRows.ts, read once per set of columns.
 */
export interface WritingPlan {
	/** Per field: its quick writer, or undefined when its checked form is already cheap (text is trimmed). */
	quickWriters: Array<QuickWriter | undefined>;
}

const writingPlans = new WeakMap<PersonColumns, WritingPlan>();

export function writingPlanOf(columns: PersonColumns): WritingPlan {
	let plan = writingPlans.get(columns);
	if (!plan) {
		plan = {
			quickWriters: columns.fields.map((field) => QUICK_WRITERS[field]),
		};
		writingPlans.set(columns, plan);
	}
	return plan;
}

/** What a set of columns needs for each record, computed once per set of columns and key configuration. */
interface ColumnsPlan extends WritingPlan {
	keyIndexes: number[];
	requiredKeyIndex: number;
	/** Per field: whether it is FirstName or LastName (rule 3: one of them is required). */
	isName: boolean[];
	/** Per field: whether it is plain text (written by `fieldText`: no rule of its own). */
	isText: boolean[];
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
			...writingPlanOf(columns),
			keyIndexes: KEY_FIELDS.map((field) => columns.fields.indexOf(field)).filter((index) => index >= 0),
			requiredKeyIndex: keys.length > 0 ? columns.fields.indexOf(keys[0]) : -1,
			isName: columns.fields.map((field) => (NAME_FIELDS as readonly string[]).includes(field)),
			isText: columns.fields.map(isPlainTextField),
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
 * configuration names the configured keys in priority order; empty means none configured. With `reuse` (a record of
 * the same columns, from `reusableRow`), that record is filled and returned: for a caller done with the last one.
 */
export function validatePersonRow(
	raw: RawPersonRow,
	itemIndex: number,
	keys: KeyConfiguration,
	reuse?: ReusableRow,
): PersonRow | PersonViolation[] {
	const { columns } = raw;
	const fields = reuse?.fields ?? new Array<string | undefined>(columns.fields.length);
	const attributes = reuse?.attributes ?? new Array<string | undefined>(columns.attributes.length);
	const result = checkRecord(raw, itemIndex, keys, fields, attributes);
	if (typeof result !== 'number') return result;
	return reuse ?? { columns, fields, attributes };
}

/** A written record that `validatePersonRow` or `writeCheckedRow` fills again for each record of one set of columns. */
export interface ReusableRow extends PersonRow {
	readonly fields: Array<string | undefined>;
	readonly attributes: Array<string | undefined>;
}

export function reusableRow(columns: PersonColumns): ReusableRow {
	return {
		columns,
		fields: new Array<string | undefined>(columns.fields.length),
		attributes: new Array<string | undefined>(columns.attributes.length),
	};
}

/**
 * Checks one record as `validatePersonRow` does, by the same rules, without writing it: its violations, or when it
 * is valid, its recheck mask for `writeCheckedRow` (checkedRows.ts): bit i set when field i's quick written form
 * differs from its checked one. For a first pass that keeps nothing of the records.
 */
export function checkPersonRow(raw: RawPersonRow, itemIndex: number, keys: KeyConfiguration): PersonViolation[] | number {
	return checkRecord(raw, itemIndex, keys, undefined, undefined);
}

/** The rules, once for both: writes the record into `fields` and `attributes` when given, else checks only. */
function checkRecord(
	raw: RawPersonRow,
	itemIndex: number,
	keys: KeyConfiguration,
	fields: Array<string | undefined> | undefined,
	attributes: Array<string | undefined> | undefined,
): PersonViolation[] | number {
	const { columns } = raw;
	const plan = planFor(columns, keys);
	let violations: PersonViolation[] | undefined;
	let recheck = 0;
	let hasName = false;

	for (let i = 0; i < columns.fields.length; i++) {
		const value = raw.fields[i];
		// A reused record still holds the last record's values.
		if (fields !== undefined) fields[i] = undefined;
		if (isAbsent(value)) continue;
		// Checking only: plain text is valid, and not empty once present, without being trimmed.
		if (fields === undefined && plan.isText[i] && isFieldText(value)) {
			if (plan.isName[i]) hasName = true;
			continue;
		}
		const result = normaliseField(columns.fields[i], value);
		if (isInvalid(result)) {
			violations = addViolation(violations, itemIndex, columns.fields[i], result.reason, value);
			continue;
		}
		if (result !== '') {
			if (fields !== undefined) fields[i] = result;
			if (plan.isName[i]) hasName = true;
		}
		const quick = plan.quickWriters[i];
		if (fields === undefined && quick !== undefined && !quick.gives(value, result)) recheck |= 1 << i;
	}

	if (keys.length === 0) {
		let hasKey = false;
		for (let k = 0; k < plan.keyIndexes.length && !hasKey; k++) hasKey = !isAbsent(raw.fields[plan.keyIndexes[k]]);
		if (!hasKey) violations = addViolation(violations, itemIndex, KEY_FIELDS.join('/'), 'is missing: at least one of them is required');
	} else if (plan.requiredKeyIndex < 0 || isAbsent(raw.fields[plan.requiredKeyIndex])) {
		violations = addViolation(violations, itemIndex, keys[0], 'is required: it is the highest-priority key');
	}
	if (!hasName) violations = addViolation(violations, itemIndex, 'FirstName/LastName', 'is missing: one of them is required');

	for (let i = 0; i < columns.attributes.length; i++) {
		const value = raw.attributes[i];
		if (attributes !== undefined) attributes[i] = undefined;
		if (isAbsent(value)) continue;
		// Without a record to write, most values need no written form to know they are valid (a finite Float).
		const { name, type } = columns.attributes[i];
		if (attributes === undefined && attributeIsValid(type, value)) continue;
		const result = normaliseAttribute(type, value);
		if (isInvalid(result)) {
			violations = addViolation(violations, itemIndex, name, `${result.reason} (${type})`, value);
		} else if (attributes !== undefined) attributes[i] = result;
	}

	return violations ?? recheck;
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
