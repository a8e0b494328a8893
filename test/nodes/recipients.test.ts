/**
 * Message > Send refuses a recipient only when it is not a number: invalid in its country's plan, or one digit
 * repeated. Valid numbers whose digits run up or down are real customers' numbers and are sent (person rule 4's
 * invented-number rule is for person key fields only: see persons in personData.test.ts).
 */
import { NodeOperationError } from 'n8n-workflow';

import { rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const sendText = (recipientPhoneNumber: string) =>
	runGateway(gateway.sandbox, { resource: 'message', operation: 'send', messageType: 'text', textBody: 'hi', recipientPhoneNumber });

describe('Send: recipients whose digits run up or down', () => {
	it.each([
		['+55 21 99876-5432', '5521998765432'],
		['+351 912 345 678', '351912345678'],
		['+49 1512 3456789', '4915123456789'],
		['+55 11 91234-5678', '5511912345678'],
	])('%p is sent to %p', async (recipient, to) => {
		const { output } = await sendText(recipient);
		expect(output[0][0].json.messageId).toBeDefined();
		expect(gateway.sandbox.requests.map((request) => (request.body as { to?: string }).to)).toEqual([to]);
	});
});

describe('Send: recipients of one digit repeated', () => {
	it.each(['+55 11 99999-9999', '+55 11 90000-0000'])('%p is refused naming the item and the field, nothing sent', async (recipient) => {
		const error = await rejectionOf(sendText(recipient));
		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toMatch(/Recipient Phone Number \(item 0\).*one digit repeated/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});
