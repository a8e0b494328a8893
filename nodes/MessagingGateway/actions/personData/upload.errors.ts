/**
 * Person Data > Upload: the errors it raises and how they read.
 *
 * n8n's error panel renders a description as (sanitised) HTML: newlines collapse into one run of text, while `<ul>`,
 * `<li>`, `<code>` and `<b>` are kept and styled. So a description is built once as a list of blocks and rendered
 * twice: as HTML for the error panel, and as plain text for the error item of Continue On Fail. The full list of
 * invalid records goes into the error item's `violations`. Not into the error's `context.data`: n8n's panel shows
 * that under "From Messaging Gateway", which reads as the gateway's answer, and these are the node's own refusals.
 *
 * Words: "item" is an input item, "record" a row (or JSON element) of a binary file; both count from 0 like n8n's
 * items.
 */
import type { IDataObject, IExecuteFunctions } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import type { PersonViolation } from '../../persons/fields';
import { PartChangedError, RecordTooLargeError } from '../../persons/parts';
import type { ValidationSummary } from '../../persons/validation';

/** Input items for rows built from items, records for the rows of a file. */
export type RowWord = 'item' | 'record';

/** How many violations the output and the error data keep, and how many the description lists. */
export const MAX_REPORTED_VIOLATIONS = 100;
export const MAX_LISTED_IN_DESCRIPTION = 5;

/** A part of a description: a sentence, or a titled list whose entries may hold code (values, file ids). */
export type Block = string | { title: string; entries: Entry[] };
/** An entry of a list: text pieces and `{ code }` pieces. */
export type Entry = Array<string | { code: string }>;

function escapeHtml(text: string): string {
	// The panel also turns `text` into code: a backtick in a value must stay a backtick.
	return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/`/g, '&#96;');
}

export function descriptionHtml(blocks: readonly Block[]): string {
	return blocks
		.map((block) => {
			if (typeof block === 'string') return `<p>${escapeHtml(block)}</p>`;
			const entries = block.entries.map((entry) => `<li>${entryHtml(entry)}</li>`).join('');
			return `<p>${escapeHtml(block.title)}</p><ul>${entries}</ul>`;
		})
		.join('');
}

function entryHtml(entry: Entry): string {
	return entry.map((piece) => (typeof piece === 'string' ? escapeHtml(piece) : `<code>${escapeHtml(piece.code)}</code>`)).join('');
}

export function descriptionText(blocks: readonly Block[]): string {
	return blocks
		.map((block) => {
			if (typeof block === 'string') return block;
			const entries = block.entries.map((entry) => entry.map((p) => (typeof p === 'string' ? p : `"${p.code}"`)).join(''));
			return `${block.title} ${entries.join('; ')}.`;
		})
		.join(' ');
}

/**
 * A NodeOperationError whose description is built from blocks; the plain form and the data travel with it, so that
 * Continue On Fail can make an error item from the same error.
 */
export class UploadError extends NodeOperationError {
	blocks: Block[];
	data: IDataObject;

	constructor(
		context: IExecuteFunctions,
		message: string,
		options: { itemIndex?: number; blocks: Block[]; data?: IDataObject },
	) {
		super(context.getNode(), message, { itemIndex: options.itemIndex, description: descriptionHtml(options.blocks) });
		this.blocks = options.blocks;
		this.data = options.data ?? {};
	}

	/** Adds blocks at the end (what was already uploaded), keeping the HTML description in step. */
	append(...blocks: Block[]): void {
		this.blocks.push(...blocks);
		this.description = descriptionHtml(this.blocks);
	}
}

// ---- Invalid records ----

export function violationEntry(violation: PersonViolation, word: RowWord): Entry {
	const value = violation.value === undefined ? [] : [' ', { code: violation.value }];
	return [`${word} ${violation.itemIndex}: ${violation.field}`, ...value, ` ${violation.reason}`];
}

function violationList(summary: ValidationSummary, word: RowWord): Block {
	const shown = summary.violations.slice(0, MAX_LISTED_IN_DESCRIPTION);
	const rest = summary.violations.length - shown.length;
	return {
		title: `The first invalid ${word}s:`,
		entries: [
			...shown.map((violation) => violationEntry(violation, word)),
			...(rest > 0 ? [[`… and ${rest} more${capped(summary)}: with Continue On Fail, the error item lists them all`]] : []),
		],
	};
}

/** Said when the kept violations are not all of them. */
function capped(summary: ValidationSummary): string {
	return summary.violations.length >= summary.maxViolations ? ` (the first ${summary.maxViolations} problems)` : '';
}

/** What an error item and the error data carry about a failed check. */
export function validationData(summary: ValidationSummary): IDataObject {
	return { valid: summary.valid, invalid: summary.invalid, violations: summary.violations as unknown as IDataObject[] };
}

export function invalidRowsError(
	context: IExecuteFunctions,
	summary: ValidationSummary,
	word: RowWord,
	itemIndex?: number,
): UploadError {
	const total = summary.valid + summary.invalid;
	const first = summary.violations[0];
	return new UploadError(context, `${summary.invalid} of ${total} ${word}s break the gateway's person rules`, {
		// One item named only when one is invalid: n8n adds "[item N]" to the message, which for several would name one.
		itemIndex: itemIndex ?? (summary.invalid === 1 ? first?.itemIndex : undefined),
		blocks: [
			`Nothing was uploaded${word === 'record' ? ' from this file' : ''}.`,
			violationList(summary, word),
			'Fix them, or set On Invalid Records to Skip to upload the valid ones.',
		],
		data: validationData(summary),
	});
}

export function noValidRowError(
	context: IExecuteFunctions,
	summary: ValidationSummary,
	word: RowWord,
	itemIndex?: number,
): UploadError {
	return new UploadError(context, `There is no valid person ${word} to upload`, {
		itemIndex,
		blocks:
			summary.invalid > 0
				? [`All ${summary.invalid} ${word}s are invalid; nothing was uploaded.`, violationList(summary, word)]
				: [word === 'record' ? 'The file holds no record.' : 'The input holds no item.'],
		data: validationData(summary),
	});
}

/**
 * A record that passed the first pass (the check) and fails the second (the upload), because its value changed between
 * the two (defined mapping evaluates its expressions in each pass; `$now` or `Math.random()` give another value each
 * time). Never skipped: the parts were planned with it.
 */
export class RecordChangedError extends Error {
	constructor(readonly violation: PersonViolation) {
		const value = violation.value === undefined ? '' : ` "${violation.value}"`;
		super(
			`The record of item ${violation.itemIndex} changed after it was checked: ${violation.field}${value} ${violation.reason}`,
		);
		this.name = 'RecordChangedError';
	}
}

// ---- Uploads that happened before a failure ----

/** One upload that the gateway accepted: which part of what, and its file id. */
export interface AcceptedUpload {
	/** Where it came from: `item 0 (people.csv)`, `part 1 (items 0-99)`. */
	label: string;
	fileId: string;
}

/** Says what was already uploaded, as real uploads that a re-run would repeat. */
export function uploadedBlock(accepted: readonly AcceptedUpload[]): Block {
	return {
		title:
			accepted.length === 1
				? 'This upload was accepted by the gateway before the failure: it is real, and running the node again uploads it again.'
				: `These ${accepted.length} uploads were accepted by the gateway before the failure: they are real, and running the node again uploads them again.`,
		entries: accepted.map(({ label, fileId }) => [`${label}: fileId `, { code: fileId }]),
	};
}

export function acceptedData(accepted: readonly AcceptedUpload[]): IDataObject[] {
	return accepted.map(({ label, fileId }) => ({ upload: label, fileId }));
}

/**
 * Any error as an UploadError or a gateway NodeApiError, naming `itemIndex`: a record too large for a part, a
 * file's reading error or a bug become UploadErrors; the transport's NodeApiError is kept with the gateway's words.
 */
export function asUploadError(
	context: IExecuteFunctions,
	error: unknown,
	word: RowWord,
	itemIndex?: number,
): UploadError | NodeApiError {
	if (error instanceof UploadError || error instanceof NodeApiError) {
		if (itemIndex !== undefined && error.context.itemIndex === undefined) error.context.itemIndex = itemIndex;
		return error;
	}
	if (error instanceof RecordTooLargeError) {
		return new UploadError(context, `The ${word} ${error.itemIndex} is larger than the part size limit`, {
			itemIndex: itemIndex ?? error.itemIndex,
			blocks: [`It needs ${error.bytes} bytes in a file; a part may hold ${error.maxPartBytes}. Raise Part Size Limit or shorten it.`],
			data: { tooLarge: error.itemIndex },
		});
	}
	if (error instanceof RecordChangedError) {
		return new UploadError(context, error.message, {
			itemIndex: error.violation.itemIndex,
			blocks: [
				`Its ${error.violation.field} was valid when every item was checked and is not when it was written: an expression ` +
					'that gives another value each time it is evaluated. Make the value the same on each evaluation (compute it in ' +
					'an earlier node).',
			],
			data: { changed: error.violation as unknown as IDataObject },
		});
	}
	if (error instanceof PartChangedError) {
		const why =
			word === 'item'
				? 'An item gives another record when it is written than when it was checked: an expression that gives another ' +
					'value each time it is evaluated. Make the value the same on each evaluation (compute it in an earlier node).'
				: 'The file changed between the check and the upload. Run the node again once the file stays as it is.';
		return new UploadError(context, error.message, {
			itemIndex: word === 'item' ? error.itemIndex : (itemIndex ?? error.itemIndex),
			blocks: [why],
			data: { changed: { [word]: error.itemIndex, part: error.partIndex + 1 } },
		});
	}
	const nodeError = error as Error & { description?: string | null; context?: IDataObject };
	const description = typeof nodeError.description === 'string' ? [nodeError.description] : [];
	const cause = error instanceof Error ? error.message : String(error);
	const index = itemIndex ?? (typeof nodeError.context?.itemIndex === 'number' ? nodeError.context.itemIndex : undefined);
	return new UploadError(context, cause, { itemIndex: index, blocks: description });
}

/** Adds the accepted uploads to an error's description and data. */
export function withAccepted(error: UploadError | NodeApiError, accepted: readonly AcceptedUpload[]): UploadError | NodeApiError {
	if (accepted.length === 0) return error;
	appendBlocks(error, uploadedBlock(accepted));
	if (error instanceof UploadError) {
		error.data.accepted = acceptedData(accepted);
	}
	return error;
}

/** Adds a sentence to an error's description, once. */
export function appendSentence(error: UploadError | NodeApiError, sentence: string): void {
	if (!blocksOf(error).includes(sentence)) appendBlocks(error, sentence);
}

/** The blocks of a gateway error's description (its own text first, then what this operation adds), kept on the error. */
function blocksOf(error: UploadError | NodeApiError): Block[] {
	if (error instanceof UploadError) return error.blocks;
	const blocks = error.context.descriptionBlocks as Block[] | undefined;
	if (blocks) return blocks;
	const own: Block[] = error.description ? [error.description] : [];
	error.context.descriptionBlocks = own;
	return own;
}

function appendBlocks(error: UploadError | NodeApiError, ...blocks: Block[]): void {
	if (error instanceof UploadError) return error.append(...blocks);
	const own = blocksOf(error);
	own.push(...blocks);
	error.description = descriptionHtml(own);
}

// ---- Continue On Fail ----

/** The error item of Continue On Fail: the message, a plain description and what the error carries. */
export function errorJson(error: UploadError | NodeApiError, extra: IDataObject = {}): IDataObject {
	const json: IDataObject = { error: error.message };
	if (error instanceof UploadError) {
		if (error.blocks.length > 0) json.description = descriptionText(error.blocks);
		Object.assign(json, error.data);
	} else {
		const blocks = error.context.descriptionBlocks as Block[] | undefined;
		if (blocks) json.description = descriptionText(blocks);
		else if (error.description) json.description = error.description;
		if (error.httpCode) json.httpCode = error.httpCode;
	}
	return Object.assign(json, extra);
}
