import { buildButtons as build } from '../../../nodes/MessagingGateway/actions/message/types/interactive';
import { NETWORK_LIMITS } from '../../../nodes/gateway/spec';
import { inputError } from './inputError';

const buttons = (...titles: string[]) => ({ button: titles.map((title, i) => ({ id: `b${i + 1}`, title })) });

describe('interactive buttons message', () => {
	it('builds body, footer and reply buttons in the spec shape', () => {
		expect(
			build({ buttonsBody: 'Confirm tomorrow 10:00?', buttonsFooter: 'Clinic', replyButtons: buttons('Yes', 'No') }),
		).toEqual({
			type: 'interactive',
			interactive: {
				type: 'button',
				body: { text: 'Confirm tomorrow 10:00?' },
				footer: { text: 'Clinic' },
				action: {
					buttons: [
						{ type: 'reply', reply: { id: 'b1', title: 'Yes' } },
						{ type: 'reply', reply: { id: 'b2', title: 'No' } },
					],
				},
			},
		});
	});

	it('sends footer null when there is none, as the spec says', () => {
		expect(build({ buttonsBody: 'Hi', buttonsFooter: '  ', replyButtons: buttons('OK') }).interactive.footer).toBeNull();
		expect(build({ buttonsBody: 'Hi', replyButtons: buttons('OK') }).interactive.footer).toBeNull();
	});

	it(`accepts ${NETWORK_LIMITS.maxReplyButtons} buttons and titles of ${NETWORK_LIMITS.maxReplyButtonTitleLength} characters, emoji counted once`, () => {
		const longest = 'x'.repeat(NETWORK_LIMITS.maxReplyButtonTitleLength - 1) + '👍';
		const payload = build({ buttonsBody: 'Hi', replyButtons: buttons('A', 'B', longest) });
		expect(payload.interactive.action.buttons).toHaveLength(3);
	});

	it('refuses no buttons and more than three', () => {
		expect(inputError(() => build({ buttonsBody: 'Hi', replyButtons: {} })).field).toBe('Reply Buttons');
		expect(inputError(() => build({ buttonsBody: 'Hi', replyButtons: buttons('A', 'B', 'C', 'D') })).reason).toMatch(
			/4 buttons/,
		);
	});

	it('refuses a title longer than 20 characters, naming the button', () => {
		const error = inputError(() => build({ buttonsBody: 'Hi', replyButtons: buttons('OK', 'x'.repeat(21)) }));
		expect(error.field).toBe('Reply Buttons › button 2 › Title');
		expect(error.reason).toMatch(/21 characters/);
	});

	it('refuses duplicate and empty ids, and an empty title or body', () => {
		const dup = { button: [{ id: 'a', title: 'A' }, { id: 'a', title: 'B' }] };
		expect(inputError(() => build({ buttonsBody: 'Hi', replyButtons: dup })).reason).toMatch(/unique/);
		const noId = { button: [{ id: '', title: 'A' }] };
		expect(inputError(() => build({ buttonsBody: 'Hi', replyButtons: noId })).field).toBe('Reply Buttons › button 1 › ID');
		const noTitle = { button: [{ id: 'a', title: '' }] };
		expect(inputError(() => build({ buttonsBody: 'Hi', replyButtons: noTitle })).field).toMatch(/Title$/);
		expect(inputError(() => build({ buttonsBody: '', replyButtons: buttons('A') })).field).toBe('Body Text');
	});
});
