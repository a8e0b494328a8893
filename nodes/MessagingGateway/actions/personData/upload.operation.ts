/**
 * Person Data > Upload (`POST {base_url}/DataInserterProfiles/api/profile`, spec 4.9): all input items become one
 * person file (upload.items.ts), or each input item's binary file is uploaded (upload.binary.ts); checked against the
 * rules of spec 2.8, split into parts of at most 1 GB and streamed to the gateway, never held in memory.
 *
 * It consumes all items at once, so it does Continue On Fail and item pairing itself rather than through the
 * router's per-item loop.
 */
import type { IExecuteFunctions, INodeExecutionData } from 'n8n-workflow';

import { asNodeError } from '../common';
import { allItems } from './upload.results';
import { asUploadError, errorJson } from './upload.errors';
import { readSettings, type Settings } from './upload.fields';
import { uploadFiles } from './upload.binary';
import { uploadItems } from './upload.items';

export { description } from './upload.fields';

export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	let settings: Settings;
	try {
		settings = await readSettings.call(this);
	} catch (error) {
		// A setting that applies to every item (a key field listed twice): one error item for all of them.
		if (!this.continueOnFail()) throw asNodeError(this.getNode(), error);
		return [{ json: errorJson(asUploadError(this, error, 'item')), pairedItem: allItems(items.length) }];
	}
	const source = this.getNodeParameter('source', 0, 'items') as string;
	const output = source === 'binary' ? await uploadFiles.call(this, items, settings) : await uploadItems.call(this, items, settings);
	settings.retries.close(output);
	return output;
}
