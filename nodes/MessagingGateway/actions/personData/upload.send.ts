/**
 * Person Data > Upload: sending a person file to the gateway (`POST /DataInserterProfiles/api/profile`), as it is
 * or as parts written from records while they are sent.
 */
import type { Readable } from 'node:stream';
import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { gatewayRequest } from '../../../gateway/transport';
import { type PersonFilePartSummary, type SourceRecord, splitPersonFile } from '../../persons/parts';
import { PERSON_FILE_FORMATS } from '../../persons/writers';
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
	body: Readable,
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
		throw new NodeApiError(this.getNode(), response.body as JsonObject, {
			message: 'The gateway accepted the upload but its answer has no fileId',
			description: 'The file may have been stored; check the gateway before uploading it again.',
			httpCode: String(response.statusCode),
			itemIndex,
		});
	}
	return {
		fileId: answer.fileId,
		nameFile: answer.nameFile as string | undefined,
		path: answer.path as string | undefined,
		message: answer.message as string | undefined,
	};
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
 * that is the error, not the broken request it caused. `continueAfterFailure` goes on with the next parts.
 */
export async function sendParts(
	this: IExecuteFunctions,
	records: Iterable<SourceRecord> | AsyncIterable<SourceRecord>,
	settings: Settings,
	options: { word: RowWord; fileItemIndex?: number; continueAfterFailure: boolean },
): Promise<{ sent: SentPart[]; failed: FailedPart[] }> {
	const format = PERSON_FILE_FORMATS[settings.format];
	const sent: SentPart[] = [];
	const failed: FailedPart[] = [];
	for await (const part of splitPersonFile(records, { format, maxPartBytes: settings.maxPartBytes })) {
		try {
			const response = await sendFile.call(this, part.stream, settings, options.fileItemIndex);
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
