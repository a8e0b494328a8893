import { textOf } from '../../../nodes/MessagingGateway/actions/message/types/common';
import { checkWebhookTypes } from '../../../nodes/MessagingGateway/actions/webhook/shape';
import { checkTemplateCategory, checkTemplateName } from '../../../nodes/MessagingGateway/templates/components';

describe('checkTemplateName', () => {
	it.each(['order_shipped', 'otp2', 'a'])('takes %p', (name) => {
		expect(checkTemplateName(name)).toEqual({ value: name });
	});

	it.each([
		['Order_Shipped', /lowercase letters, digits and underscores, e\.g\. order_shipped/],
		['order shipped!', /e\.g\. order_shipped/],
		['pedido-enviado', /e\.g\. pedido_enviado/],
		['[object Object]', /not a template name/],
		['', /is empty/],
	])('refuses %p', (name, problem) => {
		expect(checkTemplateName(name)).toEqual({ problem: expect.stringMatching(problem) });
	});
});

describe('checkTemplateCategory', () => {
	it.each([
		['UTILITY', 'UTILITY'],
		['marketing', 'MARKETING'],
		[' Authentication ', 'AUTHENTICATION'],
		['TICKET_UPDATE', 'TICKET_UPDATE'],
	])('takes %p as %p', (category, value) => {
		expect(checkTemplateCategory(category)).toEqual({ value });
	});

	it.each(['TRANSACTIONAL', 'OTP', '[object Object]'])('refuses %p, listing the categories', (category) => {
		expect(checkTemplateCategory(category)).toEqual({
			problem: expect.stringMatching(/is not a category of the gateway; use one of AUTHENTICATION, MARKETING, UTILITY, TICKET_UPDATE/),
		});
	});
});

describe('checkWebhookTypes', () => {
	it('takes the editor list, a comma list from an expression, and drops repeats', () => {
		expect(checkWebhookTypes(['messages', 'security'])).toEqual({ value: ['messages', 'security'] });
		expect(checkWebhookTypes('messages, security,messages')).toEqual({ value: ['messages', 'security'] });
	});

	it.each([
		[['messages', 'message_status'], /"message_status" is not a subscription type/],
		[[], /is empty/],
		['', /is empty/],
		[[{ type: 'messages' }], /as text/],
		[{ messages: true }, /must be a list/],
	])('refuses %p', (value, problem) => {
		expect(checkWebhookTypes(value)).toEqual({ problem: expect.stringMatching(problem) });
	});
});

describe('textOf', () => {
	it('gives text for strings, numbers and booleans, and empty text for nothing', () => {
		expect(textOf(' a ')).toEqual({ text: ' a ' });
		expect(textOf(12)).toEqual({ text: '12' });
		expect(textOf(false)).toEqual({ text: 'false' });
		expect(textOf(null)).toEqual({ text: '' });
	});

	it('refuses objects and lists with an excerpt instead of "[object Object]"', () => {
		expect(textOf({ name: 'order_shipped' })).toEqual({ problem: expect.stringMatching(/^must be text, got an object \(\{"name":"order_shipped"\}\)/) });
		expect(textOf(['a'])).toEqual({ problem: expect.stringMatching(/^must be text, got a list/) });
	});
});
