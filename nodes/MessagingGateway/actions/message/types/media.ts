/**
 * Media messages (spec 2.2, types `image`, `audio`, `video`, `document`, `sticker`): `{ <kind>: { id } }`, with a
 * `caption` for image, video and document (CAPTIONED_MEDIA_KINDS) and a `filename` for a document.
 * The media is an existing media id, a file in a binary property of the input item, or a URL that the send operation
 * downloads (actions/media/uploadMedia.ts); a file is uploaded first (POST /api/Medias) to get the id, after the
 * size limit and the format of the kind (spec 8) are checked.
 */
import type { INodeProperties } from 'n8n-workflow';

import { acceptedFormatsOf } from '../../../../gateway/mediaFormat';

export { isMediaKind } from '../../../../gateway/mediaFormat';
import { readMediaUrl } from '../../../../gateway/mediaUrl';
import { CAPTIONED_MEDIA_KINDS, MEDIA_KINDS, MEDIA_LIMITS, type MediaKind } from '../../../../gateway/spec';
import {
	MessageInputError,
	type MessagePayload,
	optionalText,
	requiredText,
	showForMessageTypes,
} from './common';

const allKinds = [...MEDIA_KINDS];

function formatsOf(kind: MediaKind): string {
	return `${acceptedFormatsOf(kind)} up to ${MEDIA_LIMITS[kind].label}`;
}

export const fields: INodeProperties[] = [
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
export function build(input: MediaInput, mediaId: string, uploadedFileName = ''): MediaPayload {
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
