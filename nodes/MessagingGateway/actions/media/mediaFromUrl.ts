/**
 * Media from a URL: downloaded through n8n's HTTP helper as a stream, checked as a binary file is (the format from
 * its first bytes and its Content-Type, the size from its Content-Length), then uploaded (`POST /api/Medias`) with the
 * same request as a binary. A file over its kind's limit is refused before the upload by its Content-Length; an
 * answer without one is read into memory up to the limit (at most 100 MB, a document) and refused as soon as it
 * passes it, so the gateway never gets part of a file.
 *
 * The download is a request like the gateway's (gateway/attempt.ts): the node's Timeout is its idle deadline (no byte
 * for that long ends it, headers included), Stop ends it at once, and it follows at most MAX_DOWNLOAD_REDIRECTS
 * redirects. It goes through `httpRequest`, not `httpRequestWithAuthentication`: the credential's API key must not
 * reach a file host. Its errors name the item, the field and the host, never the rest of the URL (a password, a
 * token), and say that nothing was uploaded; a download that breaks off during the upload cuts the upload before its
 * last byte, so the gateway has nothing complete.
 */
import type { IExecuteFunctions } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { Attempt, networkErrorCode } from '../../../gateway/attempt';
import { Cancellation } from '../../../gateway/connection';
import { checkMediaFile } from '../../../gateway/media';
import { SIGNATURE_BYTES } from '../../../gateway/mediaFormat';
import type { NodeStream } from '../../../gateway/nodeStream';
import {
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
	TOO_MANY_REDIRECTS,
} from '../../../gateway/mediaUrl';
import { MEDIA_LIMITS, type MediaKind } from '../../../gateway/spec';
import { REQUEST_TIMEOUT_MS, type GatewayRequest } from '../../../gateway/transport';
import { uploadCheckedMedia, type UploadedMedia } from './uploadMedia';

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
	itemIndex: number,
	rawUrl: unknown,
	kind?: MediaKind,
	/** A message run's connection (cancel signal) and deadline; none: Media > Upload's own. */
	run?: Pick<GatewayRequest, 'connection' | 'timeoutMs'>,
): Promise<UploadedMedia> {
	const refuse = (reason: string) =>
		downloadError(this, itemIndex, `Media URL (item ${itemIndex}): ${reason}`, 'Nothing was uploaded or sent for this item.');
	const read = readMediaUrl(rawUrl);
	if ('problem' in read) throw refuse(read.problem);
	const { url } = read;
	const host = hostOf(url);
	const failed = (reason: string) =>
		downloadError(this, itemIndex, `Media URL (item ${itemIndex}): the download from ${host} failed: ${reason}`, NOTHING_UPLOADED);

	const ownCancel = run?.connection ? undefined : new Cancellation(this.getExecutionCancelSignal());
	const cancel = run?.connection?.cancel ?? (ownCancel as Cancellation);
	const timeoutMs = run?.timeoutMs ?? REQUEST_TIMEOUT_MS;
	const seconds = Math.round(timeoutMs / 100) / 10;
	// Idle only while the node waits for the file host: not while the upload holds the bytes back (its own deadline).
	const asking = { now: true };
	const attempt = new Attempt(cancel, { ms: timeoutMs, idle: true }, () => !asking.now);
	const whyEnded = (error: unknown) =>
		attempt.ended === 'cancel'
			? downloadError(
					this,
					itemIndex,
					`The execution was canceled during the download of item ${itemIndex}'s Media URL from ${host}`,
					NOTHING_UPLOADED,
				)
			: attempt.ended === 'timeout'
				? failed(`no byte came for ${seconds} s (Timeout option)`)
				: failed(describeDownloadNetworkError(networkErrorCode(error)));

	let source: NodeStream | undefined;
	const destroySource = () => source?.destroy();
	try {
		if (cancel.aborted) throw whyEnded(undefined);
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
		const verdict = checkMediaFile(
			{ mimeType: declaredTypeOf(response.headers['content-type']), size: declaredLength ?? 0, head },
			kind,
		);
		if (!verdict.ok) throw refuse(verdict.reason);
		const { maxBytes, label } = MEDIA_LIMITS[verdict.kind];
		const file = whole({ kind: verdict.kind, maxBytes, label });
		const fileName = fileNameOfDownload(url, response.headers['content-disposition'], verdict.kind, verdict.format);
		const upload = { fileName, mimeType: verdict.mimeType, kind: verdict.kind };

		if (declaredLength === undefined) {
			const data = await readAll(file).catch((error: unknown) => {
				throw error instanceof MediaTooLargeError ? refuse(error.message) : error;
			});
			return await uploadCheckedMedia.call(this, itemIndex, { ...upload, data, fileSize: data.length }, run);
		}
		return await uploadCheckedMedia.call(this, itemIndex, { ...upload, data: file, fileSize: declaredLength }, run);
	} finally {
		// An upload that failed before reading the file (or read it all) leaves no download open.
		attempt.signal.removeEventListener('abort', destroySource);
		attempt.end();
		source?.destroy();
		ownCancel?.close();
	}
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
