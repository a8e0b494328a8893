/**
 * Media > Upload (`POST /api/Medias`, version 6.0): a thin UI over uploadMediaFromBinary, which checks the limits of
 * spec section 8 first and streams the file from n8n's binary store.
 */
import type { IExecuteFunctions, IDataObject, INodeProperties } from 'n8n-workflow';

import { isMediaKind } from '../../../gateway/media';
import { MEDIA_KINDS, MEDIA_LIMITS } from '../../../gateway/spec';
import { uploadMediaFromBinary } from './uploadMedia';
import { readTextParameter } from '../parameters';

const show = { resource: ['media'], operation: ['upload'] };

const AUTO = 'auto';

export const description: INodeProperties[] = [
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the file to upload',
		displayOptions: { show },
	},
	{
		displayName: 'Media Kind',
		name: 'mediaKind',
		type: 'options',
		options: [
			{ name: 'Detect From File Type', value: AUTO, description: 'WebP images are stickers, unknown types documents' },
			...MEDIA_KINDS.map((kind) => ({
				name: kind.charAt(0).toUpperCase() + kind.slice(1),
				value: kind,
				description: `At most ${MEDIA_LIMITS[kind].label}`,
			})),
		],
		default: AUTO,
		description: 'How the file will be sent, which sets the size limit it is checked against',
		displayOptions: { show },
	},
];

export async function execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject> {
	const binaryPropertyName = readTextParameter.call(this, 'binaryPropertyName', itemIndex, 'Input Binary Field');
	const kind = readTextParameter.call(this, 'mediaKind', itemIndex, 'Media Kind') || AUTO;
	const uploaded = await uploadMediaFromBinary.call(
		this,
		itemIndex,
		binaryPropertyName,
		isMediaKind(kind) ? kind : undefined,
	);
	return { ...uploaded };
}
