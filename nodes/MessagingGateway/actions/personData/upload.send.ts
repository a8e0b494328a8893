/**
 * Person Data > Upload: sending a person file to the gateway (`POST /DataInserterProfiles/api/profile`), as it is
 * or as planned parts (parts.ts) written from records while they are sent.
 */
import type { IDataObject, IExecuteFunctions, JsonObject } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { BlobBody } from '../../../gateway/blobBody';
import { hasUnknownOutcome, markUnknownOutcome } from '../../../gateway/errors';
import { gatewayRequest } from '../../../gateway/transport';
import { type PartPlan, type PartRecords, PersonPartBody, type PlannedPart } from '../../persons/parts';
import { PERSON_FILE_FORMATS } from '../../persons/writers';
import { replayedFailure, type RetryMemory, type UncertainFailure, uncertainFailureOf } from '../retryMemory';
import { asNodeError } from '../common';
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
	body: BlobBody,
	settings: Settings,
	itemIndex: number | undefined,
): Promise<UploadResponse> {
	const response = await gatewayRequest.call(this, {
		endpoint: 'personUpload',
		method: 'POST',
		body,
		contentType: PERSON_FILE_FORMATS[settings.format].contentType,
		itemIndex,
		timeoutMs: settings.timeoutMs,
	});
	const answer = response.body.response as IDataObject | undefined;
	// The file id is what the user follows the processing by: an answer without one is not a success.
	if (typeof answer !== 'object' || answer === null || typeof answer.fileId !== 'string' || answer.fileId === '') {
		throw markUnknownOutcome(
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
 * A whole file sent as it is, once per node run (retryMemory.ts): when n8n's Retry On Fail runs the node again, a file
 * the gateway accepted or may have accepted is not uploaded again; its answer (or error) is used. Key: `file <item>`.
 * The caller still reads the file to check it.
 */
export async function sendFileOnce(
	this: IExecuteFunctions,
	key: string,
	open: () => Promise<BlobBody>,
	settings: Settings,
	itemIndex: number,
): Promise<UploadResponse> {
	const { retries } = settings;
	const earlier = retries.answerOf<UploadResponse>('personFiles', key, itemIndex);
	if (earlier) return earlier;
	try {
		const response = await sendFile.call(this, await open(), settings, itemIndex);
		retries.accepted('personFiles', key, response);
		return response;
	} catch (error) {
		retries.failed('personFiles', key, error);
		throw asNodeError(this.getNode(), error, itemIndex);
	}
}

export interface SentPart {
	summary: PlannedPart;
	response: UploadResponse;
}

export interface FailedPart {
	/** The failed part as planned: its items are the ones the failure is about. */
	summary: PlannedPart;
	error: UploadError | NodeApiError;
}

/**
 * A part as a try of this run left it: how many records it held and what came of it. A retry of the run plans every
 * part with exactly its earlier records (`earlierPartRecords`), so parts keep their bytes and their items on every
 * try: an accepted part keeps its answer, a part of unknown outcome its error (neither is sent again), a part that was
 * not sent is sent again with the same records.
 */
type PartTry = { records: number } & (
	| { outcome: 'accepted'; response: UploadResponse }
	| { outcome: 'unknown'; failure: UncertainFailure }
	| { outcome: 'notSent' }
);

const partKey = (uploadKey: string, partIndex: number) => `${uploadKey} part ${partIndex}`;

/** For the planning pass: how many records each part of the file `uploadKey` held on an earlier try of this run. */
export function earlierPartRecords(retries: RetryMemory, uploadKey: string): (partIndex: number) => number | undefined {
	return (partIndex) => retries.get<PartTry>('personParts', partKey(uploadKey, partIndex))?.records;
}

/**
 * Sends the planned parts one after the other, each written from `recordsOf(part)` while it is sent. A part that
 * fails is reported with its cause: when its records failed (a record too large, a record that changed, a file that
 * breaks off), that is the error, not the broken request it caused. `continueAfterFailure` goes on with the next
 * parts. On a retry of the run (n8n's Retry On Fail) each part replays its earlier try (PartTry); `uploadKey` names
 * the file.
 */
export async function sendParts(
	this: IExecuteFunctions,
	plan: PartPlan,
	recordsOf: (part: PlannedPart) => PartRecords,
	settings: Settings,
	options: { word: RowWord; fileItemIndex?: number; continueAfterFailure: boolean; uploadKey: string },
): Promise<{ sent: SentPart[]; failed: FailedPart[] }> {
	const format = PERSON_FILE_FORMATS[settings.format];
	const sent: SentPart[] = [];
	const failed: FailedPart[] = [];
	// The parts of this node run's tries, by `<uploadKey> part <n>` (retryMemory.ts).
	const { retries } = settings;
	for (const part of plan.parts) {
		const key = partKey(options.uploadKey, part.index);
		const earlier = retries.get<PartTry>('personParts', key);
		const replayed = earlier !== undefined && earlier.outcome !== 'notSent';
		let body: PersonPartBody | undefined;
		try {
			if (part.tooLarge) throw part.tooLarge;
			let response: UploadResponse;
			if (earlier?.outcome === 'unknown') {
				throw replayedFailure(this, earlier.failure, options.fileItemIndex);
			} else if (earlier?.outcome === 'accepted') {
				response = { ...earlier.response };
			} else {
				body = new PersonPartBody(part, format, plan.columns, recordsOf(part));
				response = await sendFile.call(this, body, settings, options.fileItemIndex);
				retries.set<PartTry>('personParts', key, { records: part.records, outcome: 'accepted', response: { ...response } });
			}
			sent.push({ summary: part, response });
		} catch (error) {
			// A part whose own records failed fails the same way on every try: only requests are recorded.
			const cause = part.tooLarge ?? body?.failure;
			if (!replayed && !cause) retries.set<PartTry>('personParts', key, tryOf(error, part.records));
			failed.push({ summary: part, error: asUploadError(this, cause ?? error, options.word, options.fileItemIndex) });
			if (!options.continueAfterFailure) break;
		}
	}
	return { sent, failed };
}

/** A failed part's try: unknown when the part may have arrived (errors.ts), else not sent. */
function tryOf(error: unknown, records: number): PartTry {
	if (!hasUnknownOutcome(error)) return { records, outcome: 'notSent' };
	return { records, outcome: 'unknown', failure: uncertainFailureOf(error as NodeApiError) };
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
