import { isPlaceholder, normalisePhone } from '../../../nodes/MessagingGateway/persons/values';

describe('isPlaceholder', () => {
	it.each(['0', ' 0 ', '0\u00a0', 'N/A', 'x', '-', '...', '?', 'Não Informado', 'NULL', '(vazio)', ' (VAZIO) '])('%p is a placeholder', (text) => {
		expect(isPlaceholder(text)).toBe(true);
	});

	// Phones and CPFs, short or long: none of them is a placeholder word or only marks.
	it.each(['1', '9', '+', '(', '+5', '(11)', '10', '5511988887777', '+55 11 98888-7777', '529.982.247-25', '0x', 'Nathalia'])(
		'%p is not',
		(text) => {
			expect(isPlaceholder(text)).toBe(false);
		},
	);
});

describe('normalisePhone', () => {
	it('refuses a placeholder as one, and a short number as a number', () => {
		expect(normalisePhone('0')).toEqual({ invalid: true, reason: 'is a placeholder, not a phone number' });
		expect(normalisePhone(' n/a ')).toEqual({ invalid: true, reason: 'is a placeholder, not a phone number' });
		expect(normalisePhone('5')).toEqual({
			invalid: true,
			reason:
				"is not a valid international number; if it is a national number, write it with its country code (e.g. 5511988887777), or set Default Country in the credential or the node's Default Country field",
		});
	});

	it('gives the digits of marked-up and bare numbers alike', () => {
		expect(normalisePhone('+55 11 930000000')).toBe('5511930000000');
		expect(normalisePhone('5511930000000')).toBe('5511930000000');
		expect(normalisePhone(5511930000000)).toBe('5511930000000');
	});
});

describe('normalisePhone: person rule 4, with the rule of message recipients', () => {
	it('accepts runs of digits, which are real numbers (a new user\'s first rows)', () => {
		expect(normalisePhone('+55 31 98765-4321')).toBe('5531987654321');
		expect(normalisePhone('+55 21 99876-5432')).toBe('5521998765432');
		expect(normalisePhone('+55 11 91234-5678')).toBe('5511912345678');
	});

	it('refuses one digit repeated as invented', () => {
		expect(normalisePhone('+55 11 99999-9999')).toEqual({ invalid: true, reason: expect.stringMatching(/^is an invented number/) });
	});

	it('reads a national number in the Default Country, and without one says where to set it', () => {
		expect(normalisePhone('(21) 99876-5432', 'BR')).toBe('5521998765432');
		expect(normalisePhone('(21) 99876-5432')).toEqual({
			invalid: true,
			reason: expect.stringContaining("set Default Country in the credential or the node's Default Country field"),
		});
	});
});
