/**
 * Reaction message (spec 2.2, type `reaction`): the id of the message reacted to and an emoji. The emoji may be
 * typed as the character or as escaped UTF-16 code units (`\uD83D\uDC4D`, as many systems export it); escapes are
 * decoded before sending. An empty emoji removes an earlier reaction.
 */
import type { INodeProperties } from 'n8n-workflow';

import { MessageInputError, type MessagePayload, readString, requiredText, showForMessageTypes } from './common';

const show = showForMessageTypes(['reaction']);

export const fields: INodeProperties[] = [
	{
		displayName: 'Message ID',
		name: 'reactionMessageId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjQ2',
		description: 'ID of the message to react to, as given in the incoming message notification or a send response',
		displayOptions: show,
	},
	{
		displayName: 'Emoji',
		name: 'reactionEmoji',
		type: 'string',
		default: '',
		placeholder: 'e.g. 👍',
		description:
			'One emoji, typed as the character or as escaped UTF-16 such as \\uD83D\\uDC4D. Leave empty to remove your reaction.',
		displayOptions: show,
	},
];

export interface ReactionParams {
	reactionMessageId?: unknown;
	reactionEmoji?: unknown;
}

export type ReactionPayload = MessagePayload<'reaction', { message_id: string; emoji: string }>;

const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** `\uD83D\uDC4D` and `\u{1F44D}` escapes → characters; anything else is kept. A lone surrogate is refused. */
export function decodeEmoji(input: string, field = 'Emoji'): string {
	const decoded = input
		.replace(/\\u\{([0-9a-fA-F]{1,6})\}/g, (escape, hex: string) => {
			const codePoint = parseInt(hex, 16);
			if (codePoint > 0x10ffff) throw new MessageInputError(field, `"${escape}" is not a character`);
			return String.fromCodePoint(codePoint);
		})
		.replace(/\\u([0-9a-fA-F]{4})/g, (_escape, hex: string) => String.fromCharCode(parseInt(hex, 16)));
	if (LONE_SURROGATE.test(decoded)) {
		throw new MessageInputError(field, `"${input}" has half of a UTF-16 pair; give both halves, e.g. \\uD83D\\uDC4D`);
	}
	return decoded;
}

// Emoji of every form: pictographs (👍, ❤), flags (regional indicator pairs) and keycaps (1️⃣ ends in U+20E3).
const EMOJI = /\p{Extended_Pictographic}|\p{Regional_Indicator}|\u20E3/u;

export function build(params: ReactionParams): ReactionPayload {
	const messageId = requiredText(params.reactionMessageId, 'Message ID', 'enter the ID of the message to react to');
	const emoji = decodeEmoji(readString(params.reactionEmoji, 'Emoji').trim());
	if (emoji !== '') {
		const graphemes = Array.from(new Intl.Segmenter(undefined, { granularity: 'grapheme' }).segment(emoji));
		if (graphemes.length !== 1 || !EMOJI.test(emoji)) {
			throw new MessageInputError('Emoji', `"${emoji}" is not a single emoji; give one, such as 👍, or leave it empty to remove the reaction`);
		}
	}
	return { type: 'reaction', reaction: { message_id: messageId, emoji } };
}
