/**
 * Phone numbers as people type them, to the international digits the gateway takes (E.164 without the `+`).
 * The one module that uses libphonenumber-js, through its public API only (parsePhoneNumberFromString, isValid,
 * validatePhoneNumberLength). Its `max` metadata is used: the smaller `min` metadata cannot tell a number of a
 * country's plan from an invented one (`+55 11 0000-0000` passes it).
 *
 * A number with `+` or `00` is international. A number of digits only is read as a national number of the Default
 * Country when one is set (`(11) 98888-7777` with BR is +55 11 98888-7777, not +1 198…), else as international
 * digits (`5511988887777`). What is not a valid number of its country's plan is refused with the reason; nothing is
 * guessed. Invented numbers, for a message recipient and a person's Phone alike (docs/phone-numbers.md): only
 * subscriber digits of one digit repeated (`+55 11 99999-9999`), which no plan issues; runs such as `98765-4321` are
 * real numbers. Pure: no n8n imports.
 *
 * The package has no runtime dependencies (n8n Cloud installs none): libphonenumber-js is a devDependency, and the
 * build replaces this module's compiled file by a bundle of it with the library inlined (gulpfile.js), so that no
 * other module imports the library. It imports no module of ours, which the bundle would copy. Only what is used is
 * imported, so that the bundle leaves out the rest (its as-you-type formatter logs to the console, which n8n's
 * package scan refuses).
 */
import {
	getCountryCallingCode,
	getExampleNumber,
	isSupportedCountry,
	parsePhoneNumberFromString,
	validatePhoneNumberLength,
} from 'libphonenumber-js/max';
import type { CountryCode, PhoneNumber } from 'libphonenumber-js/max';
/** The library's example mobile number of each country (a few kB): the form a refused number is shown. */
import mobileExamples from 'libphonenumber-js/mobile/examples';

export type { CountryCode };

/** The digits to send, or why the number is refused: a predicate without the number (`is an invented number`). */
export type PhoneCheck = { digits: string } | { problem: string };

export interface PhoneCheckOptions {
	/** The country of numbers written without their country code. */
	defaultCountry?: CountryCode;
	/** What to do about a national number when there is no Default Country; by default, set one. */
	nationalHint?: string;
}

const DEFAULT_COUNTRY_HINT =
	"write it with + and the country code, or set Default Country in the credential or the node's Default Country field to read national numbers";

/** Characters people put around the digits of a number. */
const NUMBER_TEXT = /^\+?[\d\s().\-/]+$/;

/** How many trailing digits of the national number are checked for invented patterns: the subscriber's. */
const SUBSCRIBER_DIGITS = 8;

const EXAMPLE = 'e.g. +55 11 98888-7777';
const REPEATED_PROBLEM = 'is an invented number (one digit repeated), not a real phone number';

const ASCENDING = '01234567890123456789';
const DESCENDING = '98765432109876543210';

/** Two or more digits, all the same (`99999999`). */
export function isOneDigitRepeated(digits: string): boolean {
	return /^(\d)\1+$/.test(digits);
}

/**
 * Invented digits of person rule 4 for a CPF (persons/values.ts): one digit repeated (`11111111`) or a run up or down (`12345678`, `98765432`,
 * wrapping after 9 or 0 as in `90123456`).
 */
export function isInventedNumber(digits: string): boolean {
	return isOneDigitRepeated(digits) || ASCENDING.includes(digits) || DESCENDING.includes(digits);
}

/**
 * The Default Country setting: an ISO 3166 code such as `BR` (any letter case), or undefined when empty.
 * Returns `{ problem }` for a code that is not a country with a numbering plan.
 */
export function readDefaultCountry(value: unknown): { country: CountryCode | undefined } | { problem: string } {
	if (value === undefined || value === null) return { country: undefined };
	if (typeof value !== 'string') return { problem: 'must be a two-letter country code such as BR or US' };
	const code = value.trim().toUpperCase();
	if (code === '') return { country: undefined };
	if (!/^[A-Z]{2}$/.test(code) || !isSupportedCountry(code)) {
		return { problem: `"${value.trim()}" is not a country code; use a two-letter ISO code such as BR, US or PT` };
	}
	return { country: code };
}

/** The international digits of a number, or why it is refused. `input` is text or a number from an expression. */
export function checkPhone(input: unknown, options: PhoneCheckOptions = {}): PhoneCheck {
	let raw: string;
	if (typeof input === 'string') raw = input.trim();
	else if (typeof input === 'number' && Number.isSafeInteger(input) && input > 0) raw = String(input);
	else if (input === undefined || input === null) raw = '';
	else return { problem: `must be a phone number as text, got ${describeValue(input)}` };

	if (raw === '') return { problem: `is empty; enter the number with its country code, ${EXAMPLE}` };
	if (!NUMBER_TEXT.test(raw)) {
		return {
			problem: `is not a phone number; use digits with the country code, ${EXAMPLE} (spaces, dashes and brackets are fine)`,
		};
	}
	const digits = raw.replace(/\D/g, '');
	if (raw.startsWith('+')) return international(digits);
	if (digits.startsWith('00')) return international(digits.slice(2));
	if (options.defaultCountry) return nationalOrInternational(raw, digits, options.defaultCountry);
	const hint = options.nationalHint ?? DEFAULT_COUNTRY_HINT;
	if (digits.startsWith('0')) return { problem: `looks like a national number (it starts with 0); ${hint}` };
	const number = parse(`+${digits}`);
	if (number?.isValid()) return notInvented(number);
	return { problem: `is not a valid international number; if it is a national number, ${hint}` };
}

/** A refused number's problem with the number in front, as people read it: `"+55 11 0000-0000" is not a valid…`. */
export function phoneProblemText(input: unknown, problem: string): string {
	const shown = typeof input === 'string' ? input.trim() : typeof input === 'number' ? String(input) : '';
	return shown === '' ? problem : `"${shown}" ${problem}`;
}

/**
 * Digits only and a Default Country: national if valid there, else international. Digits valid both ways as
 * different numbers are refused, unless written the national way: a trunk prefix 0 or an area code in brackets.
 */
function nationalOrInternational(raw: string, digits: string, country: CountryCode): PhoneCheck {
	const national = parse(digits, country);
	const writtenNationally = digits.startsWith('0') || raw.startsWith('(');
	const international = writtenNationally ? undefined : parse(`+${digits}`);
	const nationalValid = national?.isValid() === true;
	const internationalValid = international?.isValid() === true;
	if (nationalValid && internationalValid && national.number !== international.number) {
		return {
			problem: `may be ${national.number} (a national number of ${country}) or ${international.number}; write it with + and the country code`,
		};
	}
	if (nationalValid) return notInvented(national);
	if (internationalValid) return notInvented(international);
	return { problem: planProblem(national ?? undefined, country) };
}

/** `digits`: the international digits, without `+` or `00`. */
function international(digits: string): PhoneCheck {
	const number = parse(`+${digits}`);
	if (!number) {
		const known = /^[1-9]/.test(digits) && digits.length > 3;
		return {
			problem: known
				? `does not start with a known country code; ${EXAMPLE}`
				: `is too short for a phone number with its country code; ${EXAMPLE}`,
		};
	}
	if (!number.isValid()) return { problem: planProblem(number) };
	return notInvented(number);
}

/**
 * The library's reading of digits (with `+` when international): strict (`extract: false`), as the text is already
 * known to be only a number; it also spares the search for a number inside text.
 */
function parse(digits: string, defaultCountry?: CountryCode): PhoneNumber | undefined {
	return parsePhoneNumberFromString(digits, { defaultCountry, extract: false });
}

/** A valid number's digits, unless its subscriber digits are one digit repeated (invented). */
function notInvented(number: PhoneNumber): PhoneCheck {
	const subscriber = String(number.nationalNumber).slice(-SUBSCRIBER_DIGITS);
	if (isOneDigitRepeated(subscriber)) return { problem: REPEATED_PROBLEM };
	return { digits: number.number.slice(1) };
}

/**
 * Why a parsed number is not in its country's plan: its length when that is the reason (the library's
 * validatePhoneNumberLength), a missing area code or one digit too few when adding them makes a valid number, else
 * the plan itself; with the country's example number, the form people compare theirs with.
 */
function planProblem(number: PhoneNumber | undefined, country?: CountryCode): string {
	const where = number?.country ?? country;
	const plan = where ? `${where} (+${getCountryCallingCode(where)})` : `country code +${number?.countryCallingCode ?? '?'}`;
	const example = where ? getExampleNumber(where, mobileExamples) : undefined;
	const like = example ? `, e.g. ${example.formatInternational()}` : '';
	if (number) {
		const length = validatePhoneNumberLength(number.number);
		if (length === 'TOO_SHORT') return `has too few digits for a number of ${plan}${like}`;
		if (length === 'TOO_LONG') return `has too many digits for a number of ${plan}${like}`;
		if (length === 'INVALID_LENGTH') return `has a digit count no number of ${plan} has${like}`;
		const missing = example ? missingDigits(number, String(example.nationalNumber).length) : undefined;
		if (missing === 'areaCode') return `is missing its area code: a number of ${plan} has it in front${like}`;
		if (missing === 'digit') return `has too few digits: one is missing for a number of ${plan}${like}`;
	}
	return `is not a valid number of ${plan}: no number of its numbering plan starts this way${like}`;
}

/**
 * Whether a number shorter than the country's example is a real number with digits left out: two or three in front
 * (an area code: `98888-7777` in BR), or one anywhere (`11 98888-777`, the old 8-digit mobile `11 8888-7777`). A
 * candidate counts only when valid and not invented. At most 1,000 + 10 per digit readings, for refused numbers only.
 */
function missingDigits(number: PhoneNumber, exampleLength: number): 'areaCode' | 'digit' | undefined {
	const national = String(number.nationalNumber);
	const missing = exampleLength - national.length;
	// One digit repeated is invented whatever its length (`+55 99999-9999`).
	if (missing < 1 || isOneDigitRepeated(national)) return undefined;
	const real = (digits: string) => {
		const candidate = parse(`+${number.countryCallingCode}${digits}`);
		return candidate?.isValid() === true && !isOneDigitRepeated(digits.slice(-SUBSCRIBER_DIGITS));
	};
	if (missing === 2 || missing === 3) {
		for (let prefix = 0; prefix < 10 ** missing; prefix++) {
			if (real(String(prefix).padStart(missing, '0') + national)) return 'areaCode';
		}
	}
	for (let at = 0; at <= national.length; at++) {
		for (let digit = 0; digit <= 9; digit++) {
			if (real(`${national.slice(0, at)}${digit}${national.slice(at)}`)) return 'digit';
		}
	}
	return undefined;
}

function describeValue(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	return typeof value;
}
