/**
 * Person Data > Upload from input items: every item is one person record of one file (split into parts when it
 * is larger than the part size). Output: one item per part sent, paired with the items whose records it holds.
 *
 * "On Invalid Records: Fail" checks every item before the first byte is sent, so that a bad record never leaves a
 * partial upload behind; "Skip" checks them while they are written, and an item whose record cannot even be built
 * (an attribute whose type changes between items, an expression that fails) is skipped and reported like an
 * invalid one.
 *
 * Continue On Fail: a failure of the whole file (invalid items, nothing valid, the configuration) is one error item
 * paired with all items; a part that fails is an error item paired with that part's items, and the next parts go on.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type {
	AttributeType,
	PersonColumns,
	PersonField,
	PersonRow,
	PersonViolation,
	RawPersonRow,
} from '../../persons/fields';
import {
	type AutoMappingReport,
	type DefinedPerson,
	PersonMappingError,
	planAutoMapping,
	planDefinedMapping,
} from '../../persons/mapping';
import { writeCheckedRow } from '../../persons/checkedRows';
import type { SourceRecord } from '../../persons/parts';
import {
	checkPersonRow,
	type ReusableRow,
	reusableRow,
	ValidationSummary,
	validatePersonRow,
} from '../../persons/validation';
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
import type { Settings } from './upload.fields';
import { allItems, mappingJson, pairedItemsOf, partJson, validationJson } from './upload.results';
import { type FailedPart, rangesText, sendParts } from './upload.send';

export async function uploadItems(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	settings: Settings,
): Promise<INodeExecutionData[]> {
	// A failure of the file as a whole: one error item for all items with Continue On Fail.
	const fileFailure = (error: UploadError | NodeApiError): INodeExecutionData[] => {
		if (!this.continueOnFail()) throw error;
		return [{ json: errorJson(error), pairedItem: allItems(items.length) }];
	};

	let plan: RowPlan;
	try {
		plan = planRows.call(this, items, settings.options);
	} catch (error) {
		return fileFailure(asUploadError(this, error, 'item'));
	}
	let summary = new ValidationSummary(MAX_REPORTED_VIOLATIONS);

	/** The raw record of an item; an item that makes none is counted as invalid, with the reason. */
	const rawOf = (itemIndex: number): RawPersonRow | undefined => {
		try {
			return plan.rowOf(itemIndex);
		} catch (error) {
			summary.addInvalid([mappingViolation(error, itemIndex)]);
			return undefined;
		}
	};
	/** Counts a result in `summary`: its violations, or one valid item (then the result is returned). */
	const counted = <T>(result: T | PersonViolation[]): T | undefined => {
		if (Array.isArray(result)) {
			summary.addInvalid(result);
			return undefined;
		}
		summary.addValid();
		return result;
	};
	/** Checks an item: its record in written form when valid, in `reuse` when given (see validRecords). */
	const checkItem = (itemIndex: number, reuse?: ReusableRow): PersonRow | undefined => {
		const raw = rawOf(itemIndex);
		return raw && counted(validatePersonRow(raw, itemIndex, settings.keys, reuse));
	};

	/**
	 * Per item, after a first pass that found every item valid: the fields to write the checked way again (see
	 * checkedRows.ts), so that the second pass writes what the first validated without checking it twice. Only when
	 * the second pass maps the same values: automatic mapping reads the item JSON again, defined mode would evaluate
	 * its expressions again (`$now`), so it checks them again.
	 */
	let recheck: Uint16Array | undefined; // one mask of RECHECK_MASK_BITS bits per item

	function* validRecords(): Generator<SourceRecord> {
		// Items are written into one record again and again (every item's record has the plan's columns): parts
		// write each record before taking the next.
		const record = { itemIndex: 0, row: reusableRow(plan.columns) };
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			if (recheck !== undefined) {
				writeCheckedRow(plan.rowOf(itemIndex), recheck[itemIndex], itemIndex, record.row);
			} else if (checkItem(itemIndex, record.row) === undefined) continue;
			record.itemIndex = itemIndex;
			yield record;
		}
	}

	if (!settings.skipInvalid) {
		// A first pass that keeps no record: any invalid record stops the upload before it starts.
		const masks = plan.sameValues ? new Uint16Array(items.length) : undefined;
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const raw = rawOf(itemIndex);
			const mask = raw && counted(checkPersonRow(raw, itemIndex, settings.keys));
			if (masks !== undefined && mask !== undefined) masks[itemIndex] = mask;
		}
		if (summary.invalid > 0) return fileFailure(invalidRowsError(this, summary, 'item'));
		// The second pass counts again unless it writes what this one counted.
		if (masks === undefined) summary = new ValidationSummary(MAX_REPORTED_VIOLATIONS);
		recheck = masks;
	}

	const continueOnFail = this.continueOnFail();
	const { sent, failed } = await sendParts.call(this, validRecords(), settings, {
		word: 'item',
		continueAfterFailure: continueOnFail,
		recordKey: 'items',
	});
	if (sent.length === 0 && failed.length === 0) return fileFailure(noValidRowError(this, summary, 'item'));

	const accepted: AcceptedUpload[] = sent.map(({ summary: part, response }) => ({
		label: `part ${part.index + 1} (items ${rangesText(part.itemRanges)})`,
		fileId: response.fileId,
	}));
	if (failed.length > 0 && !continueOnFail) throw withAccepted(partError(failed[0], true), accepted);

	// The summary is complete only once the last part has been written.
	const shared: IDataObject = { parts: sent.length + failed.length, validation: validationJson(summary) };
	if (plan.report) shared.mapping = mappingJson(plan.report);
	const output: Array<INodeExecutionData & { index: number }> = [
		...sent.map((part) => ({
			index: part.summary.index,
			json: { ...partJson(part), part: part.summary.index + 1, ...shared },
			pairedItem: pairedItemsOf(part.summary.itemRanges),
		})),
		...failed.map((part) => ({
			index: part.summary.index,
			json: errorJson(partError(part, false), { part: part.summary.index + 1 }),
			pairedItem: pairedItemsOf(part.summary.itemRanges, tooLargeItem(part)),
		})),
	];
	return output.sort((a, b) => a.index - b.index).map(({ json, pairedItem }) => ({ json, pairedItem }));
}

/** The item whose record did not fit into a part: the part's failure is about it too. */
function tooLargeItem(part: FailedPart): number | undefined {
	const cause = part.error instanceof UploadError ? part.error.data.tooLarge : undefined;
	return typeof cause === 'number' ? cause : undefined;
}

/** A failed part's error, saying which items it held and, when it stops the run, that the later ones were not sent. */
function partError(part: FailedPart, stopsTheRun: boolean): UploadError | NodeApiError {
	const { error, summary } = part;
	const tooLarge = tooLargeItem(part);
	const ranges = tooLarge === undefined ? summary.itemRanges : [...summary.itemRanges, tooLarge, tooLarge];
	const items = ranges.length > 0 ? ` (items ${rangesText(ranges)})` : '';
	if (error.context.itemIndex === undefined && ranges.length > 0) error.context.itemIndex = ranges[0];
	appendSentence(error, `Part ${summary.index + 1} of the file${items} was not uploaded${stopsTheRun ? ', nor the items after it' : ''}.`);
	return error;
}

/** An item whose record could not be built, as a violation of that item (Skip reports it; Fail stops on it). */
function mappingViolation(error: unknown, itemIndex: number): PersonViolation {
	if (error instanceof PersonMappingError) return { itemIndex, field: error.field ?? '(mapping)', reason: error.message };
	return { itemIndex, field: '(mapping)', reason: error instanceof Error ? error.message : String(error) };
}

// ---- Mapping items to records ----

interface RowPlan {
	/**
	 * The raw record of an item; throws when the item's own settings make no record (defined mode). Valid until the
	 * next call (automatic mapping fills one record again).
	 */
	rowOf(itemIndex: number): RawPersonRow;
	/** The columns of every record `rowOf` makes. */
	columns: PersonColumns;
	/** What automatic mapping did, for the output. */
	report?: AutoMappingReport;
	/** Whether `rowOf` gives the same values each time it is asked (it reads the item JSON, evaluates nothing). */
	sameValues: boolean;
}

/** The raw record of each item, by mapping mode; configuration errors are thrown as they are. */
function planRows(this: IExecuteFunctions, items: INodeExecutionData[], options: IDataObject): RowPlan {
	const mode = this.getNodeParameter('mappingMode', 0, 'auto') as string;
	if (mode === 'define') return { ...planDefinedRows.call(this), sameValues: false };
	const typeOverrides: Record<string, AttributeType> = {};
	for (const { name, type } of this.getNodeParameter('typeOverrides.values', 0, []) as Array<{
		name: string;
		type: AttributeType;
	}>) {
		typeOverrides[name] = type;
	}
	const ignoredKeys = String(options.ignoredKeys ?? '')
		.split(',')
		.map((key) => key.trim())
		.filter(Boolean);
	const mapping = planAutoMapping(jsonOf(items), { typeOverrides, ignoredKeys });
	// One record filled again for each item: its values are checked or written at once, never kept.
	const row = mapping.reusableRow();
	return {
		rowOf: (itemIndex) => mapping.map(items[itemIndex].json, row),
		columns: mapping.columns,
		report: mapping.report,
		sameValues: true,
	};
}

function* jsonOf(items: INodeExecutionData[]): Generator<IDataObject> {
	for (const item of items) yield item.json;
}

function planDefinedRows(this: IExecuteFunctions): Pick<RowPlan, 'rowOf' | 'columns'> {
	const definedPerson = (itemIndex: number): DefinedPerson => {
		const fields: Partial<Record<PersonField, unknown>> = {};
		for (const { field, value } of this.getNodeParameter('personFields.values', itemIndex, []) as Array<{
			field: PersonField;
			value: unknown;
		}>) {
			if (field in fields) throw new PersonMappingError(`Person field ${field} is defined twice`, itemIndex, field);
			fields[field] = value;
		}
		const attributes = this.getNodeParameter('customAttributes.values', itemIndex, []) as DefinedPerson['attributes'];
		return { fields, attributes };
	};
	const first = definedPerson(0);
	const mapping = planDefinedMapping({
		fields: Object.keys(first.fields) as PersonField[],
		attributes: first.attributes,
	});
	return {
		rowOf: (itemIndex) => mapping.map(itemIndex === 0 ? first : definedPerson(itemIndex), itemIndex),
		columns: mapping.columns,
	};
}
