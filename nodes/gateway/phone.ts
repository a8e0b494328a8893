/**
 * Phone numbers as people type them, to the international digits the gateway takes (E.164 without the `+`).
 * The one module that uses libphonenumber-js. Its `max` metadata is used: the smaller `min` metadata cannot tell a
 * number of a country's plan from an invented one (`+55 11 0000-0000` passes it).
 *
 * A number with `+` or `00` is international. A number of digits only is read as a national number of the Default
 * Country when one is set (`(11) 98888-7777` with BR is +55 11 98888-7777, not +1 198…), else as international
 * digits (`5511988887777`). What is not a valid number of its country's plan, or is an invented one, is refused
 * with the reason; nothing is guessed. Pure: no n8n imports.
 */
import {
	getCountryCallingCode,
	isSupportedCountry,
	libphonenumberCore,
	maxMetadata,
	parsePhoneNumberFromString,
	validatePhoneNumberLength,
} from './libphonenumber';
import type { CountryCode, PhoneNumber } from './libphonenumber';

import { asciiDigitsOf, digitsOfScannedText, gatheredDigits, MAX_GATHERED_DIGITS } from './digits';

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
	'write it with + and the country code, or set Default Country in the credential (or the node option) to read national numbers';

/** Characters people put around the digits of a number. */
const NUMBER_TEXT = /^\+?[\d\s().\-/]+$/;

/** ASCII characters NUMBER_TEXT allows around the digits: space ( ) . - / and tab to CR. */
function isAsciiNumberMark(code: number): boolean {
	return code === 32 || code === 40 || code === 41 || code === 46 || code === 45 || code === 47 || (code >= 9 && code <= 13);
}

/**
 * The digits of text that NUMBER_TEXT accepts, or undefined for other text. One scan for the usual ASCII text (it
 * runs for every phone of a person file) that also gathers the digits (see digits.ts; as asciiDigitsOf, but in the
 * scan that checks the text): digits-only text is taken as it is. Other text goes the RegExp way, which knows Unicode
 * white space.
 */
function digitsOfNumberText(raw: string): string | undefined {
	let onlyDigits = true;
	let ascii = true;
	let digitCount = 0;
	for (let i = 0; i < raw.length && ascii; i++) {
		const code = raw.charCodeAt(i);
		if (code >= 48 && code <= 57) {
			if (digitCount < MAX_GATHERED_DIGITS) gatheredDigits[digitCount] = code;
			digitCount++;
		} else if (code === 43 /* + */ && i === 0) onlyDigits = false;
		else if (isAsciiNumberMark(code)) onlyDigits = false;
		else if (code < 128) return undefined;
		else ascii = false;
	}
	if (ascii) {
		// `+` alone (or with only marks) is not number text: NUMBER_TEXT wants a character after the `+`.
		if (raw.length === 1 && raw.charCodeAt(0) === 43) return undefined;
		if (onlyDigits) return raw;
		return digitsOfScannedText(raw, digitCount);
	}
	return NUMBER_TEXT.test(raw) ? asciiDigitsOf(raw) : undefined;
}

const ASCENDING = '01234567890123456789';
const DESCENDING = '98765432109876543210';

/**
 * Invented numbers (person rule 4): one digit repeated (`11111111`) or a run (`12345678`, `98765432`, wrapping
 * after 9 or 0 as in ASCENDING and DESCENDING). One pass over the characters: it runs for every phone and CPF.
 * `from`: where the digits to check start (`isInventedNumber(text, from)` is `isInventedNumber(text.slice(from))`
 * for 0 <= from <= text.length, without the copy).
 */
export function isInventedNumber(digits: string, from = 0): boolean {
	const length = digits.length - from;
	if (length <= 0) return true; // as ''.includes: the empty text is in every run
	const first = digits.charCodeAt(from) - 48;
	if (first < 0 || first > 9) return false;
	let repeated = length >= 2;
	// How long a run from `first` can be and still be a part of ASCENDING or DESCENDING.
	let ascending = length <= ASCENDING.length - first;
	let descending = length <= DESCENDING.length - (9 - first);
	let previous = first;
	for (let i = from + 1; i < digits.length; i++) {
		const digit = digits.charCodeAt(i) - 48;
		if (digit < 0 || digit > 9) return false;
		if (digit !== previous) repeated = false;
		if (digit !== (previous === 9 ? 0 : previous + 1)) ascending = false;
		if (digit !== (previous === 0 ? 9 : previous - 1)) descending = false;
		// Most numbers are none of the three after two digits: nothing that follows can make it true again.
		if (!(repeated || ascending || descending)) return false;
		previous = digit;
	}
	return repeated || ascending || descending;
}

/** How many trailing digits of the national number are checked for invented patterns (as person rule 4 does). */
const INVENTED_TAIL = 8;

const EXAMPLE = 'e.g. +55 11 98888-7777';
const INVENTED_PROBLEM = 'is an invented number (repeated or consecutive digits), not a real phone number';

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
	const digits = digitsOfNumberText(raw);
	if (digits === undefined) {
		return {
			problem: `is not a phone number; use digits with the country code, ${EXAMPLE} (spaces, dashes and brackets are fine)`,
		};
	}
	// charCodeAt rather than startsWith: this runs for every phone of a person file.
	if (raw.charCodeAt(0) === 43 /* + */) return checked(digits);
	if (digits.charCodeAt(0) === 48 && digits.charCodeAt(1) === 48 /* 00 */) return checked(digits.slice(2));
	if (options.defaultCountry) return nationalOrInternational(raw, digits, options.defaultCountry);
	return withoutCountry(digits, options.nationalHint ?? DEFAULT_COUNTRY_HINT);
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
	const national = parsePhoneNumberFromString(digits, country);
	const writtenNationally = digits.startsWith('0') || raw.startsWith('(');
	const international = writtenNationally ? undefined : parsePhoneNumberFromString(`+${digits}`);
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

/** Digits only and no Default Country: international digits, or refused with the hint to set a Default Country. */
function withoutCountry(digits: string, hint: string): PhoneCheck {
	if (digits.charCodeAt(0) === 48 /* 0 */) return { problem: `looks like a national number (it starts with 0); ${hint}` };
	const fast = fastCheck(digits);
	if (fast !== undefined) return fast;
	const international = parsePhoneNumberFromString(`+${digits}`);
	if (international?.isValid()) return notInvented(international);
	return { problem: `is not a valid international number; if it is a national number, ${hint}` };
}

/** `digits`: the international digits, without `+` or `00`. */
function checked(digits: string): PhoneCheck {
	const fast = fastCheck(digits);
	if (fast !== undefined) return fast;
	const international = `+${digits}`;
	const number = parsePhoneNumberFromString(international);
	if (!number) {
		const known = /^\+[1-9]/.test(international) && international.length > 4;
		return {
			problem: known
				? `does not start with a known country code; ${EXAMPLE}`
				: `is too short for a phone number with its country code; ${EXAMPLE}`,
		};
	}
	if (!number.isValid()) return { problem: planProblem(number) };
	return notInvented(number);
}

function notInvented(number: PhoneNumber): PhoneCheck {
	const national = String(number.nationalNumber);
	if (isInventedNumber(national.slice(-INVENTED_TAIL))) return { problem: INVENTED_PROBLEM };
	return { digits: number.number.slice(1) };
}

/** Why a parsed number is not in its country's plan: its length when that is the reason, else the plan itself. */
function planProblem(number: PhoneNumber | undefined, country?: CountryCode): string {
	const where = number?.country ?? country;
	const plan = where ? `${where} (+${getCountryCallingCode(where)})` : `country code +${number?.countryCallingCode ?? '?'}`;
	if (number) {
		const length = validatePhoneNumberLength(number.number);
		if (length === 'TOO_SHORT') return `has too few digits for a number of ${plan}`;
		if (length === 'TOO_LONG') return `has too many digits for a number of ${plan}`;
		if (length === 'INVALID_LENGTH') return `has a digit count no number of ${plan} has`;
	}
	return `is not a valid number of ${plan}: no number of its numbering plan starts this way`;
}

function describeValue(value: unknown): string {
	if (Array.isArray(value)) return 'a list';
	if (typeof value === 'object') return 'an object';
	return typeof value;
}

// ---- The fast path for international digits ----
//
// libphonenumber-js spends most of its time per number on reading text (extensions, punctuation, option objects) and
// on building each pattern's RegExp anew. For `+` and digits only, the steps that decide its verdict are few: the
// calling code, the national prefix, the country, the plan's patterns. `fastCheck` takes those steps with the same
// metadata and the same patterns, compiled once per calling code, and answers only where they are this simple: a
// calling code of one country, no national prefix to strip, a number valid for the plan. Anything else (an invalid
// number, whose reason the full parse gives; a shared calling code such as +1) goes the full way. The unit test
// compares both ways over every country's numbers.

/** What the fast path needs of libphonenumber's Metadata class (exported by its core, untyped there). */
interface PlanReader {
	hasCallingCode(callingCode: string): boolean | undefined;
	getCountryCodesForCallingCode(callingCode: string): string[] | undefined;
	selectNumberingPlan(callingCode: string): PlanReader;
	numberingPlan: {
		nationalNumberPattern(): string;
		nationalPrefixForParsing(): string | undefined;
		hasTypes(): boolean;
		type(type: string): { pattern(): string; possibleLengths(): number[] | undefined } | undefined;
	};
}

const { Metadata } = libphonenumberCore as unknown as { Metadata: new (metadata: unknown) => PlanReader };

/** libphonenumber's order: fixed line, then the other types (getNumberType); any match makes a number valid. */
const NUMBER_TYPES = ['FIXED_LINE', 'MOBILE', 'PREMIUM_RATE', 'TOLL_FREE', 'SHARED_COST', 'VOIP', 'PERSONAL_NUMBER', 'PAGER', 'UAN', 'VOICEMAIL'];
/** libphonenumber's bounds of a national number and of a calling code. */
const MIN_NATIONAL_LENGTH = 2;
const MAX_NATIONAL_LENGTH = 17;
const MAX_CALLING_CODE_LENGTH = 3;

/**
 * A plan's patterns, folded into one sticky (`y`) pattern per number type: it is tried on the international digits
 * from the national number's start (its lastIndex), which is how libphonenumber tries each pattern on the national
 * number alone, without cutting it out (the metadata's patterns use no `^`, `\b` or lookbehind, which would tell the
 * two apart). One test instead of three: `(?!prefix)(?=national$)type$`, that is no national prefix to strip (such
 * numbers go the full way), the national number's pattern, and the type's.
 */
interface FastPlan {
	/** One per type of the plan. */
	types: Array<{ lengths: number[] | undefined; pattern: RegExp }>;
}

/** Calling code → its compiled plan, or null when it has no single country (the full parse decides there). */
const fastPlans = new Map<string, FastPlan | null>();

/** One reader for all lookups: selectNumberingPlan changes its selection, read at once below. */
const metadata = new Metadata(maxMetadata);

function fastPlanOf(callingCode: string): FastPlan | null {
	let plan = fastPlans.get(callingCode);
	if (plan !== undefined) return plan;
	plan = null;
	if (metadata.getCountryCodesForCallingCode(callingCode)?.length === 1) {
		const numbering = metadata.selectNumberingPlan(callingCode).numberingPlan;
		const prefix = numbering.nationalPrefixForParsing();
		const notPrefixed = prefix ? `(?!(?:${prefix}))` : '';
		const national = `(?:${numbering.nationalNumberPattern()})$`;
		// A plan without types (none in the max metadata) gets none here: the full parse decides its numbers.
		const types: FastPlan['types'] = [];
		for (const name of numbering.hasTypes() ? NUMBER_TYPES : []) {
			const type = numbering.type(name);
			if (!type || !type.pattern()) continue;
			types.push({ lengths: type.possibleLengths(), pattern: new RegExp(`${notPrefixed}(?=${national})(?:${type.pattern()})$`, 'y') });
		}
		plan = { types };
	}
	fastPlans.set(callingCode, plan);
	return plan;
}

/** The first digits of a number → its calling code (the shortest known prefix, as libphonenumber takes it), or null. */
function callingCodeOf(leadingDigits: string): string | null {
	for (let length = 1; length <= leadingDigits.length; length++) {
		if (metadata.hasCallingCode(leadingDigits.slice(0, length))) return leadingDigits.slice(0, length);
	}
	return null;
}

/**
 * The verdict for `+digits` (given without the `+`) when it is valid and the steps that decide it are simple (see
 * above); undefined when the full parse must decide.
 */
export function fastCheck(digits: string): PhoneCheck | undefined {
	if (digits.charCodeAt(0) === 48 /* 0 */) return undefined;
	const lead = leadOf(digits);
	if (lead === null) return undefined;
	const { callingCode, plan } = lead;
	if (plan === null) return undefined;
	// The national number: digits from `nationalStart` to the end.
	const nationalStart = callingCode.length;
	const nationalLength = digits.length - nationalStart;
	if (nationalLength < MIN_NATIONAL_LENGTH || nationalLength > MAX_NATIONAL_LENGTH) return undefined;
	if (!matchesAType(plan.types, digits, nationalStart)) return undefined;
	if (isInventedNumber(digits, Math.max(nationalStart, digits.length - INVENTED_TAIL))) return { problem: INVENTED_PROBLEM };
	return { digits };
}

/**
 * Whether the national number (the digits from `nationalStart`) is valid as one of the plan's types (any one makes
 * it valid, so the order does not matter): the type that matched last is tried first next time, as a file's numbers
 * are mostly of one type.
 */
function matchesAType(types: FastPlan['types'], digits: string, nationalStart: number): boolean {
	const nationalLength = digits.length - nationalStart;
	for (let t = 0; t < types.length; t++) {
		const { lengths, pattern } = types[t];
		if (lengths !== undefined && !lengths.includes(nationalLength)) continue;
		pattern.lastIndex = nationalStart;
		if (pattern.test(digits)) {
			if (t > 0) [types[0], types[t]] = [types[t], types[0]];
			return true;
		}
	}
	return false;
}

/** The calling code of a number and its plan, per first three digits (000-999): read once each, here only. */
const leads = new Array<{ callingCode: string; plan: FastPlan | null } | null | undefined>(1000);

function leadOf(digits: string): { callingCode: string; plan: FastPlan | null } | null {
	if (digits.length < MAX_CALLING_CODE_LENGTH) return null;
	const key = (digits.charCodeAt(0) - 48) * 100 + (digits.charCodeAt(1) - 48) * 10 + (digits.charCodeAt(2) - 48);
	if (!(key >= 0 && key < 1000)) return null;
	let lead = leads[key];
	if (lead === undefined) {
		const callingCode = callingCodeOf(digits.slice(0, MAX_CALLING_CODE_LENGTH));
		lead = callingCode === null ? null : { callingCode, plan: fastPlanOf(callingCode) };
		leads[key] = lead;
	}
	return lead;
}
