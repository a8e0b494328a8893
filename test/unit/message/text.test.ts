import { buildText as build } from '../../../nodes/MessagingGateway/actions/message/types/basic';
import { inputError } from './inputError';

describe('text message', () => {
	it('sends the text as it was typed, line breaks and spaces included', () => {
		expect(build({ textBody: 'Hello *Maria*,\n\n  your order has shipped.\n' })).toEqual({
			type: 'text',
			text: { body: 'Hello *Maria*,\n\n  your order has shipped.\n' },
		});
	});

	it('sends a number from an expression as text', () => {
		expect(build({ textBody: 42 })).toEqual({ type: 'text', text: { body: '42' } });
	});

	it.each(['', '   \n', undefined])('refuses an empty text (%p)', (textBody) => {
		const error = inputError(() => build({ textBody }));
		expect(error.field).toBe('Text');
		expect(error.reason).toMatch(/required/);
	});

	it('refuses an object, which would reach the gateway as [object Object]', () => {
		expect(inputError(() => build({ textBody: { a: 1 } })).field).toBe('Text');
	});
});
