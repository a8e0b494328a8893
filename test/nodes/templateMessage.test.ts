/**
 * Template messages as a new user meets them: no language is assumed, and a template the account does not have is
 * the network's refusal, as the sandbox answers it (404, code 132001), not a green run.
 */
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const sendTemplate = (fields: Record<string, unknown>) =>
	runGateway(gateway.sandbox, {
		resource: 'message',
		operation: 'send',
		recipientPhoneNumber: '+55 (11) 98888-7777',
		messageType: 'template',
		...fields,
	});

describe('Message > Send a template defined by hand', () => {
	it('assumes no language: an empty Language Code is bad input of that field, nothing is sent', async () => {
		const error = await rejectionOf(sendTemplate({ templateName: 'order_update' }));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/^Language Code \(item 0\)/);
		expect(gateway.sandbox.requests).toEqual([]);
	});

	it('a template the account does not have fails with the network\'s message', async () => {
		const error = await rejectionOf(sendTemplate({ templateName: 'order_updat', templateLanguage: 'pt_BR' }));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('Template name does not exist in the translation');
		expect(JSON.stringify(error)).toContain('template name (order_updat) does not exist in pt_BR');
		expect(gateway.sandbox.requests.map((request) => request.status)).toEqual([404]);
	});

	it('the refusal names the item and the fields it points at, and says nothing was sent for the item', async () => {
		const error = await rejectionOf(sendTemplate({ templateName: 'order_updat', templateLanguage: 'pt_BR' }));
		expect(error.message).toBe('The gateway answered 404 for item 0: (#132001) Template name does not exist in the translation');
		expect(error.description).toBe(
			'The template does not exist in this language. Check "Template Name" or "Language Code" of item 0: both must be those of an ' +
				'approved template, letter for letter. The gateway said: "template name (order_updat) does not exist in pt_BR". ' +
				'Nothing was sent for this item.',
		);
	});

	it('with Continue On Fail the error item of a refusal says the same', async () => {
		const result = await runGateway(
			gateway.sandbox,
			{
				resource: 'message',
				operation: 'send',
				recipientPhoneNumber: '+55 (11) 98888-7777',
				messageType: 'template',
				templateName: 'order_updat',
				templateLanguage: 'pt_BR',
			},
			{ continueOnFail: true },
		);
		expect(result.output[0][0].json).toMatchObject({
			error: 'The gateway answered 404 for item 0: (#132001) Template name does not exist in the translation',
			description: expect.stringContaining('Nothing was sent for this item.'),
			httpCode: '404',
		});
	});

	it('a template the account has is sent', async () => {
		await sendTemplate({ templateName: 'order_update', templateLanguage: 'pt_BR', templateBodyParameters: { parameter: [{ text: 'Ana' }] } });
		expect(gateway.sandbox.requests.map((request) => request.status)).toEqual([200]);
	});
});
