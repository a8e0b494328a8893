/**
 * The phone module must give libphonenumber's own verdict for international numbers: a number is sent, as the
 * library's E.164 digits, exactly when the library's public API calls it valid and its subscriber digits are not one
 * digit repeated (for a recipient and a person's Phone alike). Checked over every country's example number (the
 * library's public examples export, by country code), every one-digit change of it, one digit fewer and more, one or
 * two digits put in front, and random digit strings.
 */
import examples from 'libphonenumber-js/mobile/examples';
import { getCountries, getExampleNumber, parsePhoneNumberFromString } from 'libphonenumber-js/max';

import { checkPhone, isOneDigitRepeated } from '../../../nodes/gateway/phone';

/** What the library's public API decides for an international number: its digits to send, or refused. */
function libraryVerdict(international: string): string | 'refused' {
	const number = parsePhoneNumberFromString(international);
	if (!number?.isValid()) return 'refused';
	const subscriber = number.nationalNumber.slice(-8);
	if (isOneDigitRepeated(subscriber)) return 'refused';
	return number.number.slice(1);
}

function moduleVerdict(international: string): string | 'refused' {
	const check = checkPhone(international);
	return 'digits' in check ? check.digits : 'refused';
}

/** The number, each one-digit change of it, one digit fewer and more, and one or two digits put in front. */
function variantsOf(callingCode: string, national: string): string[] {
	const international = `+${callingCode}${national}`;
	const variants = [international, international.slice(0, -1), `${international}5`];
	for (let digit = 0; digit <= 9; digit++) variants.push(`+${callingCode}${digit}${national}`, `+${callingCode}${digit}${digit}${national}`);
	for (let at = 1; at < international.length; at++) {
		for (let digit = 0; digit <= 9; digit++) variants.push(`${international.slice(0, at)}${digit}${international.slice(at + 1)}`);
	}
	return variants;
}

/** A fixed sequence of pseudo-random numbers (a linear congruential generator), so a failure can be re-run. */
function* randomNumbers(count: number): Generator<string> {
	let seed = 12345;
	const next = () => (seed = (seed * 1103515245 + 12345) % 2 ** 31);
	for (let i = 0; i < count; i++) {
		let text = '+';
		const length = 4 + (next() % 13);
		for (let d = 0; d < length; d++) text += String(next() % 10);
		yield text;
	}
}

describe('phone module and libphonenumber agree', () => {
	const countries = getCountries();
	const exampleNumbers = countries.flatMap((country) => {
		const number = getExampleNumber(country, examples);
		return number ? [{ country, number }] : [];
	});

	it('has an example number for (nearly) every country', () => {
		expect(countries.length).toBeGreaterThan(200);
		expect(exampleNumbers.length).toBeGreaterThan(countries.length * 0.95);
	});

	it("sends every country's example number, written internationally with its marks, as the library's digits", () => {
		const refused: string[] = [];
		for (const { country, number } of exampleNumbers) {
			const check = checkPhone(number.formatInternational());
			// One digit repeated is the one refusal of a valid recipient; no country's example is one.
			if (!('digits' in check) || check.digits !== number.number.slice(1)) refused.push(`${country} ${number.formatInternational()}`);
		}
		expect(refused).toEqual([]);
	});

	it('gives the same verdict on variants and random numbers', () => {
		const inputs = [
			...exampleNumbers.flatMap(({ number }) => variantsOf(number.countryCallingCode, number.nationalNumber)),
			...randomNumbers(10_000),
		];
		const disagreements: string[] = [];
		let sent = 0;
		for (const input of inputs) {
			const expected = libraryVerdict(input);
			if (expected !== 'refused') sent++;
			const actual = moduleVerdict(input);
			if (actual !== expected) disagreements.push(`${input}: module ${actual}, library ${expected}`);
		}
		expect(disagreements.slice(0, 10)).toEqual([]);
		// The variants hold both kinds, many of each: the comparison is not of refusals alone.
		expect(sent).toBeGreaterThan(inputs.length / 10);
		expect(inputs.length - sent).toBeGreaterThan(inputs.length / 10);
	});
});
