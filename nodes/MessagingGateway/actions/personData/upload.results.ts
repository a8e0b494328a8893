/**
 * Person Data > Upload: the output items. Items source: one item per part sent, paired with the items whose
 * records it holds. Binary source: one item per file, paired with the item that held it.
 */
import type { IDataObject, IPairedItemData } from 'n8n-workflow';

import type { AutoMappingReport } from '../../persons/mapping';
import type { ValidationSummary } from '../../persons/validation';
import type { SentPart, UploadResponse } from './upload.send';

/** The upload's own fields, as the gateway answered them, and what it held. */
export function uploadJson(response: UploadResponse, records: number | null, bytes: number): IDataObject {
	return {
		fileId: response.fileId,
		nameFile: response.nameFile,
		path: response.path,
		message: response.message,
		records,
		bytes,
	};
}

export function partJson({ response, summary }: SentPart): IDataObject {
	return uploadJson(response, summary.records, summary.bytes);
}

export function validationJson(summary: ValidationSummary, withNormalised = false): IDataObject {
	const json: IDataObject = {
		valid: summary.valid,
		skipped: summary.invalid,
		reasons: summary.violations as unknown as IDataObject[],
	};
	if (withNormalised) json.normalised = { ...summary.normalised };
	return json;
}

/** What automatic mapping did with the item keys: field ← keys, split name columns, custom attributes. */
export function mappingJson(report: AutoMappingReport): IDataObject {
	const json: IDataObject = { fields: report.fields as IDataObject, customAttributes: report.customAttributes };
	if (report.splitNames.length > 0) json.splitIntoFirstAndLastName = report.splitNames;
	return json;
}

/**
 * A part's input items as n8n pairs them: one `{ item }` per item, as n8n has no range form. It is the bulk of what
 * the output keeps (about 40 bytes an item); sized up front, as growing by push leaves up to half again unused.
 */
export function pairedItemsOf(itemRanges: readonly number[], extra?: number): IPairedItemData[] {
	let count = extra === undefined ? 0 : 1;
	for (let r = 0; r < itemRanges.length; r += 2) count += itemRanges[r + 1] - itemRanges[r] + 1;
	const pairedItem = new Array<IPairedItemData>(count);
	let next = 0;
	for (let r = 0; r < itemRanges.length; r += 2) {
		for (let i = itemRanges[r]; i <= itemRanges[r + 1]; i++) pairedItem[next++] = { item: i };
	}
	if (extra !== undefined) pairedItem[next] = { item: extra };
	return pairedItem;
}

export function allItems(count: number): IPairedItemData[] {
	return Array.from({ length: count }, (_, item) => ({ item }));
}
