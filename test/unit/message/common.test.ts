import { cleanRecipient, collectionEntries, messageBody } from '../../../nodes/MessagingGateway/actions/message/types/common';
import { CHANNEL } from '../../../nodes/gateway/spec';
import { inputError } from './inputError';

describe('cleanRecipient', () => {
	it.each([
		['+55 (11) 98888-7777', '5511988887777'],
		['5511988887777', '5511988887777'],
		['  +1 415.555.0100 ', '14155550100'],
		['0055 11 98888 7777', '5511988887777'],
		['+44 20/7946 0958', '442079460958'],
		[5511988887777, '5511988887777'],
	])('sends %p as the international digits %p', (input, expected) => {
		expect(cleanRecipient(input)).toBe(expected);
	});

	it('reads a national number in the Default Country', () => {
		expect(cleanRecipient('(11) 98888-7777', { defaultCountry: 'BR' })).toBe('5511988887777');
	});

	it('refuses an empty number, naming the field', () => {
		const error = inputError(() => cleanRecipient('  '));
		expect(error.field).toBe('Recipient Phone Number');
		expect(error.reason).toMatch(/empty/);
	});

	it('refuses an object from an expression with the field, not "value"', () => {
		const error = inputError(() => cleanRecipient({ phone: '+5511988887777' }));
		expect(error.field).toBe('Recipient Phone Number');
		expect(error.reason).toMatch(/got an object/);
	});

	it.each(['+55 11 98888-7777-1234', '+55 11 0000-0000'])('refuses %p: not a number of the plan of Brazil', (input) => {
		expect(inputError(() => cleanRecipient(input)).reason).toMatch(/BR \(\+55\)/);
	});

	it.each(['+55 11 9888A-7777', 'whatsapp:+5511988887777', '55+11988887777', 'maria@example.com'])(
		'refuses %p instead of dropping characters',
		(input) => {
			expect(inputError(() => cleanRecipient(input)).reason).toMatch(/not a phone number/);
		},
	);

	it('refuses a national number without a Default Country, with the hint to set one', () => {
		expect(inputError(() => cleanRecipient('011 98888-7777')).reason).toMatch(/country code.*Default Country/);
	});

	it('names the field the caller gives', () => {
		expect(inputError(() => cleanRecipient('12', { field: 'Phone' })).field).toBe('Phone');
	});
});

describe('messageBody', () => {
	it('wraps a payload with the common fields of every send', () => {
		expect(messageBody('5511988887777', { type: 'text', text: { body: 'Hi' } })).toEqual({
			messaging_product: CHANNEL,
			recipient_type: 'individual',
			to: '5511988887777',
			type: 'text',
			text: { body: 'Hi' },
		});
	});
});

describe('collectionEntries', () => {
	it('reads the editor shape and a plain list from an expression', () => {
		expect(collectionEntries({ button: [{ id: 'a' }] }, 'button', 'Buttons')).toEqual([{ id: 'a' }]);
		expect(collectionEntries([{ id: 'a' }], 'button', 'Buttons')).toEqual([{ id: 'a' }]);
		expect(collectionEntries({}, 'button', 'Buttons')).toEqual([]);
		expect(collectionEntries(undefined, 'button', 'Buttons')).toEqual([]);
	});

	it('refuses values that are not lists of entries', () => {
		expect(inputError(() => collectionEntries('a,b', 'button', 'Buttons')).field).toBe('Buttons');
		expect(inputError(() => collectionEntries({ button: ['a'] }, 'button', 'Buttons')).field).toBe('Buttons');
	});
});
