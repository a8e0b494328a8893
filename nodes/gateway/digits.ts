/**
 * The ASCII digits of a text as a new string, built from their character codes: for the phones of a person file
 * (`+55 11 9…`), about half the cost of `replace(/\D/g, '')` as measured, and a flat string for the patterns and
 * writers that read it next (concatenated runs would give a rope that each of them flattens). Pure: no n8n imports.
 */

const NON_DIGITS = /\D/g;

/** Texts with more digits than this (no phone or CPF) are read by a replace. */
export const MAX_GATHERED_DIGITS = 31;

/**
 * Scratch space, not state: the caller of digitsOfScannedText writes the codes of the digits it found here (the first
 * MAX_GATHERED_DIGITS of them) and reads them back through digitsOfScannedText within the same synchronous call.
 */
export const gatheredDigits = new Array<number>(MAX_GATHERED_DIGITS).fill(48);

/** Per digit count n, an array of n codes for String.fromCharCode: scratch space, filled within one call. */
const codesOfLength = Array.from({ length: MAX_GATHERED_DIGITS + 1 }, (_, n) => new Array<number>(n).fill(48));

/**
 * The digits of `text`, whose scan (the caller's, in this synchronous call) wrote the codes of its first digits into
 * gatheredDigits and found `count` digits in all: built from those codes, or by a replace when there were more than
 * gatheredDigits holds.
 */
export function digitsOfScannedText(text: string, count: number): string {
	return count > MAX_GATHERED_DIGITS ? text.replace(NON_DIGITS, '') : digitsGathered(count);
}

/** The text of the first `count` (at most MAX_GATHERED_DIGITS) codes in gatheredDigits. */
function digitsGathered(count: number): string {
	const c = gatheredDigits;
	// The usual counts of phones (11 to 13 digits with the country code) and CPFs (11) by a call of their arity,
	// which costs less than an apply.
	switch (count) {
		case 11:
			return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10]);
		case 12:
			return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11]);
		case 13:
			return String.fromCharCode(c[0], c[1], c[2], c[3], c[4], c[5], c[6], c[7], c[8], c[9], c[10], c[11], c[12]);
	}
	const codes = codesOfLength[count];
	for (let i = 0; i < count; i++) codes[i] = c[i];
	return String.fromCharCode.apply(null, codes);
}


/** The ASCII digits of `text` (what `text.replace(/\D/g, '')` gives); the text itself when it is only digits. */
export function asciiDigitsOf(text: string): string {
	// Text of digits only is common (phones and CPFs written bare): a scan that gathers nothing tells it.
	let firstOther = 0;
	while (firstOther < text.length && isDigit(text.charCodeAt(firstOther))) firstOther++;
	if (firstOther === text.length) return text;
	let count = 0;
	for (let i = 0; i < text.length; i++) {
		const code = text.charCodeAt(i);
		if (isDigit(code)) {
			if (count < MAX_GATHERED_DIGITS) gatheredDigits[count] = code;
			count++;
		}
	}
	return digitsOfScannedText(text, count);
}

function isDigit(code: number): boolean {
	return code >= 48 && code <= 57;
}
