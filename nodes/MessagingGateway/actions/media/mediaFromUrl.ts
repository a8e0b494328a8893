/**
 * Media from a URL: downloaded through n8n's HTTP helper as a stream, checked as a binary file is (the format from
 * its first bytes and its Content-Type, the size from its Content-Length), then uploaded (`POST /api/Medias`) with the
 * same request as a binary. A file over its kind's limit is refused before the upload by its Content-Length; an
 * answer without one is read into memory up to the limit (at most 100 MB, a document) and refused as soon as it
 * passes it, so the gateway never gets part of a file.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { networkErrorCode } from '../../../gateway/attempt';
import { checkMediaFile } from '../../../gateway/media';
import { SIGNATURE_BYTES } from '../../../gateway/mediaFormat';
import type { NodeStream } from '../../../gateway/nodeStream';
import {
	declaredLengthOf,
	declaredTypeOf,
	fileNameOfDownload,
	MediaTooLargeError,
	peekHead,
	readAll,
	readMediaUrl,
} from '../../../gateway/mediaUrl';
import { MEDIA_LIMITS, type MediaKind } from '../../../gateway/spec';
import type { GatewayRequest } from '../../../gateway/transport';
import { uploadCheckedMedia, type UploadedMedia } from './uploadMedia';

/** Deadline of the download's connection and of each pause in its data. */
const DOWNLOAD_TIMEOUT_MS = 60_000;

interface DownloadResponse {
	statusCode: number;
	statusMessage?: string;
	headers: Record<string, unknown>;
	body: NodeStream;
}

/** Downloads the file at `rawUrl` and uploads it as `kind` (or the kind its format suggests). */
export async function uploadMediaFromUrl(
	this: IExecuteFunctions,
	itemIndex: number,
	rawUrl: unknown,
	kind?: MediaKind,
	/** A message run's connection (cancel signal) and deadline; none: Media > Upload's own. */
	run?: Pick<GatewayRequest, 'connection' | 'timeoutMs'>,
): Promise<UploadedMedia> {
	const refuse = (reason: string) =>
		new NodeOperationError(this.getNode(), `Media URL (item ${itemIndex}): ${reason}`, {
			itemIndex,
			description: 'Nothing was uploaded or sent for this item.',
		});
	const read = readMediaUrl(rawUrl);
	if ('problem' in read) throw refuse(read.problem);
	const { url } = read;

	let response: DownloadResponse;
	try {
		response = (await this.helpers.httpRequest({
			method: 'GET',
			url,
			encoding: 'stream',
			returnFullResponse: true,
			ignoreHttpStatusErrors: true,
			timeout: DOWNLOAD_TIMEOUT_MS,
		})) as DownloadResponse;
	} catch (error) {
		throw refuse(`could not download ${url} (${networkErrorCode(error) ?? (error as Error).message})`);
	}
	const source = response.body;
	if (response.statusCode < 200 || response.statusCode >= 300) {
		source.destroy();
		const status = `${response.statusCode}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
		throw refuse(`${url} answered ${status}, not a file`);
	}

	const declaredLength = declaredLengthOf(response.headers['content-length']);
	let peeked: Awaited<ReturnType<typeof peekHead>>;
	try {
		peeked = await peekHead(source, SIGNATURE_BYTES);
	} catch (error) {
		source.destroy();
		throw refuse(`the download of ${url} broke off (${(error as Error).message})`);
	}
	const { head, whole } = peeked;
	const verdict = checkMediaFile(
		{ mimeType: declaredTypeOf(response.headers['content-type']), size: declaredLength ?? 0, head },
		kind,
	);
	if (!verdict.ok) {
		source.destroy();
		throw refuse(verdict.reason);
	}
	const { maxBytes, label } = MEDIA_LIMITS[verdict.kind];
	const file = whole({ kind: verdict.kind, maxBytes, label });
	const fileName = fileNameOfDownload(url, response.headers['content-disposition'], verdict.kind, verdict.format);
	const upload = { fileName, mimeType: verdict.mimeType, kind: verdict.kind };

	try {
		if (declaredLength === undefined) {
			let data: Buffer;
			try {
				data = await readAll(file);
			} catch (error) {
				throw refuse(error instanceof MediaTooLargeError ? error.message : `the download of ${url} broke off (${(error as Error).message})`);
			}
			return await uploadCheckedMedia.call(this, itemIndex, { ...upload, data, fileSize: data.length }, run);
		}
		return await uploadCheckedMedia.call(this, itemIndex, { ...upload, data: file, fileSize: declaredLength }, run);
	} finally {
		// An upload that failed before reading the file (or read it all) leaves no download open.
		source.destroy();
	}
}
