/**
 * Media > Upload (`POST /api/Medias`, version 6.0): a thin UI over uploadMediaFromBinary and uploadMediaFromUrl
 * (uploadMedia.ts), which check the format and size limits of spec section 8 first and stream the file from n8n's
 * binary store or the link.
 */
import type { IExecuteFunctions, IDataObject, INodeProperties } from 'n8n-workflow';

import { acceptedFormatsOf, isMediaKind } from '../../../gateway/media';
import { MEDIA_KINDS, MEDIA_LIMITS } from '../../../gateway/spec';
import { gatewayRequest, openConnection } from '../../../gateway/transport';
import { optionsWithTimeout, readTextParameter, timeoutMsOf } from '../common';
import { uploadMediaFromBinary, uploadMediaFromUrl, type UploadRequests } from './uploadMedia';

const show = { resource: ['media'], operation: ['upload'] };

const AUTO = 'auto';

export const description: INodeProperties[] = [
	{
		displayName: 'Media Source',
		name: 'mediaSource',
		type: 'options',
		noDataExpression: true,
		options: [
			{ name: 'Binary File', value: 'binary', description: 'A file of the input item' },
			{ name: 'URL', value: 'url', description: 'A file downloaded from a link, then checked and uploaded' },
		],
		default: 'binary',
		displayOptions: { show },
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the file to upload',
		displayOptions: { show: { ...show, mediaSource: ['binary'] } },
	},
	{
		displayName: 'Media URL',
		name: 'mediaUrl',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. https://example.com/brochure.pdf',
		description: 'An http(s) link to the file; it is downloaded and checked like a binary file before the upload',
		displayOptions: { show: { ...show, mediaSource: ['url'] } },
	},
	{
		displayName: 'Media Kind',
		name: 'mediaKind',
		type: 'options',
		options: [
			{
				name: 'Detect From File',
				value: AUTO,
				description:
					'From the file’s content: JPEG and PNG are images, WebP stickers, MP4 and 3GPP videos (MP4 with an audio type audio), AAC, MPEG, AMR and OGG Opus audio, anything else a document',
			},
			...MEDIA_KINDS.map((kind) => ({
				name: kind.charAt(0).toUpperCase() + kind.slice(1),
				value: kind,
				description: `${acceptedFormatsOf(kind)}, at most ${MEDIA_LIMITS[kind].label}`,
			})),
		],
		default: AUTO,
		description: 'How the file will be sent, which sets the formats and size limit it is checked against',
		displayOptions: { show },
	},
	optionsWithTimeout(show),
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const kind = readTextParameter.call(this, 'mediaKind', itemIndex, 'Media Kind') || AUTO;
	const requestedKind = isMediaKind(kind) ? kind : undefined;
	const connection = await openConnection.call(this);
	const requests: UploadRequests = {
		request: async (upload) => await gatewayRequest.call(this, { ...upload, connection }),
		signal: connection.signal,
		timeoutMs: timeoutMsOf.call(this, itemIndex),
	};
	if (this.getNodeParameter('mediaSource', itemIndex, 'binary') === 'url') {
		const url = this.getNodeParameter('mediaUrl', itemIndex, '');
		return { ...(await uploadMediaFromUrl.call(this, requests, itemIndex, url, requestedKind)) };
	}
	const binaryPropertyName = readTextParameter.call(this, 'binaryPropertyName', itemIndex, 'Input Binary Field');
	return { ...(await uploadMediaFromBinary.call(this, requests, itemIndex, binaryPropertyName, requestedKind)) };
}
