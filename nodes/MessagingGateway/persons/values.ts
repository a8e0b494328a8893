/**
 * Single values of a person record: when a value counts as absent, what a key value must look like (rule 4) and the
 * written form of each custom attribute type (rule 5). Each normaliser returns the exact text to write, or an
 * `Invalid` with a reason a user can act on. Shared by type inference (mapping.ts) and validation (validation.ts).
 */
import { checkPhone, type CountryCode, isInventedNumber } from '../../gateway/phone';
import type { AttributeType } from './fields';

export interface Invalid {
	readonly invalid: true;
	readonly reason: string;
}

function invalid(reason: string): Invalid {
	return { invalid: true, reason };
}

export function isInvalid(result: string | Invalid): result is Invalid {
	return typeof result !== 'string';
}

/** `undefined`, `null` and strings that are empty after trimming carry no value: the column stays empty. */
export function isAbsent(value: unknown): boolean {
	if (value === undefined || value === null) return true;
	return typeof value === 'string' && value.trim() === '';
}

/** A short, printable excerpt of a value for a violation report. */
export function excerpt(value: unknown, maxLength = 40): string {
	let text: string;
	if (typeof value === 'string') text = value;
	else if (value instanceof Date) text = Number.isNaN(value.getTime()) ? 'Invalid Date' : value.toISOString();
	else if (typeof value === 'object' && value !== null) text = JSON.stringify(value);
	else text = String(value);
	return text.length > maxLength ? `${text.slice(0, maxLength - 1)}…` : text;
}

// ---- Key fields (rule 4) ----

/** Words and marks that people type into a key column when they do not know the value. Compared lowercase. */
const PLACEHOLDERS = new Set([
	'null',
	'undefined',
	'nil',
	'none',
	'nan',
	'n/a',
	'#n/a',
	'na',
	'n.a.',
	'n.a',
	'unknown',
	'desconhecido',
	'desconhecida',
	'nao informado',
	'não informado',
	'nao possui',
	'não possui',
	'sem',
	'empty',
	'vazio',
	'(vazio)',
	'0',
	'x',
	'xx',
	'xxx',
]);
/** Only dashes, dots, question marks, asterisks and the like: `-`, `--`, `...`, `?`. */
const ONLY_MARKS = /^[\s\-_.?*#/\\]+$/;

/** A placeholder word or only marks, in any letter case (`N/A`, `(vazio)` would be added to PLACEHOLDERS). */
export function isPlaceholder(text: string): boolean {
	const lower = text.trim().toLowerCase();
	return lower === '' || PLACEHOLDERS.has(lower) || ONLY_MARKS.test(lower);
}

/** Text of a person field: strings trimmed, numbers as digits; anything else is not text. */
export function fieldText(value: unknown): string | Invalid {
	if (typeof value === 'string') return value.trim();
	if (typeof value === 'number' && Number.isFinite(value)) return String(value);
	if (typeof value === 'bigint') return String(value);
	return invalid('must be text');
}

/**
 * CPF: 11 digits with valid check digits; dots, dashes, slashes and spaces are allowed in the input and removed. A CPF
 * that arrives as a number (a spreadsheet column formatted as number) lost its leading zeros: they are put back.
 */
export function normaliseCpf(value: unknown): string | Invalid {
	let text: string;
	if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) text = String(value).padStart(11, '0');
	else if (typeof value === 'string') text = value.trim();
	else return invalid('must be text');
	if (isPlaceholder(text)) return invalid('is a placeholder, not a CPF');
	if (!/^[\d.\-/\s]+$/.test(text)) return invalid('must hold only digits (dots and dashes allowed)');
	const digits = text.replace(/\D/g, '');
	if (digits.length !== 11) return invalid(`must have 11 digits, has ${digits.length}`);
	if (isInventedNumber(digits) || isInventedNumber(digits.slice(0, 9))) return invalid('is an invented number');
	if (!hasValidCpfCheckDigits(digits)) return invalid('has wrong check digits');
	return digits;
}

function hasValidCpfCheckDigits(digits: string): boolean {
	const checkDigit = (length: number): number => {
		let sum = 0;
		for (let i = 0; i < length; i++) sum += (digits.charCodeAt(i) - 48) * (length + 1 - i);
		return ((sum * 10) % 11) % 10;
	};
	return checkDigit(9) === digits.charCodeAt(9) - 48 && checkDigit(10) === digits.charCodeAt(10) - 48;
}

const EMAIL =
	/^[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+(?:\.[\p{L}\p{N}!#$%&'*+/=?^_`{|}~-]+)*@(?:[\p{L}\p{N}](?:[\p{L}\p{N}-]*[\p{L}\p{N}])?\.)+\p{L}{2,}$/u;

/** EMAIL restricted to ASCII letters and digits, which most addresses are: a much cheaper match, tried first. */
const ASCII_EMAIL =
	/^[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+(?:\.[A-Za-z0-9!#$%&'*+/=?^_`{|}~-]+)*@(?:[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?\.)+[A-Za-z]{2,}$/;

/** E-mail of valid form (`local@domain.tld`), trimmed, kept as given otherwise. */
export function normaliseEmail(value: unknown): string | Invalid {
	if (typeof value !== 'string') return invalid('must be text');
	const text = value.trim();
	if (isPlaceholder(text)) return invalid('is a placeholder, not an e-mail');
	if (text.length > 254 || !(ASCII_EMAIL.test(text) || EMAIL.test(text))) return invalid('is not a valid e-mail address');
	return text;
}

/**
 * Phone: the international digits of a number valid for its country's plan, read by the phone module with the rule
 * of recipients (`+55 (11) 98888-7777` and `5511988887777` give `5511988887777`): only one digit repeated is
 * invented, runs such as `98765-4321` are real numbers. A national number (`(21) 99876-5432`) is read in the Default
 * Country when one is set, as a recipient is.
 */
export function normalisePhone(value: unknown, defaultCountry?: CountryCode): string | Invalid {
	let text: string;
	if (typeof value === 'number' && Number.isSafeInteger(value)) text = String(value);
	else if (typeof value === 'string') text = value.trim();
	else return invalid('must be text');
	if (isPlaceholder(text)) return invalid('is a placeholder, not a phone number');
	const checked = checkPhone(text, { defaultCountry, nationalHint: PERSON_NATIONAL_HINT });
	return 'digits' in checked ? checked.digits : invalid(checked.problem);
}

const PERSON_NATIONAL_HINT =
	"write it with its country code (e.g. 5511988887777), or set Default Country in the credential or the node's Default Country field";

// ---- Custom attribute values (rule 5) ----

const CURRENCY = /[$€£¥₹¢]|R\$|\bBRL\b|\bUSD\b|\bEUR\b/i;

function numberProblem(text: string, wanted: string): Invalid {
	if (CURRENCY.test(text)) return invalid('must be a bare number without a currency sign');
	if (/^[+-]?[\d.]*,\d*$|^[+-]?\d{1,3}(,\d{3})+(\.\d+)?$/.test(text)) {
		return invalid('must use a decimal point and no thousands separator');
	}
	return invalid(`must be ${wanted}`);
}

/** Plain decimal text of a finite number, never in exponent form (`1e-7` → `0.0000001`). */
function plainDecimal(value: number): string {
	const text = String(value);
	if (!text.includes('e')) return text;
	const match = /^(-?)(\d)(?:\.(\d+))?e([+-]\d+)$/.exec(text);
	if (!match) return text;
	const [, sign, head, tail = '', exponentText] = match;
	const digits = head + tail;
	const pointAt = 1 + Number(exponentText);
	if (pointAt <= 0) return `${sign}0.${'0'.repeat(-pointAt)}${digits}`;
	if (pointAt >= digits.length) return `${sign}${digits}${'0'.repeat(pointAt - digits.length)}`;
	return `${sign}${digits.slice(0, pointAt)}.${digits.slice(pointAt)}`;
}

/** Integer: a whole number, written as digits (`+007` → `7`, `5.0` → `5`). */
export function normaliseInteger(value: unknown): string | Invalid {
	if (typeof value === 'number') {
		if (!Number.isInteger(value)) return invalid('must be a whole number');
		if (!Number.isSafeInteger(value)) return invalid('is too large for an exact whole number');
		return String(value);
	}
	if (typeof value === 'bigint') return String(value);
	if (typeof value !== 'string') return invalid('must be a whole number');
	const text = value.trim();
	const match = /^([+-]?)0*(\d+?)(?:\.0+)?$/.exec(text);
	if (!match) return numberProblem(text, 'a whole number');
	const [, sign, digits] = match;
	return sign === '-' && digits !== '0' ? `-${digits}` : digits;
}

/** Float: a number with a decimal point and at least one decimal place (`5` → `5.0`, `.5` → `0.5`). */
export function normaliseFloat(value: unknown): string | Invalid {
	if (typeof value === 'number') {
		if (!Number.isFinite(value)) return invalid('must be a finite number');
		const text = plainDecimal(value);
		return text.includes('.') ? text : `${text}.0`;
	}
	if (typeof value !== 'string') return invalid('must be a number with a decimal point');
	const text = value.trim();
	const plain = /^([+-]?)(\d*)(?:\.(\d*))?$/.exec(text);
	if (plain && (plain[2] !== '' || (plain[3] ?? '') !== '')) {
		const [, sign, whole, decimals = ''] = plain;
		return `${sign === '-' ? '-' : ''}${whole === '' ? '0' : whole}.${decimals === '' ? '0' : decimals}`;
	}
	if (/^[+-]?(\d+\.?\d*|\.\d+)e[+-]?\d+$/i.test(text)) return normaliseFloat(Number(text));
	return numberProblem(text, 'a number with a decimal point');
}

/** Boolean: `true` or `false` (booleans, or those words in any case). */
export function normaliseBoolean(value: unknown): string | Invalid {
	if (typeof value === 'boolean') return value ? 'true' : 'false';
	if (typeof value === 'string') {
		const lower = value.trim().toLowerCase();
		if (lower === 'true' || lower === 'false') return lower;
	}
	return invalid('must be true or false');
}

const DATE_OR_DATETIME =
	/^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:[.,]\d{1,9})?)?(Z|[+-](\d{2})(?::?(\d{2}))?)?)?$/;

/** Datetime: a date `YYYY-MM-DD` or an ISO 8601 timestamp, written in the gateway's form (see gatewayTimestamp). */
export function normaliseDatetime(value: unknown): string | Invalid {
	if (value instanceof Date) {
		return Number.isNaN(value.getTime()) ? invalid('is not a valid date') : value.toISOString();
	}
	if (typeof value !== 'string') return invalid('must be a date YYYY-MM-DD or an ISO 8601 timestamp');
	const text = value.trim();
	const match = DATE_OR_DATETIME.exec(text);
	if (!match) return invalid('must be a date YYYY-MM-DD or an ISO 8601 timestamp');
	const [, year, month, day, hour, minute, second, , offsetHours, offsetMinutes] = match;
	const daysInMonth = new Date(Date.UTC(Number(year), Number(month), 0)).getUTCDate();
	const inRange =
		Number(month) >= 1 &&
		Number(month) <= 12 &&
		Number(day) >= 1 &&
		Number(day) <= daysInMonth &&
		(hour === undefined || Number(hour) <= 23) &&
		(minute === undefined || Number(minute) <= 59) &&
		(second === undefined || Number(second) <= 59) &&
		(offsetHours === undefined || Number(offsetHours) <= 14) &&
		(offsetMinutes === undefined || Number(offsetMinutes) <= 59);
	if (!inRange) return invalid('is not a real date or time');
	if (hour === undefined) return text;
	return gatewayTimestamp(match);
}

/**
 * The one timestamp form the gateway reads (the sandbox checks it): `T` between date and time, a decimal point
 * before fractions, an offset as `Z` or `±hh:mm`. People write `2024-05-01 10:00`, `10:00:00,5` and `+03`.
 */
function gatewayTimestamp(match: RegExpExecArray): string {
	const [text, year, month, day, hour, minute, second, offset, offsetHours, offsetMinutes] = match;
	const fraction = /[.,](\d{1,9})/.exec(text.slice(16))?.[1];
	let result = `${year}-${month}-${day}T${hour}:${minute}`;
	if (second !== undefined) result += `:${second}${fraction === undefined ? '' : `.${fraction}`}`;
	if (offset === 'Z') result += 'Z';
	else if (offset !== undefined) result += `${offset[0]}${offsetHours}:${offsetMinutes ?? '00'}`;
	return result;
}

/** String: text as given; numbers and booleans as text; dates as ISO; objects and arrays as compact JSON. */
export function normaliseString(value: unknown): string | Invalid {
	if (typeof value === 'string') return value;
	if (value instanceof Date) return normaliseDatetime(value);
	if (typeof value === 'object' && value !== null) return JSON.stringify(value);
	return String(value);
}

/** The checked written form of a custom attribute value of a type (rule 5). */
export function normaliseAttribute(type: AttributeType, value: unknown): string | Invalid {
	switch (type) {
		case 'String':
			return normaliseString(value);
		case 'Integer':
			return normaliseInteger(value);
		case 'Float':
			return normaliseFloat(value);
		case 'Boolean':
			return normaliseBoolean(value);
		default:
			return normaliseDatetime(value);
	}
}
