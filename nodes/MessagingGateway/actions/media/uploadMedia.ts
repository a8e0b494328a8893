/**
 * Uploads a binary property of an input item as gateway media (`POST /api/Medias`, version 6.0) and returns the
 * media id that messages reference. Shared by Media > Upload and by media messages sent from a binary.
 * The limits of spec section 8 are checked first, so an oversized file is refused before a byte leaves n8n, and a
 * file in n8n's binary store is streamed from there rather than read into memory.
 */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';
import type { Readable } from 'stream';

import { base64ByteLength, mediaKindOf, mediaRefusal } from '../../../gateway/media';
import { createMediaUploadBody } from '../../../gateway/multipart';
import type { MediaKind } from '../../../gateway/spec';
import { apiError, gatewayRequest } from '../../../gateway/transport';

export interface UploadedMedia {
	id: string;
	fileName: string;
	mimeType: string;
	fileSize: number;
	kind: MediaKind;
}

export async function uploadMediaFromBinary(
	this: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	kind?: MediaKind,
): Promise<UploadedMedia> {
	const binary = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const mimeType = binary.mimeType || 'application/octet-stream';
	const mediaKind = kind ?? mediaKindOf(mimeType);
	const fileName = binary.fileName ?? `${mediaKind}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;

	let data: Buffer | Readable;
	let fileSize: number;
	if (binary.id) {
		fileSize = (await this.helpers.getBinaryMetadata(binary.id)).fileSize;
		const refusal = mediaRefusal(mediaKind, mimeType, fileSize);
		if (refusal) throw refused(this, refusal, binaryPropertyName, itemIndex);
		data = await this.helpers.getBinaryStream(binary.id);
	} else {
		fileSize = base64ByteLength(binary.data);
		const refusal = mediaRefusal(mediaKind, mimeType, fileSize);
		if (refusal) throw refused(this, refusal, binaryPropertyName, itemIndex);
		data = Buffer.from(binary.data, 'base64');
	}

	const response = await gatewayRequest.call(this, {
		endpoint: 'medias',
		method: 'POST',
		body: createMediaUploadBody({ data, fileName, mimeType, size: fileSize }),
		itemIndex,
	});
	const id = response.body.id;
	if (typeof id !== 'string' && typeof id !== 'number') {
		throw apiError(this, response.body as JsonObject, {
			message: 'The gateway accepted the upload but returned no media id',
			itemIndex,
		});
	}
	return { id: String(id), fileName, mimeType, fileSize, kind: mediaKind };
}

function refused(context: IExecuteFunctions, reason: string, property: string, itemIndex: number) {
	return new NodeOperationError(context.getNode(), `${reason} (binary property "${property}")`, {
		itemIndex,
		description: 'Nothing was uploaded.',
	});
}
