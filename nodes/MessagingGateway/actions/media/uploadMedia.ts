/**
 * Uploads a file as gateway media (`POST /api/Medias`, version 6.0) and returns the media id that messages reference,
 * for Media > Upload and for media messages. The file comes from a binary property of the input item, or from a URL
 * that is downloaded first. The format and size limits of spec section 8 are checked before the upload (the format
 * from the file's first bytes and its declared type), so a file the gateway would refuse or misread leaves nothing
 * behind, and the bytes are streamed from n8n's binary store or the download rather than read into memory.
 *
 * A download is a request like the gateway's (gateway/transport.ts, Attempt): the Timeout is its idle deadline (no
 * byte for that long ends it, headers included), Stop ends it at once, and it follows at most MAX_DOWNLOAD_REDIRECTS
 * redirects. It goes through `httpRequest`, not `httpRequestWithAuthentication`: the credential's API key must not
 * reach a file host. Its errors name the item, the field and the host, never the rest of the URL (a password, a
 * token), and say that nothing was uploaded; a download that breaks off during the upload cuts the upload before its
 * last byte, so the gateway has nothing complete. A file over its kind's limit is refused before the upload by its
 * Content-Length; an answer without one is read into memory up to the limit (at most 100 MB, a document).
 */
import type { IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { createMediaUploadBody, type FileBytes } from '../../../gateway/blobBody';
import { networkErrorCode } from '../../../gateway/errors';
import {
	base64ByteLength,
	base64Head,
	checkMediaFile,
	declaredLengthOf,
	declaredTypeOf,
	describeDownloadNetworkError,
	fileNameOfDownload,
	hostOf,
	MAX_DOWNLOAD_REDIRECTS,
	MediaTooLargeError,
	peekHead,
	readAll,
	readMediaUrl,
	redirectTarget,
	SIGNATURE_BYTES,
	TOO_MANY_REDIRECTS,
} from '../../../gateway/media';
import type { NodeStream } from '../../../gateway/nodeStream';
import { MEDIA_LIMITS, type MediaKind } from '../../../gateway/spec';
import { apiError } from '../../../gateway/requestErrors';
import { Attempt, type GatewayAnswer, type GatewayRequest } from '../../../gateway/transport';

export interface UploadedMedia {
	id: string;
	fileName: string;
	/** The content type the file was uploaded with. */
	mimeType: string;
	fileSize: number;
	kind: MediaKind;
}

/** How an upload's requests are made: a message run's (a request slot, its Timeout and Stop), or Media > Upload's own. */
export interface UploadRequests {
	request(gatewayRequest: GatewayRequest): Promise<GatewayAnswer>;
	/** n8n's cancel signal of the execution: it ends a download too. */
	signal: AbortSignal | undefined;
	/** The Timeout option (ms): a download's idle deadline. */
	timeoutMs: number;
}

/** Uploads the binary as `kind`, or as the kind its format suggests when none is given. */
export async function uploadMediaFromBinary(
	this: IExecuteFunctions,
	requests: UploadRequests,
	itemIndex: number,
	binaryPropertyName: string,
	kind?: MediaKind,
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
	if (!verdict.ok) {
		throw new NodeOperationError(this.getNode(), `Input Binary Field "${binaryPropertyName}" (item ${itemIndex}): ${verdict.reason}`, {
			itemIndex,
			description: 'Nothing was uploaded or sent for this item.',
		});
	}
	const { mimeType, kind: mediaKind } = verdict;
	const fileName = binary.fileName ?? `${mediaKind}${binary.fileExtension ? `.${binary.fileExtension}` : ''}`;
	const data: FileBytes = binary.id ? await this.helpers.getBinaryStream(binary.id) : Buffer.from(binary.data, 'base64');
	return await uploadCheckedMedia.call(this, requests, itemIndex, { data, fileName, mimeType, fileSize, kind: mediaKind });
}

interface DownloadResponse {
	statusCode: number;
	statusMessage?: string;
	headers: Record<string, unknown>;
	body: NodeStream;
}

const NOTHING_UPLOADED = 'The download failed; nothing was uploaded or sent for this item.';

/**
 * A NodeOperationError that shows `message` as it is: n8n replaces a message that contains a network code with its
 * own words and keeps the original in `messages`, stored with the execution.
 */
function downloadError(context: IExecuteFunctions, itemIndex: number, message: string, description: string): NodeOperationError {
	const error = new NodeOperationError(context.getNode(), message, { itemIndex, description });
	error.message = message;
	error.messages = [];
	return error;
}

/** Downloads the file at `rawUrl` and uploads it as `kind` (or the kind its format suggests). */
export async function uploadMediaFromUrl(
	this: IExecuteFunctions,
	requests: UploadRequests,
	itemIndex: number,
	rawUrl: unknown,
	kind?: MediaKind,
): Promise<UploadedMedia> {
	const refuse = (reason: string) =>
		downloadError(this, itemIndex, `Media URL (item ${itemIndex}): ${reason}`, 'Nothing was uploaded or sent for this item.');
	const read = readMediaUrl(rawUrl);
	if ('problem' in read) throw refuse(read.problem);
	const { url } = read;
	const host = hostOf(url);
	const failed = (reason: string) =>
		downloadError(this, itemIndex, `Media URL (item ${itemIndex}): the download from ${host} failed: ${reason}`, NOTHING_UPLOADED);

	const seconds = Math.round(requests.timeoutMs / 100) / 10;
	// Idle only while the node waits for the file host: not while the upload holds the bytes back (its own deadline).
	const asking = { now: true };
	const attempt = new Attempt(requests.signal, { ms: requests.timeoutMs, idle: true }, () => !asking.now);
	const whyEnded = (error: unknown) =>
		attempt.ended === 'cancel'
			? downloadError(this, itemIndex, `The execution was canceled during the download of item ${itemIndex}'s Media URL from ${host}`, NOTHING_UPLOADED)
			: attempt.ended === 'timeout'
				? failed(`no byte came for ${seconds} s (Timeout option)`)
				: failed(describeDownloadNetworkError(networkErrorCode(error)));

	let source: NodeStream | undefined;
	const destroySource = () => source?.destroy();
	try {
		if (requests.signal?.aborted) throw whyEnded(undefined);
		let response: DownloadResponse | undefined;
		let address = url;
		// The node follows redirects itself: n8n-core 2.0's helper takes no maxRedirects (axios would follow 21).
		for (let redirects = 0; response === undefined; redirects++) {
			let answer: DownloadResponse;
			try {
				answer = (await this.helpers.httpRequest({
					method: 'GET',
					url: address,
					encoding: 'stream',
					returnFullResponse: true,
					ignoreHttpStatusErrors: true,
					disableFollowRedirect: true,
					abortSignal: attempt.signal,
				})) as DownloadResponse;
			} catch (error) {
				throw whyEnded(error);
			}
			const next = redirectTarget(answer.statusCode, answer.headers.location, address);
			if (next === undefined) response = answer;
			else {
				answer.body.destroy();
				if (redirects === MAX_DOWNLOAD_REDIRECTS) throw failed(TOO_MANY_REDIRECTS);
				address = next;
			}
		}
		source = response.body;
		asking.now = false;
		// After the headers the stream is the request: the deadline or Stop end it.
		attempt.signal.addEventListener('abort', destroySource, { once: true });
		if (response.statusCode < 200 || response.statusCode >= 300) {
			const status = `${response.statusCode}${response.statusMessage ? ` ${response.statusMessage}` : ''}`;
			throw refuse(`${host} answered ${status}, not a file`);
		}
		const bytes = downloaded(source, attempt, asking, whyEnded);

		const declaredLength = declaredLengthOf(response.headers['content-length']);
		const { head, whole } = await peekHead(bytes, SIGNATURE_BYTES);
		const verdict = checkMediaFile({ mimeType: declaredTypeOf(response.headers['content-type']), size: declaredLength ?? 0, head }, kind);
		if (!verdict.ok) throw refuse(verdict.reason);
		const { maxBytes, label } = MEDIA_LIMITS[verdict.kind];
		const file = whole({ kind: verdict.kind, maxBytes, label });
		const fileName = fileNameOfDownload(url, response.headers['content-disposition'], verdict.kind, verdict.format);
		const upload = { fileName, mimeType: verdict.mimeType, kind: verdict.kind };

		if (declaredLength === undefined) {
			const data = await readAll(file).catch((error: unknown) => {
				throw error instanceof MediaTooLargeError ? refuse(error.message) : error;
			});
			return await uploadCheckedMedia.call(this, requests, itemIndex, { ...upload, data, fileSize: data.length });
		}
		return await uploadCheckedMedia.call(this, requests, itemIndex, { ...upload, data: file, fileSize: declaredLength });
	} finally {
		// An upload that failed before reading the file (or read it all) leaves no download open.
		attempt.signal.removeEventListener('abort', destroySource);
		attempt.end();
		source?.destroy();
	}
}

/** The one upload request (`POST /api/Medias`) of a file whose format and size were already checked for its kind. */
async function uploadCheckedMedia(
	this: IExecuteFunctions,
	requests: UploadRequests,
	itemIndex: number,
	file: Omit<UploadedMedia, 'id'> & { data: FileBytes },
): Promise<UploadedMedia> {
	const { data, fileName, mimeType, fileSize, kind } = file;
	const response = await requests.request({
		endpoint: 'medias',
		method: 'POST',
		body: createMediaUploadBody({ data, fileName, mimeType, size: fileSize }),
		itemIndex,
		timeoutMs: requests.timeoutMs,
	});
	const id = response.body.id;
	if (typeof id !== 'string' && typeof id !== 'number') {
		throw apiError(this, response.body as JsonObject, { message: 'The gateway accepted the upload but returned no media id', itemIndex });
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

/**
 * The download's bytes as they arrive: each chunk restarts the idle deadline, which counts only while a chunk is asked
 * for; a stream that breaks off, stalls past the Timeout or is stopped ends with the error that says so.
 */
async function* downloaded(
	source: NodeStream,
	attempt: Attempt,
	asking: { now: boolean },
	whyEnded: (error: unknown) => NodeOperationError,
): AsyncGenerator<Uint8Array> {
	let failure: unknown;
	const chunks = (source as AsyncIterable<Uint8Array>)[Symbol.asyncIterator]();
	for (;;) {
		asking.now = true;
		const next = await chunks.next().catch((error: unknown) => {
			failure = error;
			return undefined;
		});
		asking.now = false;
		if (next === undefined || attempt.ended) throw whyEnded(failure);
		if (next.done) return;
		attempt.touch();
		yield next.value;
	}
}
