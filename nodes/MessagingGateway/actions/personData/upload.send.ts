/**
 * Person Data > Upload: sending a person file to the gateway (`POST /DataInserterProfiles/api/profile`), as it is
 * or as parts written from records while they are sent.
 */
import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { NodeStream } from '../../../gateway/nodeStream';
import { gatewayRequest, uncertain } from '../../../gateway/transport';
import { type PersonFilePartSummary, type SourceRecord, splitPersonFile } from '../../persons/parts';
import { PERSON_FILE_FORMATS } from '../../persons/writers';
import { RetrySafeRequests } from '../retrySafe';
import { asUploadError, type RowWord, type UploadError } from './upload.errors';
import type { Settings } from './upload.fields';

/** The gateway's answer to an upload (spec 2.8): the file id follows the processing of the file. */
export interface UploadResponse {
	fileId: string;
	nameFile?: string;
	path?: string;
	message?: string;
}

export async function sendFile(
	this: IExecuteFunctions,
	body: NodeStream,
	settings: Settings,
	itemIndex: number | undefined,
	contentLength?: number,
): Promise<UploadResponse> {
	const response = await gatewayRequest.call(this, {
		endpoint: 'personUpload',
		method: 'POST',
		body,
		contentType: PERSON_FILE_FORMATS[settings.format].contentType,
		contentLength,
		retryOn429: false,
		itemIndex,
	});
	const answer = response.body.response as IDataObject | undefined;
	// The file id is what the user follows the processing by: an answer without one is not a success.
	if (typeof answer !== 'object' || answer === null || typeof answer.fileId !== 'string' || answer.fileId === '') {
		throw uncertain(
			new NodeApiError(this.getNode(), response.body as JsonObject, {
				message: 'The gateway accepted the upload but its answer has no fileId',
				description: 'The file may have been stored; check the gateway before uploading it again.',
				httpCode: String(response.statusCode),
				itemIndex,
			}),
		);
	}
	return {
		fileId: answer.fileId,
		nameFile: answer.nameFile as string | undefined,
		path: answer.path as string | undefined,
		message: answer.message as string | undefined,
	};
}

// ---- Retry On Fail ----

/**
 * Uploads of this process's node runs that the gateway accepted or may have accepted, per run (retrySafe.ts): when
 * n8n's Retry On Fail runs the node again, such a file or part is not uploaded again and its earlier answer (or error)
 * is used. Keys: `items part <n>` for the parts of the items' file, `file <item>` for a binary file sent as it is,
 * `file <item> part <n>` for the parts of a rewritten one. Within a run the input items and the parameters are the
 * same on every try, so the same key means the same bytes.
 */
const uploadRecord = new RetrySafeRequests<UploadResponse>();

/** A whole file sent as it is, once per run: a retry reuses the answer (the caller still reads the file to check it). */
export async function sendFileOnce(
	this: IExecuteFunctions,
	key: string,
	open: () => Promise<NodeStream>,
	settings: Settings,
	itemIndex: number,
	contentLength: number,
): Promise<UploadResponse> {
	const earlier = uploadRecord.earlier(this, key, itemIndex);
	if (earlier) return earlier;
	return await uploadRecord.send(this, key, async () => await sendFile.call(this, await open(), settings, itemIndex, contentLength));
}

export interface SentPart {
	summary: PersonFilePartSummary;
	response: UploadResponse;
}

export interface FailedPart {
	/** What the part had taken when it failed: its items are the ones the failure is about. */
	summary: PersonFilePartSummary;
	error: UploadError | NodeApiError;
}

/**
 * Splits the records into parts and sends them one after the other, each written while it is sent. A part that
 * fails is reported with its cause: when the part's own source failed (a record too large, a file that breaks off),
 * that is the error, not the broken request it caused. `continueAfterFailure` goes on with the next parts. A part
 * accepted in an earlier try of this run (Retry On Fail) is not sent again; `recordKey` names the file in that record.
 */
export async function sendParts(
	this: IExecuteFunctions,
	records: Iterable<SourceRecord> | AsyncIterable<SourceRecord>,
	settings: Settings,
	options: { word: RowWord; fileItemIndex?: number; continueAfterFailure: boolean; recordKey: string },
): Promise<{ sent: SentPart[]; failed: FailedPart[] }> {
	const format = PERSON_FILE_FORMATS[settings.format];
	const sent: SentPart[] = [];
	const failed: FailedPart[] = [];
	for await (const part of splitPersonFile(records, { format, maxPartBytes: settings.maxPartBytes })) {
		const key = `${options.recordKey} part ${part.index}`;
		try {
			const earlier = uploadRecord.earlier(this, key, options.fileItemIndex);
			let response: UploadResponse;
			if (earlier) {
				// Accepted in an earlier try: its records are read past (the next part starts after them), not sent.
				for await (const _ of part.stream);
				response = earlier;
			} else {
				response = await uploadRecord.send(this, key, async () => await sendFile.call(this, part.stream, settings, options.fileItemIndex));
			}
			sent.push({ summary: await part.finished, response });
		} catch (error) {
			// Ends the part's stream if the request gave up on it first, so that `finished` settles.
			part.stream.destroy();
			await part.finished.catch(() => undefined);
			const cause = part.failure() ?? error;
			failed.push({ summary: part.summary, error: asUploadError(this, cause, options.word, options.fileItemIndex) });
			if (!options.continueAfterFailure) break;
		}
	}
	return { sent, failed };
}

/** `items 0-99, 120`: the items (or records) of a part, from its ranges. */
export function rangesText(itemRanges: readonly number[]): string {
	const ranges: string[] = [];
	for (let r = 0; r < itemRanges.length; r += 2) {
		const [first, last] = [itemRanges[r], itemRanges[r + 1]];
		ranges.push(first === last ? String(first) : `${first}-${last}`);
		if (ranges.length === 5 && r + 2 < itemRanges.length) {
			ranges.push('…');
			break;
		}
	}
	return ranges.join(', ');
}
