/**
 * The message types whose body is one small object (spec 2.2): Text, Location, Reaction and the media types. For
 * each: the fields the editor shows, and a pure builder of its payload.
 *
 * - Text (`text`): `{ text: { body } }`.
 * - Location (`location`): latitude and longitude as strings, name and address. The coordinates are checked to be
 *   numbers in range before they are turned into text; an empty name or address is left out.
 * - Reaction (`reaction`): the id of the message reacted to and an emoji. The emoji may be typed as the character or
 *   as escaped UTF-16 code units (`\uD83D\uDC4D`, as many systems export it); escapes are decoded before sending. An
 *   empty emoji removes an earlier reaction.
 * - Media (`image`, `audio`, `video`, `document`, `sticker`): `{ <kind>: { id } }`, with a `caption` for image, video
 *   and document (CAPTIONED_MEDIA_KINDS) and a `filename` for a document. The media is an existing media id, a file
 *   in a binary property of the input item, or a URL that the send operation downloads (actions/media/uploadMedia.ts);
 *   a file is uploaded first (POST /api/Medias) to get the id, after the size and format of its kind (spec 8) are checked.
 */
import type { INodeProperties } from 'n8n-workflow';

import { acceptedFormatsOf, readMediaUrl } from '../../../../gateway/media';
import { CAPTIONED_MEDIA_KINDS, MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from '../../../../gateway/spec';
import { MessageInputError, type MessagePayload, optionalText, readString, requiredText, showForMessageTypes } from './common';

// ---- Text ----

export const textFields: INodeProperties[] = [
	{
		displayName: 'Text',
		name: 'textBody',
		type: 'string',
		typeOptions: { rows: 4 },
		default: '',
		required: true,
		placeholder: 'e.g. Hello! Your order has shipped.',
		description:
			'The message text. Line breaks are kept; *bold*, _italic_ and ~strikethrough~ use the network\'s own formatting.',
		displayOptions: showForMessageTypes(['text']),
	},
];

export interface TextParams {
	textBody?: unknown;
}

export type TextPayload = MessagePayload<'text', { body: string }>;

export function buildText(params: TextParams): TextPayload {
	// Not trimmed: leading spaces or a final line break may be intended; only an all-blank text is refused.
	requiredText(params.textBody, 'Text', 'enter the message to send');
	return { type: 'text', text: { body: String(params.textBody) } };
}

// ---- Location ----

const locationShow = showForMessageTypes(['location']);

export const locationFields: INodeProperties[] = [
	// Text fields without a default: a number field would default to 0 and send a pin in the ocean when left empty.
	{
		displayName: 'Latitude',
		name: 'latitude',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. -23.5613',
		description: 'Latitude in decimal degrees, from -90 (south) to 90 (north)',
		displayOptions: locationShow,
	},
	{
		displayName: 'Longitude',
		name: 'longitude',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. -46.6565',
		description: 'Longitude in decimal degrees, from -180 (west) to 180 (east)',
		displayOptions: locationShow,
	},
	{
		displayName: 'Name',
		name: 'locationName',
		type: 'string',
		default: '',
		placeholder: 'e.g. Avenida Paulista Store',
		description: 'Optional name of the place',
		displayOptions: locationShow,
	},
	{
		displayName: 'Address',
		name: 'locationAddress',
		type: 'string',
		default: '',
		placeholder: 'e.g. Av. Paulista, 1578 - São Paulo',
		description: 'Optional address of the place',
		displayOptions: locationShow,
	},
];

export interface LocationParams {
	latitude?: unknown;
	longitude?: unknown;
	locationName?: unknown;
	locationAddress?: unknown;
}

export type LocationPayload = MessagePayload<
	'location',
	{ latitude: string; longitude: string; name?: string; address?: string }
>;

/** A coordinate from a number field or an expression's text ("-23.5613", also "-23,5613"), checked to be in range. */
export function readCoordinate(value: unknown, field: string, limit: number): number {
	const text = readString(value, field).trim().replace(',', '.');
	if (text === '') throw new MessageInputError(field, `is required; enter decimal degrees between -${limit} and ${limit}`);
	const number = Number(text);
	if (!Number.isFinite(number)) throw new MessageInputError(field, `"${readString(value, field)}" is not a number`);
	if (number < -limit || number > limit) {
		throw new MessageInputError(field, `${number} is out of range; it must be between -${limit} and ${limit}`);
	}
	return number;
}

/** Plain decimal text: String() would write tiny values such as 1e-7 in exponent form. */
function coordinateText(value: number): string {
	const text = String(value);
	return text.includes('e') ? value.toFixed(10).replace(/\.?0+$/, '') : text;
}

export function buildLocation(params: LocationParams): LocationPayload {
	const latitude = readCoordinate(params.latitude, 'Latitude', 90);
	const longitude = readCoordinate(params.longitude, 'Longitude', 180);
	const name = optionalText(params.locationName, 'Name');
	const address = optionalText(params.locationAddress, 'Address');
	return {
		type: 'location',
		location: {
			latitude: coordinateText(latitude),
			longitude: coordinateText(longitude),
			...(name === '' ? {} : { name }),
			...(address === '' ? {} : { address }),
		},
	};
}

// ---- Reaction ----

const reactionShow = showForMessageTypes(['reaction']);

export const reactionFields: INodeProperties[] = [
	{
		displayName: 'Message ID',
		name: 'reactionMessageId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABEYEjQ2',
		description: 'ID of the message to react to, as given in the incoming message notification or a send response',
		displayOptions: reactionShow,
	},
	{
		displayName: 'Emoji',
		name: 'reactionEmoji',
		type: 'string',
		default: '',
		placeholder: 'e.g. 👍',
		description:
			'One emoji, typed as the character or as escaped UTF-16 such as \\uD83D\\uDC4D. Leave empty to remove your reaction.',
		displayOptions: reactionShow,
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

export function buildReaction(params: ReactionParams): ReactionPayload {
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

// ---- Media ----

const allKinds = [...MEDIA_KINDS];

function formatsOf(kind: MediaKind): string {
	return `${acceptedFormatsOf(kind)} up to ${MEDIA_LIMITS[kind].label}`;
}

export const mediaFields: INodeProperties[] = [
	{
		displayName: 'Media Source',
		name: 'mediaSource',
		type: 'options',
		noDataExpression: true,
		options: [
			{
				name: 'Binary File',
				value: 'binary',
				description: 'Upload a file of the input item first, then send it',
			},
			{
				name: 'Media ID',
				value: 'id',
				description: 'Send media uploaded earlier, by the ID the upload returned',
			},
			{
				name: 'URL',
				value: 'url',
				description: 'Download the file from a link, check it as a binary file, upload it, then send it',
			},
		],
		default: 'binary',
		displayOptions: showForMessageTypes(allKinds),
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input field containing the binary file data to be sent',
		description: `Accepted files: image ${formatsOf('image')}; audio ${formatsOf('audio')}; video ${formatsOf('video')}; document ${formatsOf('document')}; sticker ${formatsOf('sticker')}`,
		displayOptions: showForMessageTypes(allKinds, { mediaSource: ['binary'] }),
	},
	{
		displayName: 'Media ID',
		name: 'mediaId',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. 1234567890123456',
		description: 'ID returned by an earlier media upload',
		displayOptions: showForMessageTypes(allKinds, { mediaSource: ['id'] }),
	},
	{
		displayName: 'Media URL',
		name: 'mediaUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/photo.jpg',
		description: 'An http(s) link to the file. It is downloaded, checked for the formats and size of its kind, and uploaded before the message is sent.',
		displayOptions: showForMessageTypes(allKinds, { mediaSource: ['url'] }),
	},
	{
		displayName: 'Caption',
		name: 'mediaCaption',
		type: 'string',
		typeOptions: { rows: 2 },
		default: '',
		description: 'Optional text shown under the image, video or document (audio and stickers have none on the network)',
		displayOptions: showForMessageTypes([...CAPTIONED_MEDIA_KINDS]),
	},
	{
		displayName: 'File Name',
		name: 'documentFilename',
		type: 'string',
		default: '',
		placeholder: 'e.g. invoice-2024-05.pdf',
		description: 'Name the recipient sees for the document. When empty, the name of the binary file is used.',
		displayOptions: showForMessageTypes(['document']),
	},
];

export interface MediaParams {
	mediaSource?: unknown;
	mediaId?: unknown;
	mediaUrl?: unknown;
	binaryPropertyName?: unknown;
	mediaCaption?: unknown;
	documentFilename?: unknown;
}

export type MediaSource =
	| { source: 'id'; mediaId: string }
	| { source: 'url'; url: string }
	| { source: 'binary'; binaryPropertyName: string };

/** Everything of a media message but the uploaded id: read and checked before any upload or send. */
export interface MediaInput {
	kind: MediaKind;
	from: MediaSource;
	/** Image, video and document; '' when empty or for other kinds. */
	caption: string;
	/** Documents only; '' when empty, then the binary's file name is used. */
	filename: string;
}


export function readMediaInput(kind: MediaKind, params: MediaParams): MediaInput {
	const isDocument = kind === 'document';
	const hasCaption = (CAPTIONED_MEDIA_KINDS as readonly MediaKind[]).includes(kind);
	return {
		kind,
		from: readMediaSource(params),
		caption: hasCaption ? optionalText(params.mediaCaption, 'Caption') : '',
		filename: isDocument ? optionalText(params.documentFilename, 'File Name') : '',
	};
}

function readMediaSource(params: MediaParams): MediaSource {
	if (params.mediaSource === 'id') {
		const mediaId = requiredText(params.mediaId, 'Media ID', 'enter the ID returned by a media upload');
		if (/\s/.test(mediaId)) throw new MessageInputError('Media ID', `"${mediaId}" contains spaces; a media ID never does`);
		return { source: 'id', mediaId };
	}
	if (params.mediaSource === 'url') {
		const read = readMediaUrl(params.mediaUrl);
		if ('problem' in read) throw new MessageInputError('Media URL', read.problem);
		return { source: 'url', url: read.url };
	}
	const binaryPropertyName = requiredText(
		params.binaryPropertyName,
		'Input Binary Field',
		'enter the name of the binary field of the input item, e.g. data',
	);
	return { source: 'binary', binaryPropertyName };
}

export type MediaObject = { id: string; caption?: string; filename?: string };
export type MediaPayload = { [K in MediaKind]: MessagePayload<K, MediaObject> }[MediaKind];

/**
 * The payload once the media id is known. `uploadedFileName` is the uploaded binary's name, the default file name
 * of a document. A caption (image, video, document) and a file name (document) are left out when empty.
 */
export function buildMedia(input: MediaInput, mediaId: string, uploadedFileName = ''): MediaPayload {
	const { kind } = input;
	const caption = input.caption === '' ? {} : { caption: input.caption };
	// The computed key loses the link between `type` and the object's name that MediaPayload states.
	if (kind !== 'document') return { type: kind, [kind]: { id: mediaId, ...caption } } as MediaPayload;
	const filename = input.filename || uploadedFileName.trim();
	return {
		type: 'document',
		document: { id: mediaId, ...caption, ...(filename === '' ? {} : { filename }) },
	};
}
