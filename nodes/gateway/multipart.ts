/**
 * The media upload form (spec 2.7): the text field `messaging_product` and the file part `File`. The only module
 * that knows the form-data package; the file is streamed, never copied into memory here.
 */
import FormData from 'form-data';
import type { Readable } from 'stream';

import { CHANNEL } from './spec';

/** What the transport sends as a multipart body; n8n reads the boundary header from it. */
export type MultipartBody = FormData;

export interface MediaUploadFile {
	data: Buffer | Readable;
	fileName: string;
	mimeType: string;
	/** Byte size, when known: lets the form announce its Content-Length instead of being chunked. */
	size?: number;
}

export function createMediaUploadBody(file: MediaUploadFile): MultipartBody {
	const form = new FormData();
	form.append('messaging_product', CHANNEL);
	form.append('File', file.data, {
		filename: file.fileName,
		contentType: file.mimeType,
		...(file.size !== undefined ? { knownLength: file.size } : {}),
	});
	return form;
}
