/**
 * Quick writers of the key fields: the written form of a valid Email, Phone or CPF in the usual case, without its
 * checks (the numbering plan, the e-mail's form, the check digits). Used only where a first pass found the quick form
 * equal to the checked one (see checkedRows.ts): `+44 020…` loses its national 0 and `0055…` its `00` only when checked.
 */
import type { PersonField } from './fields';

/** The digits of a value: the written form of a valid phone or CPF in the usual case. */
function quickDigits(value: unknown): string {
	return typeof value === 'string' ? value.replace(/\D/g, '') : String(value);
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

export interface QuickWriter {
	write(value: unknown): string;
	/** Whether `write(value)` gives `written`. */
	gives(value: unknown, written: string): boolean;
}

const cpfOfNumber = (value: number) => String(value).padStart(11, '0');

export const QUICK_WRITERS: Partial<Record<PersonField, QuickWriter>> = {
	CPF: {
		write: (value) => (typeof value === 'number' ? cpfOfNumber(value) : quickDigits(value)),
		gives: (value, written) => (typeof value === 'number' ? cpfOfNumber(value) === written : digitsAre(value, written)),
	},
	Email: {
		write: (value) => (typeof value === 'string' ? value.trim() : ''),
		gives: (value, written) => typeof value === 'string' && value.trim() === written,
	},
	Phone: { write: quickDigits, gives: digitsAre },
};
