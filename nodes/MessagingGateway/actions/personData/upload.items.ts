/**
 * Person Data > Upload from input items: every item is one person record of one file (split into parts when it
 * is larger than the part size). Output: one item per part sent, paired with the items whose records it holds.
 *
 * Two passes, in both On Invalid modes. The first checks every item and plans the parts from the valid ones (parts.ts:
 * each part's exact size, so that it goes out with its Content-Length); with "Fail" an invalid item stops the upload
 * before the first byte is sent, with "Skip" it is left out and reported (also an item whose record cannot even be
 * built: an attribute whose type changes between items, an expression that fails). The second pass validates each
 * planned item again by the same function as it writes it: an item that is now invalid or gives other bytes fails its
 * part, naming the item, and is never skipped.
 *
 * Continue On Fail: a failure of the whole file (invalid items, nothing valid, the configuration) is one error item
 * paired with all items; a part that fails is an error item paired with that part's items, and the next parts go on.
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import type { CountryCode } from '../../../gateway/phone';
import type { AttributeType, KeyConfiguration, PersonColumns, PersonField, PersonRow, PersonViolation, RawPersonRow } from '../../persons/fields';
import {
	type AutoMappingReport,
	type DefinedPerson,
	PersonMappingError,
	planAutoMapping,
	planDefinedMapping,
} from '../../persons/mapping';
import { type PartPlan, PartPlanner, type PlannedPart, type SourceRecord } from '../../persons/parts';
import { ValidationSummary, validatePersonRow } from '../../persons/validation';
import { PERSON_FILE_FORMATS } from '../../persons/writers';
import {
	type AcceptedUpload,
	appendSentence,
	asUploadError,
	errorJson,
	invalidRowsError,
	MAX_REPORTED_VIOLATIONS,
	noValidRowError,
	RecordChangedError,
	UploadError,
	withAccepted,
} from './upload.errors';
import type { Settings } from './upload.fields';
import { allItems, mappingJson, pairedItemsOf, partJson, validationJson } from './upload.results';
import { earlierPartRecords, type FailedPart, rangesText, sendParts } from './upload.send';

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

	let plan: UploadPlan;
	try {
		plan = planUpload.call(this, items, settings);
	} catch (error) {
		return fileFailure(asUploadError(this, error, 'item'));
	}
	// The first pass: every item checked, the parts planned from the valid ones.
	const summary = new ValidationSummary(MAX_REPORTED_VIOLATIONS);
	const planner = new PartPlanner(PERSON_FILE_FORMATS[settings.format], {
		maxPartBytes: settings.maxPartBytes,
		earlierRecords: earlierPartRecords(settings.retries, UPLOAD_KEY),
	});
	let parts: PartPlan;
	try {
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const result = validateItem(plan, itemIndex);
			if (Array.isArray(result)) summary.addInvalid(result);
			else {
				summary.addValid();
				// With Fail, nothing is sent once an item is invalid: no need to plan.
				if (settings.skipInvalid || summary.invalid === 0) planner.add({ itemIndex, row: result });
			}
		}
		parts = planner.finish();
	} catch (error) {
		// A retry whose parts no longer hold their earlier records (PartChangedError).
		return fileFailure(asUploadError(this, error, 'item'));
	}
	if (summary.invalid > 0 && !settings.skipInvalid) return fileFailure(invalidRowsError(this, summary, 'item'));
	if (parts.parts.length === 0) return fileFailure(noValidRowError(this, summary, 'item'));

	const continueOnFail = this.continueOnFail();
	const { sent, failed } = await sendParts.call(this, parts, (part) => plannedRecords(plan, part), settings, {
		word: 'item',
		continueAfterFailure: continueOnFail,
		uploadKey: UPLOAD_KEY,
	});

	const accepted: AcceptedUpload[] = sent.map(({ summary: part, response }) => ({
		label: `part ${part.index + 1} (items ${rangesText(part.itemRanges)})`,
		fileId: response.fileId,
	}));
	if (failed.length > 0 && !continueOnFail) throw withAccepted(partError(failed[0], true), accepted);

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

// ---- Items to records ----

/** What the upload of these items needs for every record, made once and passed to each pass. */
interface UploadPlan {
	/** The raw record of an item; throws when the item's own settings make no record (defined mode). */
	rowOf(itemIndex: number): RawPersonRow;
	/** The columns of every record `rowOf` makes. */
	columns: PersonColumns;
	keys: KeyConfiguration;
	/** The country of phone numbers written without their country code. */
	defaultCountry?: CountryCode;
	/** What automatic mapping did, for the output. */
	report?: AutoMappingReport;
}

/** An item's record in written form, or why it has none: the one validation of an item, for every pass. */
function validateItem(plan: UploadPlan, itemIndex: number): PersonRow | PersonViolation[] {
	let raw: RawPersonRow;
	try {
		raw = plan.rowOf(itemIndex);
	} catch (error) {
		return [mappingViolation(error, itemIndex)];
	}
	return validatePersonRow(raw, itemIndex, plan.keys, plan.defaultCountry);
}

/** The key of this upload's parts in the retry memory of Retry On Fail (upload.send.ts). */
const UPLOAD_KEY = 'items';

/**
 * The second pass over one part: its planned items, validated again as they are written (defined mode evaluates its
 * expressions again). An item that is now invalid fails the part, never skipped.
 */
function* plannedRecords(plan: UploadPlan, part: PlannedPart): Generator<SourceRecord> {
	const ranges = part.itemRanges;
	for (let r = 0; r < ranges.length; r += 2) {
		for (let itemIndex = ranges[r]; itemIndex <= ranges[r + 1]; itemIndex++) {
			const result = validateItem(plan, itemIndex);
			if (Array.isArray(result)) throw new RecordChangedError(result[0]);
			yield { itemIndex, row: result };
		}
	}
}

/** The raw record of each item, by mapping mode; configuration errors are thrown as they are. */
function planUpload(this: IExecuteFunctions, items: INodeExecutionData[], settings: Settings): UploadPlan {
	const mode = this.getNodeParameter('mappingMode', 0, 'auto') as string;
	if (mode === 'define') return { ...planDefinedRows.call(this), keys: settings.keys, defaultCountry: settings.defaultCountry };
	const typeOverrides: Record<string, AttributeType> = {};
	for (const { name, type } of this.getNodeParameter('typeOverrides.values', 0, []) as Array<{
		name: string;
		type: AttributeType;
	}>) {
		typeOverrides[name] = type;
	}
	const ignoredKeys = String(settings.options.ignoredKeys ?? '')
		.split(',')
		.map((key) => key.trim())
		.filter(Boolean);
	const mapping = planAutoMapping(jsonOf(items), { typeOverrides, ignoredKeys });
	return {
		rowOf: (itemIndex) => mapping.map(items[itemIndex].json),
		columns: mapping.columns,
		keys: settings.keys,
		defaultCountry: settings.defaultCountry,
		report: mapping.report,
	};
}

function* jsonOf(items: INodeExecutionData[]): Generator<IDataObject> {
	for (const item of items) yield item.json;
}

function planDefinedRows(this: IExecuteFunctions): Pick<UploadPlan, 'rowOf' | 'columns'> {
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
