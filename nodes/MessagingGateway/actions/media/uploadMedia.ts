/**
 * Uploads a binary property of an input item as gateway media (`POST /api/Medias`, version 6.0) and returns the
 * media id that messages reference. Shared by Media > Upload and by media messages sent from a binary.
 * The format and size limits of spec section 8 are checked first (the format from the file's first bytes and its
 * declared type), so a file the gateway would refuse or misread leaves nothing behind, and a file in n8n's binary
 * store is streamed from there rather than read into memory.
 */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { base64ByteLength, base64Head, checkMediaFile } from '../../../gateway/media';
import { SIGNATURE_BYTES } from '../../../gateway/mediaFormat';
import { createMediaUploadBody, type FileBytes } from '../../../gateway/multipart';
import type { MediaKind } from '../../../gateway/spec';
import { apiError, gatewayRequest, type GatewayRequest } from '../../../gateway/transport';

export interface UploadedMedia {
	id: string;
	fileName: string;
	/** The content type the file was uploaded with. */
	mimeType: string;
	fileSize: number;
	kind: MediaKind;
}

/** Uploads the binary as `kind`, or as the kind its format suggests when none is given. */
export async function uploadMediaFromBinary(
	this: IExecuteFunctions,
	itemIndex: number,
	binaryPropertyName: string,
	kind?: MediaKind,
	/** A message run's connection (cancel signal) and deadline; none: Media > Upload's own. */
	run?: Pick<GatewayRequest, 'connection' | 'timeoutMs'>,
): Promise<UploadedMedia> {
	const binary = this.helpers.assertBinaryData(itemIndex, binaryPropertyName);
	const declaredType = binary.mimeType ?? '';

	// Only the first bytes are read for the check: a binary in the filesystem store may be a 100 MB stream.
	let fileSize: number;
	let head: Buffer;
	if (binary.id) {
		fileSize = (await this.helpers.getBinaryMetadata(binary.id)).fileSize;
		head = await readHead(await this.helpers.getBinaryStream(binary.id), SIGNATURE_BYTES);
	} else {
		fileSize = base64ByteLength(binary.data);
		head = base64Head(binary.data, SIGNATURE_BYTES);
	}
	const verdict = checkMediaFile({ mimeType: declaredType, size: fileSize, head }, kind);
	if (!verdict.ok) throw refused(this, verdict.reason, binaryPropertyName, itemIndex);
	const { mimeType, kind: mediaKind } = verdict;
	const fileName = binary.fileName ?? `${mediaKind}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;

	const data: FileBytes = binary.id
		? await this.helpers.getBinaryStream(binary.id)
		: Buffer.from(binary.data, 'base64');

	return await uploadCheckedMedia.call(this, itemIndex, { data, fileName, mimeType, fileSize, kind: mediaKind }, run);
}

/** The one upload request (`POST /api/Medias`) of a file whose format and size were already checked for its kind. */
export async function uploadCheckedMedia(
	this: IExecuteFunctions,
	itemIndex: number,
	file: Omit<UploadedMedia, 'id'> & { data: FileBytes },
	run?: Pick<GatewayRequest, 'connection' | 'timeoutMs'>,
): Promise<UploadedMedia> {
	const { data, fileName, mimeType, fileSize, kind } = file;
	const response = await gatewayRequest.call(this, {
		endpoint: 'medias',
		method: 'POST',
		body: createMediaUploadBody({ data, fileName, mimeType, size: fileSize }),
		itemIndex,
		...run,
	});
	const id = response.body.id;
	if (typeof id !== 'string' && typeof id !== 'number') {
		throw apiError(this, response.body as JsonObject, {
			message: 'The gateway accepted the upload but returned no media id',
			itemIndex,
		});
	}
	return { id: String(id), fileName, mimeType, fileSize, kind };
}

/** The first `bytes` bytes of a stream; leaving the loop early closes the stream. */
async function readHead(stream: AsyncIterable<Uint8Array>, bytes: number): Promise<Buffer> {
	const chunks: Uint8Array[] = [];
	let length = 0;
	for await (const chunk of stream) {
		chunks.push(chunk);
		length += chunk.length;
		if (length >= bytes) break;
	}
	return Buffer.concat(chunks).subarray(0, bytes);
}

function refused(context: IExecuteFunctions, reason: string, property: string, itemIndex: number) {
	return new NodeOperationError(context.getNode(), `Input Binary Field "${property}" (item ${itemIndex}): ${reason}`, {
		itemIndex,
		description: 'Nothing was uploaded or sent for this item.',
	});
}
