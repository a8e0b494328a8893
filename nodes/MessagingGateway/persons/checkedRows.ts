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
import type { PersonRow, RawPersonRow } from './fields';
import { normaliseField, type ReusableRow, writingPlanOf } from './validation';
import { isAbsent, isInvalid, normaliseAttribute } from './values';

/** Bits of a recheck mask, one per field: callers keep masks in a Uint16Array (a person file has 11 fields). */
export const RECHECK_MASK_BITS = 16;

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
 * The written form of a record that `validatePersonRow` accepted, given the mask `checkPersonRow` gave for it: the
 * same text, without the checks. The key configuration is not needed: keys and names are only about presence. With
 * `reuse`, that record is filled and returned (its columns must be the raw record's).
 */
export function writeCheckedRow(raw: RawPersonRow, recheck: number, itemIndex: number, reuse?: ReusableRow): PersonRow {
	const { columns } = raw;
	if (columns.fields.length > RECHECK_MASK_BITS) throw new Error('More person fields than a recheck mask holds');
	const plan = writingPlanOf(columns);
	const fields = reuse?.fields ?? new Array<string | undefined>(columns.fields.length);
	for (let i = 0; i < fields.length; i++) {
		const value = raw.fields[i];
		fields[i] = undefined;
		if (isAbsent(value)) continue;
		const quick = plan.quickWriters[i];
		let text: string;
		if (quick !== undefined && (recheck & (1 << i)) === 0) text = quick.write(value);
		else {
			const result = normaliseField(columns.fields[i], value);
			if (isInvalid(result)) throw new RecordChangedError(itemIndex, columns.fields[i], result.reason);
			text = result;
		}
		if (text !== '') fields[i] = text;
	}
	const attributes = reuse?.attributes ?? new Array<string | undefined>(columns.attributes.length);
	for (let i = 0; i < attributes.length; i++) {
		const value = raw.attributes[i];
		attributes[i] = undefined;
		if (isAbsent(value)) continue;
		const result = normaliseAttribute(columns.attributes[i].type, value);
		if (isInvalid(result)) throw new RecordChangedError(itemIndex, columns.attributes[i].name, result.reason);
		attributes[i] = result;
	}
	return reuse ?? { columns, fields, attributes };
}

