import { QUICK_WRITERS } from '../../../nodes/MessagingGateway/persons/quickWriters';
import { isPlaceholder, normalisePhone } from '../../../nodes/MessagingGateway/persons/values';

describe('isPlaceholder', () => {
	it.each(['0', ' 0 ', '0\u00a0', 'N/A', 'x', '-', '...', '?'])('%p is a placeholder', (text) => {
		expect(isPlaceholder(text)).toBe(true);
	});

	// Phones and CPFs, short or long, start with + ( or a digit: none of them is a placeholder word or only marks.
	it.each(['1', '9', '+', '(', '+5', '(11)', '10', '5511988887777', '+55 11 98888-7777', '529.982.247-25', '0x'])(
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
			reason: 'is not a valid international number; if it is a national number, write it with its country code, e.g. 5511988887777',
		});
	});

	it('gives the digits of marked-up and bare numbers alike', () => {
		expect(normalisePhone('+55 11 930000000')).toBe('5511930000000');
		expect(normalisePhone('5511930000000')).toBe('5511930000000');
		expect(normalisePhone(5511930000000)).toBe('5511930000000');
	});
});

describe('quick writer of Phone', () => {
	const phone = QUICK_WRITERS.Phone!;

	it('writes the digits of the value, and tells whether they are a given text', () => {
		for (const value of ['+55 (11) 98888-7777', '5511988887777', '55 11 98888-7777', '+55 11 ' + '9'.repeat(40), '']) {
			const digits = value.replace(/\D/g, '');
			expect(phone.write(value)).toBe(digits);
			expect(phone.gives(value, digits)).toBe(true);
			expect(phone.gives(value, `${digits}1`)).toBe(false);
		}
		expect(phone.write(5511988887777)).toBe('5511988887777');
	});
});
