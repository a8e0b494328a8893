/**
 * The phone module's fast path for `+digits` must give libphonenumber's own verdict: wherever it answers, the full
 * parse (libphonenumber-js, max metadata) must say the same. Checked over every country's example mobile number,
 * every one-digit change of it, one digit fewer and more, one or two digits put in front (national prefixes), and random digit strings.
 */
import examples from 'libphonenumber-js/examples.mobile.json';
import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js/max';
import maxMetadata from 'libphonenumber-js/metadata.max.json';

import { checkPhone, fastCheck, isInventedNumber } from '../../../nodes/gateway/phone';

/** What the full parse decides for `+digits`: its digits when valid, with whether the number is an invented one. */
function fullVerdict(international: string): { digits: string; invented: boolean } | undefined {
	const number = parsePhoneNumberFromString(international);
	if (!number?.isValid()) return undefined;
	return { digits: number.number.slice(1), invented: isInventedNumber(String(number.nationalNumber).slice(-8)) };
}

/** The number, each one-digit change of it, one digit fewer and more, and each digit (a national prefix) put in front. */
function variantsOf({ callingCode, national }: { callingCode: string; national: string }): string[] {
	const international = `+${callingCode}${national}`;
	const variants = [international, international.slice(0, -1), `${international}5`];
	for (let digit = 0; digit <= 9; digit++) variants.push(`+${callingCode}${digit}${national}`, `+${callingCode}${digit}${digit}${national}`);
	for (let at = 2; at < international.length; at++) {
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

describe('phone fast path', () => {
	const countries = Object.entries(examples as Record<string, string>);
	const examplesE164 = countries.map(([country, example]) => {
		const number = parsePhoneNumberFromString(example, country as CountryCode)!;
		return { callingCode: String(number.countryCallingCode), national: String(number.nationalNumber) };
	});

	it('agrees with the full parse wherever it answers, and answers most valid numbers', () => {
		let answered = 0;
		let validFull = 0;
		const disagreements: string[] = [];
		const inputs = [...examplesE164.flatMap(variantsOf), ...randomNumbers(30_000)];
		for (const input of inputs) {
			const full = fullVerdict(input);
			if (full) validFull++;
			const fast = fastCheck(input.slice(1));
			if (fast === undefined) continue;
			answered++;
			const agrees =
				full !== undefined && ('digits' in fast ? !full.invented && fast.digits === full.digits : full.invented);
			if (!agrees) disagreements.push(`${input}: fast ${JSON.stringify(fast)}, full ${JSON.stringify(full)}`);
		}
		expect(disagreements.slice(0, 10)).toEqual([]);
		// Most valid numbers are of a calling code with one country: the fast path must really be taken.
		expect(answered).toBeGreaterThan(validFull * 0.5);
	});

	it('reads each pattern over the national number only, from where the calling code ends', () => {
		// Read from the start of the digits, the 12 digits would fit no Portuguese pattern.
		expect(fastCheck('351912345670')).toEqual({ digits: '351912345670' });
		expect(fastCheck('3519123456701')).toBeUndefined();
		// A national number that starts the way the plan's national prefix does goes the full way: BR's 0, and any
		// Argentine number, as AR's prefix pattern is all optional (2262 240024 is a valid fixed line all the same).
		expect(fastCheck('55011988887777')).toBeUndefined();
		expect(fastCheck('542262240024')).toBeUndefined();
		expect(checkPhone('+54 2262 24-0024')).toEqual({ digits: '542262240024' });
	});

	it('reads plan patterns that look at nothing before where they start: they are tried from an offset of the digits', () => {
		const metadata = maxMetadata as unknown as {
			countries: Record<string, [string, string, string, ...unknown[]]>;
		};
		// A pattern tried from an offset would see the calling code through ^ (never there), \b, \B, a lookbehind or a
		// backreference to the prefix's groups; the national number cut out would not.
		const looksBehind = /\^|\\[bB1-9]|\(\?<[=!]/;
		const patterns: string[] = [];
		for (const plan of Object.values(metadata.countries)) {
			const [, , national, , , , , prefixForParsing, , , , types] = plan as unknown[];
			patterns.push(String(national), String(prefixForParsing ?? ''));
			for (const type of (types as Array<[string] | 0> | undefined) ?? []) if (type) patterns.push(type[0]);
		}
		expect(patterns.length).toBeGreaterThan(1000);
		expect(patterns.filter((pattern) => looksBehind.test(pattern))).toEqual([]);
	});

	it('answers for Brazilian mobile and fixed numbers, and leaves invalid ones to the full parse', () => {
		expect(fastCheck('5511988887777')).toEqual({ digits: '5511988887777' });
		expect(fastCheck('551133334444')).toEqual({ digits: '551133334444' });
		expect(fastCheck('5511000000000')).toBeUndefined();
		expect(fastCheck('14155552671')).toBeUndefined(); // +1 is shared by many countries
		// Through checkPhone the answers are the same either way.
		expect(checkPhone('+55 11 0000-0000')).toEqual({ problem: expect.stringMatching(/not a valid number of BR/) });
		expect(checkPhone('+1 (415) 555-2671')).toEqual({ digits: '14155552671' });
	});
});

describe('isInventedNumber', () => {
	/** The rule as first written: a repeated digit, or a part of the ascending or descending run. */
	const asWritten = (digits: string) =>
		/^(\d)\1+$/.test(digits) || '01234567890123456789'.includes(digits) || '98765432109876543210'.includes(digits);

	it('agrees with the rule as first written on every run, repetition and random digits up to 22 long', () => {
		const inputs = ['', 'a', '12a4', '1', '99'];
		for (let first = 0; first <= 9; first++) {
			for (let length = 1; length <= 22; length++) {
				let up = '';
				let down = '';
				for (let i = 0; i < length; i++) {
					up += String((first + i) % 10);
					down += String((first + 100 - i) % 10);
				}
				inputs.push(up, down, String(first).repeat(length), `${up.slice(0, -1)}${(first + 5) % 10}`);
			}
		}
		let seed = 7;
		for (let i = 0; i < 20_000; i++) {
			seed = (seed * 1103515245 + 12345) % 2 ** 31;
			inputs.push(String(seed).slice(0, 1 + (i % 10)));
		}
		const disagreements = inputs.filter((digits) => isInventedNumber(digits) !== asWritten(digits));
		expect(disagreements).toEqual([]);
		expect(inputs.filter(asWritten).length).toBeGreaterThan(200);
	});

	it('checks the digits from an offset as it checks that tail cut out: repeated, runs, wrap-around, other text', () => {
		const texts = ['', '5', '55', '5511999999999', '5511912345678', '5511998765432', '5511978901234', '5511932109876', '55119a9999999', '1199999999a'];
		for (const tail of ['11111111', '12345678', '78901234', '32109876', '90123456', '98887777', '12345679']) {
			texts.push(`5511${tail}`, `55119${tail}`, `${tail}5`, `5${tail}`);
		}
		const disagreements: string[] = [];
		for (const text of texts) {
			for (let from = 0; from <= text.length + 1; from++) {
				if (isInventedNumber(text, from) !== asWritten(text.slice(from))) disagreements.push(`${text} from ${from}`);
			}
		}
		expect(disagreements).toEqual([]);
		// The tail of a phone is what counts: a real number whose last 8 digits are a run is invented.
		expect(isInventedNumber('5511912345678', 5)).toBe(true);
		expect(isInventedNumber('5511912345678', 4)).toBe(false);
	});
});
