/**
 * Person Data > Upload from binary files: each input item's file is one upload and one output item, paired with
 * that item.
 *
 * With Validate File First the file is read and checked before anything is sent. It then goes out as it is only
 * when every record is valid and every value is already in the form the gateway reads; otherwise (a record to skip,
 * a value to normalise such as Float `12` or `2024-05-01 10:00`) it is rewritten from its checked records while it
 * is sent, and the output counts the normalised values per column. So the check is a promise about the bytes sent.
 * A file larger than the part size is always checked and rewritten into parts. The check also plans the parts (their
 * exact sizes, parts.ts); the upload reads the file again and writes each part from its records, and a file that
 * changed in between fails rather than sending other bytes than planned.
 *
 * A file that fails is, with Continue On Fail, an error item in its place and the next files go on; without it, the
 * error names the item and lists the files the gateway had already accepted (real uploads a re-run would repeat).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import type { NodeApiError } from 'n8n-workflow';

import { FileBody } from '../../../gateway/blobBody';
import { checkPersonFile, validFileRecords } from '../../persons/fileCheck';
import { type PartPlan, PartPlanner, type PlannedPart, type SourceRecord } from '../../persons/parts';
import { PersonFileError } from '../../persons/reader';
import { ValidationSummary } from '../../persons/validation';
import { PERSON_FILE_FORMATS } from '../../persons/writers';
import {
	type AcceptedUpload,
	appendSentence,
	asUploadError,
	errorJson,
	invalidRowsError,
	MAX_REPORTED_VIOLATIONS,
	noValidRowError,
	UploadError,
	withAccepted,
} from './upload.errors';
import { readTextParameter } from '../common';
import type { Settings } from './upload.fields';
import { partJson, uploadJson, validationJson } from './upload.results';
import { earlierPartRecords, rangesText, sendFileOnce, sendParts } from './upload.send';

export async function uploadFiles(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	settings: Settings,
): Promise<INodeExecutionData[]> {
	const output: INodeExecutionData[] = [];
	/** Every upload the gateway accepted so far in this run, for the error that stops it. */
	const accepted: AcceptedUpload[] = [];
	for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
		const file: FileUpload = { name: undefined, accepted: [] };
		try {
			const json = await uploadFile.call(this, itemIndex, settings, file);
			output.push({ json, pairedItem: { item: itemIndex } });
		} catch (caught) {
			const error = fileError(this, caught, itemIndex, settings);
			if (this.continueOnFail()) {
				if (file.accepted.length > 0) withAccepted(error, file.accepted);
				output.push({ json: errorJson(error, { fileName: file.name }), pairedItem: { item: itemIndex } });
				continue;
			}
			withAccepted(error, [...accepted, ...file.accepted]);
			if (itemIndex + 1 < items.length) {
				const later = itemIndex + 2 < items.length ? `items ${itemIndex + 1}-${items.length - 1}` : `item ${itemIndex + 1}`;
				appendSentence(error, `The files of ${later} were not uploaded.`);
			}
			throw error;
		} finally {
			accepted.push(...file.accepted);
		}
	}
	return output;
}

interface FileUpload {
	name: string | undefined;
	/** The parts of this file that the gateway accepted. */
	accepted: AcceptedUpload[];
}

async function uploadFile(
	this: IExecuteFunctions,
	itemIndex: number,
	settings: Settings,
	file: FileUpload,
): Promise<IDataObject> {
	const property = readTextParameter.call(this, 'binaryPropertyName', itemIndex, 'Input Binary Field');
	const binary = this.helpers.assertBinaryData(itemIndex, property);
	file.name = binary.fileName;
	// A file kept in memory (no binary id) is decoded once: no stream is needed for bytes already at hand.
	const inMemory = binary.id ? undefined : Buffer.from(binary.data, 'base64');
	const fileSize = inMemory ? inMemory.length : (await this.helpers.getBinaryMetadata(binary.id!)).fileSize;
	const label = `item ${itemIndex}${file.name ? ` (${file.name})` : ''}`;
	// Closed at the end whatever happened: a reader that stops early (a bad header) leaves its file open otherwise.
	const opened: Array<{ destroy(): void }> = [];
	const open = async (): Promise<AsyncIterable<Buffer>> => {
		if (inMemory) return once(inMemory);
		const stream = await this.helpers.getBinaryStream(binary.id!);
		opened.push(stream);
		return stream;
	};
	const validate = this.getNodeParameter('validateFile', itemIndex, true) as boolean;
	const tooLarge = fileSize > settings.maxPartBytes;
	const format = PERSON_FILE_FORMATS[settings.format];
	const uploadKey = `file ${itemIndex}`;

	try {
		let checked: ValidationSummary | undefined;
		let plan: PartPlan | undefined;
		if (validate || tooLarge) {
			// The check plans the parts too, in case the file is rewritten.
			const planner = new PartPlanner(format, {
				maxPartBytes: settings.maxPartBytes,
				earlierRecords: earlierPartRecords(settings.retries, uploadKey),
			});
			const check = await checkPersonFile(
				await open(),
				settings.format,
				settings.keys,
				MAX_REPORTED_VIOLATIONS,
				(record) => planner.add(record),
				settings.defaultCountry,
			);
			checked = check.summary;
			if (checked.invalid > 0 && !settings.skipInvalid) throw invalidRowsError(this, checked, 'record', itemIndex);
			if (checked.valid === 0) throw noValidRowError(this, checked, 'record', itemIndex);
			plan = planner.finish();
		}
		const validation = checked ? { checked: true, ...validationJson(checked, true) } : { checked: false };

		if (!plan || (!tooLarge && checked!.invalid === 0 && checked!.normalisedValues === 0)) {
			const body = async () => new FileBody(inMemory ?? (await open()), fileSize, format.contentType);
			const response = await sendFileOnce.call(this, uploadKey, body, settings, itemIndex);
			file.accepted.push({ label, fileId: response.fileId });
			return {
				fileName: file.name,
				...uploadJson(response, checked?.valid ?? null, fileSize),
				fileIds: [response.fileId],
				parts: 1,
				rewritten: false,
				validation,
			};
		}

		const records = validFileRecords(await open(), settings.format, settings.keys, new ValidationSummary(0), settings.defaultCountry);
		const { sent, failed } = await sendParts.call(this, plan, (part) => recordsOfPart(records, part), settings, {
			word: 'record',
			fileItemIndex: itemIndex,
			continueAfterFailure: false,
			uploadKey,
		});
		for (const { summary, response } of sent) {
			const records = `records ${rangesText(summary.itemRanges)}`;
			file.accepted.push({ label: `${label}, part ${summary.index + 1} (${records})`, fileId: response.fileId });
		}
		if (failed.length > 0) {
			const { error, summary } = failed[0];
			appendSentence(error, `Part ${summary.index + 1} of this file and the records after it were not uploaded.`);
			throw error;
		}
		const { response: first } = sent[0];
		return {
			fileName: file.name,
			...uploadJson(first, 0, 0),
			records: sent.reduce((total, part) => total + part.summary.records, 0),
			bytes: sent.reduce((total, part) => total + part.summary.bytes, 0),
			fileIds: sent.map((part) => part.response.fileId),
			parts: sent.length,
			...(sent.length > 1 && { uploads: sent.map((part) => ({ part: part.summary.index + 1, ...partJson(part) })) }),
			rewritten: true,
			validation,
		};
	} finally {
		for (const stream of opened) stream.destroy();
	}
}

/** A file's failure, naming its item; a file that is not a person file says which format it was read as. */
function fileError(
	context: IExecuteFunctions,
	error: unknown,
	itemIndex: number,
	settings: Settings,
): UploadError | NodeApiError {
	if (error instanceof PersonFileError) {
		return new UploadError(context, fileErrorMessage(settings.format.toUpperCase(), error.message, itemIndex), {
			itemIndex,
			blocks: ['Nothing of this file was uploaded. Check the File Format option and the file.'],
		});
	}
	return asUploadError(context, error, 'record', itemIndex);
}

/** The reader's words with the item, naming the file once ("The JSON file is empty", not "The JSON file: The JSON file ..."). */
export function fileErrorMessage(format: string, reason: string, itemIndex: number): string {
	if (/^The (CSV|JSON) (file|array)\b/.test(reason)) return `${reason} (item ${itemIndex})`;
	return `The ${format} file of item ${itemIndex}: ${reason}`;
}

async function* once(bytes: Buffer): AsyncGenerator<Buffer> {
	yield bytes;
}

/**
 * The records of `part` from the file read again (the parts are written in order from one reading): records of the
 * parts before it that were not written (a retry's accepted parts, a record too large) are passed over.
 */
async function* recordsOfPart(records: AsyncIterator<SourceRecord>, part: PlannedPart): AsyncGenerator<SourceRecord> {
	for (let taken = 0; taken < part.records; ) {
		const next = await records.next();
		if (next.done) return;
		if (taken === 0 && next.value.itemIndex < part.itemRanges[0]) continue;
		taken++;
		yield next.value;
	}
}
