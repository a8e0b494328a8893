/**
 * Status items a user can act on: a failed status says what happened (`reason`) and what to do (`hint`) for every
 * code of docs/network-errors.md, an unknown code keeps the network's code and text with a generic hint, and the
 * conversation and pricing category come as flat fields when the network sent them.
 */
import * as fs from 'fs';
import * as path from 'path';

import { parseNotification, type StatusItem } from '../../nodes/MessagingGatewayTrigger/notifications';
import { recipientDigits } from '../../nodes/gateway/recipient';

const docs = fs.readFileSync(path.resolve(__dirname, '../../docs/network-errors.md'), 'utf8');

/** The rows of the docs' table: code, reason, hint, as a user reads them. */
const DOCUMENTED = [...docs.matchAll(/^\| (\d+) \| \w+ \| (.+?) \| (.+?) \|$/gm)].map((m) => ({
	code: Number(m[1]),
	reason: m[2],
	hint: m[3],
}));

function statusOf(update: Record<string, unknown>): StatusItem {
	const parsed = parseNotification({
		messaging_product: 'whatsapp',
		metadata: { display_phone_number: '5511900001111', phone_number_id: '104857600000001' },
		statuses: [{ id: 'wamid.X1', timestamp: '1763800300', recipient_id: '5511988887777', ...update }],
	});
	if (!parsed.isNotification) throw new Error(parsed.reason);
	return parsed.items[0] as StatusItem;
}

function failedWith(code: unknown, error: Record<string, unknown> = {}): StatusItem {
	return statusOf({ status: 'failed', errors: [{ code, title: 'Network title', message: 'Network message', ...error }] });
}

describe('a failed status item', () => {
	it('reads the whole table of the docs', () => {
		expect(DOCUMENTED.length).toBeGreaterThanOrEqual(20);
		expect(DOCUMENTED.map((row) => row.code)).toEqual(expect.arrayContaining([131026, 131047, 131049, 132015, 132016]));
	});

	it.each(DOCUMENTED.map((row) => [row.code, row]))('code %i has the reason and hint of the docs', (code, row) => {
		const item = failedWith(code);
		expect(item).toMatchObject({ status: 'failed', errorCode: code, reason: row.reason, hint: row.hint });
	});

	it('reads a code sent as numeric text as the same code', () => {
		const item = failedWith('131047');
		expect(item.errorCode).toBe('131047');
		expect(item.hint).toBe(failedWith(131047).hint);
		expect(item.hint).toMatch(/template/i);
	});

	it('keeps an unknown code and the network\'s own text, with a generic hint', () => {
		const item = failedWith(139999, { error_data: { details: 'A brand-new failure' } });
		expect(item.errorCode).toBe(139999);
		expect(item.errorMessage).toBe('A brand-new failure');
		expect(item.reason).toBe('The network refused the message: A brand-new failure');
		expect(item.hint).toMatch(/error codes|provider/);
		expect(item.hint).not.toBe(failedWith(131047).hint);
	});

	it('explains a failure without any error object with the generic reason and hint', () => {
		const item = statusOf({ status: 'failed' });
		expect(item.errorCode).toBeNull();
		expect(item.reason).toBe('The network refused the message.');
		expect(item.hint).toMatch(/error codes|provider/);
	});

	it('has no reason or hint when the message did not fail', () => {
		for (const status of ['sent', 'delivered', 'read']) {
			expect(statusOf({ status })).toMatchObject({ reason: null, hint: null });
		}
	});
});

describe('the conversation and pricing of a status item', () => {
	it('are flat fields when the network sent them', () => {
		const item = statusOf({
			status: 'sent',
			conversation: { id: 'conv1', origin: { type: 'marketing' }, expiration_timestamp: '1763886700' },
			pricing: { billable: false, pricing_model: 'PMP', category: 'marketing' },
		});
		expect(item).toMatchObject({ conversationCategory: 'marketing', pricingCategory: 'marketing', billable: false });
		expect(item.conversation).toMatchObject({ id: 'conv1' });
	});

	it('are null when the network sent none', () => {
		expect(statusOf({ status: 'read' })).toMatchObject({ conversationCategory: null, pricingCategory: null, billable: null });
	});
});

describe('the recipient of a status item', () => {
	it('is the digits of recipient_id, the form of the send output\'s recipient', () => {
		expect(statusOf({ status: 'sent', recipient_id: '+55 11 98888-7777' }).recipient).toBe('5511988887777');
		expect(statusOf({ status: 'sent' }).recipient).toBe(recipientDigits('5511988887777'));
		expect(statusOf({ status: 'sent', recipient_id: undefined }).recipient).toBeNull();
	});
});
