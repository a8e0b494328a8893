/**
 * Writing again a record that `validatePersonRow` accepted, without checking it again.
 *
 * On Invalid Records = Fail checks every record before the first byte is sent, then maps and writes the records a
 * second time while they stream (keeping a million written records between the passes would cost their size). The
 * second pass must send exactly what the first one validated, but the checks (the phone's numbering plan, the
 * e-mail's form, the CPF's check digits) are most of a record's cost. So the key fields have a quick writer that
 * gives their written form without the checks; the first pass compares it with the checked form and marks the
 * columns where the two differ (`+44 020…` loses its national 0 only in the checked form). The second pass writes
 * marked columns the checked way and the others the quick way: both give the text the first pass validated, as long
 * as the raw values are the same (the caller's promise: the same item JSON, not an expression evaluated again).
 */
import type { PersonColumns, PersonField, PersonRow, RawPersonRow } from './fields';
import { FIELD_NORMALISERS } from './validation';
import { ATTRIBUTE_NORMALISERS, fieldText, type Invalid, isAbsent, isInvalid } from './values';

type Normaliser = (value: unknown) => string | Invalid;

const NON_DIGITS = /\D/g;

/** The digits of a value: the written form of a valid phone or CPF in the usual case. */
function quickDigits(value: unknown): string {
	return typeof value === 'string' ? value.replace(NON_DIGITS, '') : String(value);
}

/** Whether `quickDigits(value)` is `written`, without building it (the first pass asks this of every phone). */
function digitsAre(value: unknown, written: string): boolean {
	if (typeof value !== 'string') return quickDigits(value) === written;
	let at = 0;
	for (let i = 0; i < value.length; i++) {
		const code = value.charCodeAt(i);
		if (code < 48 || code > 57) continue;
		if (written.charCodeAt(at) !== code) return false;
		at++;
	}
	return at === written.length;
}

interface QuickWriter {
	write(value: unknown): string;
	/** Whether `write(value)` gives `written`. */
	gives(value: unknown, written: string): boolean;
}

/** The quick writers: their result is used only where the first pass found it equal to the checked form. */
const QUICK_WRITERS: Partial<Record<PersonField, QuickWriter>> = {
	CPF: {
		write: (value) => (typeof value === 'number' ? String(value).padStart(11, '0') : quickDigits(value)),
		gives: (value, written) => (typeof value === 'number' ? String(value).padStart(11, '0') === written : digitsAre(value, written)),
	},
	Email: {
		write: (value) => (typeof value === 'string' ? value.trim() : ''),
		gives: (value, written) => typeof value === 'string' && value.trim() === written,
	},
	Phone: { write: quickDigits, gives: digitsAre },
};

/** Per set of columns: how each field and attribute is written. */
interface WritePlan {
	/** Per field: its quick writer, or undefined when its checked form is already cheap (text is trimmed). */
	quick: Array<QuickWriter | undefined>;
	checked: Normaliser[];
	attributes: Normaliser[];
}

const plans = new WeakMap<PersonColumns, WritePlan>();

function planOf(columns: PersonColumns): WritePlan {
	let plan = plans.get(columns);
	if (!plan) {
		if (columns.fields.length > 31) throw new Error('More person fields than a recheck mask holds');
		plan = {
			quick: columns.fields.map((field) => QUICK_WRITERS[field]),
			checked: columns.fields.map((field) => FIELD_NORMALISERS[field] ?? fieldText),
			attributes: columns.attributes.map(({ type }) => ATTRIBUTE_NORMALISERS[type]),
		};
		plans.set(columns, plan);
	}
	return plan;
}

/**
 * Of a record and its validated form: the fields (bit i for field i) whose quick written form differs from the
 * validated one, to be written the checked way again. 0 for nearly every record.
 */
export function recheckMask(raw: RawPersonRow, row: PersonRow): number {
	const { quick } = planOf(raw.columns);
	let mask = 0;
	for (let i = 0; i < quick.length; i++) {
		const writer = quick[i];
		if (writer === undefined) continue;
		const value = raw.fields[i];
		if (isAbsent(value)) continue;
		if (!writer.gives(value, row.fields[i] ?? '')) mask |= 1 << i;
	}
	return mask;
}

/** A record that changed since it was validated: the second pass found a value the first one did not see. */
export class RecordChangedError extends Error {
	constructor(
		readonly itemIndex: number,
		readonly field: string,
		reason: string,
	) {
		super(`The record of item ${itemIndex} changed after it was checked: ${field} ${reason}`);
		this.name = 'RecordChangedError';
	}
}

/**
 * The written form of a record that `validatePersonRow` accepted, given the mask `recheckMask` gave for it: the
 * same text, without the checks. The key configuration is not needed: keys and names are only about presence.
 */
export function writeCheckedRow(raw: RawPersonRow, recheck: number, itemIndex: number): PersonRow {
	const { columns } = raw;
	const plan = planOf(columns);
	const fields = new Array<string | undefined>(columns.fields.length);
	for (let i = 0; i < fields.length; i++) {
		const value = raw.fields[i];
		if (isAbsent(value)) continue;
		const quick = plan.quick[i];
		let text: string;
		if (quick !== undefined && (recheck & (1 << i)) === 0) text = quick.write(value);
		else {
			const result = plan.checked[i](value);
			if (isInvalid(result)) throw new RecordChangedError(itemIndex, columns.fields[i], result.reason);
			text = result;
		}
		if (text !== '') fields[i] = text;
	}
	const attributes = new Array<string | undefined>(columns.attributes.length);
	for (let i = 0; i < attributes.length; i++) {
		const value = raw.attributes[i];
		if (isAbsent(value)) continue;
		const result = plan.attributes[i](value);
		if (isInvalid(result)) throw new RecordChangedError(itemIndex, columns.attributes[i].name, result.reason);
		attributes[i] = result;
	}
	return { columns, fields, attributes };
}
