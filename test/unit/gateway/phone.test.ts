import { checkPhone, isInventedNumber, isOneDigitRepeated, readDefaultCountry, type PhoneCheck } from '../../../nodes/gateway/phone';

const problemOf = (check: PhoneCheck): string => {
	if (!('problem' in check)) throw new Error(`expected a refusal, got ${check.digits}`);
	return check.problem;
};

describe('checkPhone: international numbers', () => {
	it.each([
		['+55 (11) 98888-7777', '5511988887777'],
		['+55 21 99876-1234', '5521998761234'],
		['+55 11 3333-4444', '551133334444'],
		['0055 11 98888 7777', '5511988887777'],
		['+1 (415) 555-2671', '14155552671'],
		['+44 7911 123456', '447911123456'],
		['5511988887777', '5511988887777'],
		[5511988887777, '5511988887777'],
	])('%p is sent as %p', (input, digits) => {
		expect(checkPhone(input)).toEqual({ digits });
	});

	it.each([
		['+55 11 0000-0000', /not a valid number of BR \(\+55\)/],
		['+55 99999-9999', /not a valid number of BR \(\+55\)/],
		['+55 11 98888-7777-1234', /too many digits for a number of BR/],
		['+999 1234 5678', /known country code/],
		['+1', /too short/],
	])('%p is refused: %p', (input, reason) => {
		expect(problemOf(checkPhone(input))).toMatch(reason);
	});

	it.each([
		['+55 21 99876-5432', '5521998765432'],
		['+351 912 345 678', '351912345678'],
		['+49 1512 3456789', '4915123456789'],
		['+55 11 91234-5678', '5511912345678'],
		['+55 11 98765-4321', '5511987654321'],
	])('%p, whose last digits run up or down, is a real number and sent', (input, digits) => {
		expect(checkPhone(input)).toEqual({ digits });
	});

	it.each(['+55 11 99999-9999', '+55 11 90000-0000', '5511999999999'])('%p, one digit repeated, is refused', (input) => {
		expect(problemOf(checkPhone(input))).toMatch(/one digit repeated/);
	});
});

describe('checkPhone: national numbers and the Default Country', () => {
	it('reads (11) 98888-7777 as a Brazilian number with BR, never as country code 1', () => {
		expect(checkPhone('(11) 98888-7777', { defaultCountry: 'BR' })).toEqual({ digits: '5511988887777' });
		expect(checkPhone('011 98888-7777', { defaultCountry: 'BR' })).toEqual({ digits: '5511988887777' });
		expect(checkPhone('07911 123456', { defaultCountry: 'GB' })).toEqual({ digits: '447911123456' });
	});

	it('still takes international numbers when a Default Country is set', () => {
		expect(checkPhone('+1 415 555 2671', { defaultCountry: 'BR' })).toEqual({ digits: '14155552671' });
		expect(checkPhone('5511988887777', { defaultCountry: 'BR' })).toEqual({ digits: '5511988887777' });
	});

	it('refuses a national number without a Default Country, with the hint to set one', () => {
		expect(problemOf(checkPhone('(11) 98888-7777'))).toMatch(/set Default Country/);
		expect(problemOf(checkPhone('011 98888-7777'))).toMatch(/starts with 0.*Default Country/);
	});

	it('takes digits that are the same number read nationally and internationally', () => {
		expect(checkPhone('12025550123', { defaultCountry: 'US' })).toEqual({ digits: '12025550123' });
	});

	it('refuses digits that are one number nationally and another internationally, unless written nationally', () => {
		// 604 262 3120 in Vancouver, or +60 4-262 3120 in Malaysia
		expect(problemOf(checkPhone('6042623120', { defaultCountry: 'US' }))).toMatch(/may be \+16042623120 \(a national number of US\) or \+6042623120/);
		expect(checkPhone('(604) 262-3120', { defaultCountry: 'US' })).toEqual({ digits: '16042623120' });
		expect(checkPhone('+60 4-262 3120', { defaultCountry: 'US' })).toEqual({ digits: '6042623120' });
	});

	it('refuses a number that is not in the plan of the Default Country', () => {
		expect(problemOf(checkPhone('98888-777', { defaultCountry: 'BR' }))).toMatch(/BR \(\+55\)/);
	});
});

describe('checkPhone: values that are not numbers', () => {
	it.each([
		[{ phone: '+5511988887777' }, /got an object/],
		[['+5511988887777'], /got a list/],
		['', /is empty/],
		['whatsapp:+5511988887777', /not a phone number/],
	])('%p is refused', (input, reason) => {
		expect(problemOf(checkPhone(input))).toMatch(reason);
	});
});

describe('checkPhone: the characters around the digits', () => {
	it.each([
		['+55\u00a011\u00a098888-7777', '5511988887777'], // no-break spaces from a spreadsheet
		['+55\t11 98888.7777', '5511988887777'],
		['+55/11/98888/7777', '5511988887777'],
		['(+55) 11 98888 7777', undefined],
		['+55 11 98888-7777 ramal', undefined],
		['+55 11 98888+7777', undefined],
		['+55 11 98888\u20137777', undefined], // an en dash is not one of the marks
		['+', undefined],
		['+ ', undefined],
	])('%p reads as %p', (input, digits) => {
		const check = checkPhone(input);
		if (digits !== undefined) expect(check).toEqual({ digits });
		else expect(problemOf(check)).not.toBe('');
	});

	it('reads the digits of marked-up text as the same digits written bare, however many there are', () => {
		for (const count of [12, 13, 30, 31, 32, 45]) {
			const digits = `55119${'8887776665554443332221110'.repeat(2)}`.slice(0, count);
			const marked = `+${digits.slice(0, 2)} (${digits.slice(2, 4)}) ${digits.slice(4).replace(/(\d{4})/g, '$1-')}`;
			expect([marked, checkPhone(marked)]).toEqual([marked, checkPhone(`+${digits}`)]);
		}
		expect(checkPhone('+55 (11) 98888-7777')).toEqual({ digits: '5511988887777' });
	});

	it('refuses text with other characters as not a phone number, whatever the characters are', () => {
		for (const input of ['(+55) 11 98888 7777', '+55 11 98888-7777 ramal', '+55 11 98888+7777', '+55 11 98888\u20137777', '+']) {
			expect(problemOf(checkPhone(input))).toMatch(/^is not a phone number/);
		}
	});
});

describe('readDefaultCountry', () => {
	it('takes ISO codes in any case, and empty as none', () => {
		expect(readDefaultCountry(' br ')).toEqual({ country: 'BR' });
		expect(readDefaultCountry('')).toEqual({ country: undefined });
		expect(readDefaultCountry(undefined)).toEqual({ country: undefined });
	});

	it.each(['Brazil', 'XX', '55', 'BRA'])('refuses %p', (value) => {
		expect(readDefaultCountry(value)).toEqual({ problem: expect.stringMatching(/not a country code/) });
	});
});

describe('isInventedNumber', () => {
	it.each(['11111111', '12345678', '98765432', '90123456'])('%p is invented', (digits) => {
		expect(isInventedNumber(digits)).toBe(true);
	});
	it.each(['98887777', '12345679', '1234567890123456789012'])('%p is not', (digits) => {
		expect(isInventedNumber(digits)).toBe(false);
	});
});

describe('isOneDigitRepeated', () => {
	it.each([
		['99999999', true],
		['00000000', true],
		['9', false],
		['12345678', false],
		['99999998', false],
	])('%p: %p', (digits, repeated) => {
		expect(isOneDigitRepeated(digits)).toBe(repeated);
	});
});

describe('checkPhone: numbers a digit or an area code short say so (issue 30)', () => {
	const BR = { defaultCountry: 'BR' as const };

	it.each([
		['11 98888-777', 'one digit short'],
		['+55 11 98888-777', 'one digit short, written internationally'],
		['(11) 8888-7777', 'an old 8-digit mobile'],
	])('%p (%s) has too few digits, with an example of the form', (input) => {
		expect(problemOf(checkPhone(input, BR))).toBe(
			'has too few digits: one is missing for a number of BR (+55), e.g. +55 11 96123 4567',
		);
	});

	it.each(['98888-7777', '+55 98888-7777'])('%p is missing its area code', (input) => {
		expect(problemOf(checkPhone(input, BR))).toBe(
			'is missing its area code: a number of BR (+55) has it in front, e.g. +55 11 96123 4567',
		);
	});

	it('a number of the right length that no plan issues still says so, with the example', () => {
		expect(problemOf(checkPhone('+55 11 0000-0000'))).toBe(
			'is not a valid number of BR (+55): no number of its numbering plan starts this way, e.g. +55 11 96123 4567',
		);
		expect(problemOf(checkPhone('+55 99999-9999'))).toMatch(/^is not a valid number of BR/);
	});
});
