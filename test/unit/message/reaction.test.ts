import { buildReaction as build, decodeEmoji } from '../../../nodes/MessagingGateway/actions/message/types/basic';
import { inputError } from './inputError';

describe('reaction message', () => {
	it('sends the message id and the emoji', () => {
		expect(build({ reactionMessageId: 'wamid.ABC', reactionEmoji: '👍' })).toEqual({
			type: 'reaction',
			reaction: { message_id: 'wamid.ABC', emoji: '👍' },
		});
	});

	it('decodes an emoji given as escaped UTF-16 code units or a code point escape', () => {
		expect(build({ reactionMessageId: 'm', reactionEmoji: '\\uD83D\\uDC4D' }).reaction.emoji).toBe('👍');
		expect(build({ reactionMessageId: 'm', reactionEmoji: '\\u2764\\uFE0F' }).reaction.emoji).toBe('❤️');
		expect(build({ reactionMessageId: 'm', reactionEmoji: '\\u{1F600}' }).reaction.emoji).toBe('😀');
	});

	it('accepts one emoji made of several code points: flags, keycaps, skin tones, families', () => {
		for (const emoji of ['🇧🇷', '1️⃣', '👍🏽', '👨‍👩‍👧']) {
			expect(build({ reactionMessageId: 'm', reactionEmoji: emoji }).reaction.emoji).toBe(emoji);
		}
	});

	it('sends an empty emoji to remove a reaction', () => {
		expect(build({ reactionMessageId: 'm', reactionEmoji: '' }).reaction).toEqual({ message_id: 'm', emoji: '' });
	});

	it('refuses text, two emoji, half of a surrogate pair and a missing message id', () => {
		expect(inputError(() => build({ reactionMessageId: 'm', reactionEmoji: 'ok' })).field).toBe('Emoji');
		expect(inputError(() => build({ reactionMessageId: 'm', reactionEmoji: '👍👍' })).reason).toMatch(/single emoji/);
		expect(inputError(() => build({ reactionMessageId: 'm', reactionEmoji: '\\uD83D' })).reason).toMatch(/UTF-16/);
		expect(inputError(() => build({ reactionMessageId: ' ', reactionEmoji: '👍' })).field).toBe('Message ID');
	});

	it('leaves text without escapes alone', () => {
		expect(decodeEmoji('👍')).toBe('👍');
		expect(decodeEmoji('\\x41')).toBe('\\x41');
	});
});
