/**
 * Person Data > Upload (`POST {base_url}/DataInserterProfiles/api/profile`, spec 4.9): all input items become one
 * person file (or one file per input binary), checked against the rules of spec 2.8, split into parts of at most
 * 1 GB and streamed to the gateway part by part. Nothing holds the file: each part is written while it is sent.
 *
 * With "On Invalid Records: Fail" every record is checked before the first byte is sent, so that a bad record never
 * leaves a partial upload behind; with "Skip" the records are checked while they are written.
 */
import { Readable } from 'node:stream';
import type {
	IBinaryData,
	IDataObject,
	IExecuteFunctions,
	INodeExecutionData,
	INodeProperties,
	IPairedItemData,
} from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { PERSON_FILE_MAX_BYTES } from '../../../gateway/spec';
import { gatewayRequest } from '../../../gateway/transport';
import {
	ATTRIBUTE_TYPES,
	type AttributeType,
	KEY_FIELDS,
	type KeyConfiguration,
	type KeyField,
	PERSON_FIELDS,
	type PersonField,
	type PersonViolation,
	type RawPersonRow,
} from '../../persons/fields';
import { type DefinedPerson, PersonMappingError, planAutoMapping, planDefinedMapping } from '../../persons/mapping';
import { RecordTooLargeError, type SourceRecord, splitPersonFile } from '../../persons/parts';
import { checkPersonFile, PersonFileError, validFileRecords } from '../../persons/reader';
import { describeViolation, isPersonRow, ValidationSummary, validatePersonRow } from '../../persons/validation';
import { PERSON_FILE_FORMATS, type PersonFileFormatName } from '../../persons/writers';
import { readTextParameter } from '../parameters';

const show = { resource: ['personData'], operation: ['upload'] };
const showItems = { ...show, source: ['items'] };
const typeOptions = ATTRIBUTE_TYPES.map((type) => ({ name: type, value: type }));

/** How many violations the output keeps, and how many the error message of "Fail" lists. */
const MAX_REPORTED_VIOLATIONS = 100;
const MAX_LISTED_IN_ERROR = 10;

export const description: INodeProperties[] = [
	{
		displayName: 'Source',
		name: 'source',
		type: 'options',
		options: [
			{ name: 'Input Items', value: 'items', description: 'Each input item is one person' },
			{ name: 'Binary File', value: 'binary', description: 'A person file (CSV or JSON) in a binary field' },
		],
		default: 'items',
		displayOptions: { show },
	},
	{
		displayName: 'File Format',
		name: 'format',
		type: 'options',
		options: [
			{ name: 'CSV', value: 'csv', description: 'Semicolon-separated, header first' },
			{ name: 'JSON', value: 'json', description: 'An array of person objects' },
		],
		default: 'csv',
		description: 'Format of the file sent to the gateway (for a binary file: the format it is in)',
		displayOptions: { show },
	},
	{
		displayName: 'Input Binary Field',
		name: 'binaryPropertyName',
		type: 'string',
		default: 'data',
		required: true,
		hint: 'The name of the input binary field containing the person file',
		displayOptions: { show: { ...show, source: ['binary'] } },
	},
	{
		displayName: 'Validate File First',
		name: 'validateFile',
		type: 'boolean',
		default: true,
		description: 'Whether to read the file and check every record against the gateway rules before uploading it',
		displayOptions: { show: { ...show, source: ['binary'] } },
	},
	{
		displayName: 'Mapping',
		name: 'mappingMode',
		type: 'options',
		options: [
			{
				name: 'Map Automatically',
				value: 'auto',
				description:
					'Keys named like a person field (email, first_name, ...) fill it; all other keys become custom attributes',
			},
			{ name: 'Define Below', value: 'define', description: 'Set each field and custom attribute explicitly' },
		],
		default: 'auto',
		displayOptions: { show: showItems },
	},
	{
		displayName: 'Attribute Types',
		name: 'typeOverrides',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Attribute Type',
		default: {},
		description:
			'Types are inferred from the values (whole numbers, decimals, true/false, dates, else text). ' +
			'Set one here to override it.',
		displayOptions: { show: { ...showItems, mappingMode: ['auto'] } },
		options: [
			{
				displayName: 'Attribute',
				name: 'values',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'Item key, case-sensitive' },
					{ displayName: 'Type', name: 'type', type: 'options', options: typeOptions, default: 'String' },
				],
			},
		],
	},
	{
		displayName: 'Person Fields',
		name: 'personFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Field',
		default: {},
		displayOptions: { show: { ...showItems, mappingMode: ['define'] } },
		options: [
			{
				displayName: 'Field',
				name: 'values',
				values: [
					{
						displayName: 'Field',
						name: 'field',
						type: 'options',
						options: PERSON_FIELDS.map((field) => ({ name: field, value: field })),
						default: 'Email',
					},
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	{
		displayName: 'Custom Attributes',
		name: 'customAttributes',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true },
		placeholder: 'Add Custom Attribute',
		default: {},
		displayOptions: { show: { ...showItems, mappingMode: ['define'] } },
		options: [
			{
				displayName: 'Attribute',
				name: 'values',
				values: [
					{ displayName: 'Name', name: 'name', type: 'string', default: '', description: 'Case-sensitive' },
					{ displayName: 'Type', name: 'type', type: 'options', options: typeOptions, default: 'String' },
					{ displayName: 'Value', name: 'value', type: 'string', default: '' },
				],
			},
		],
	},
	{
		displayName: 'Key Fields',
		name: 'keyFields',
		type: 'fixedCollection',
		typeOptions: { multipleValues: true, sortable: true },
		placeholder: 'Add Key Field',
		default: {},
		description:
			'The keys your account manager configured, highest priority first; the first one is required in every record. ' +
			'Leave empty when none are configured: then each record needs at least one of Email, CPF or Phone.',
		displayOptions: { show },
		options: [
			{
				displayName: 'Key',
				name: 'values',
				values: [
					{
						displayName: 'Field',
						name: 'field',
						type: 'options',
						options: KEY_FIELDS.map((field) => ({ name: field, value: field })),
						default: 'Email',
					},
				],
			},
		],
	},
	{
		displayName: 'On Invalid Records',
		name: 'onInvalid',
		type: 'options',
		options: [
			{
				name: 'Fail',
				value: 'fail',
				description: 'Upload nothing and list the invalid records',
			},
			{ name: 'Skip', value: 'skip', description: 'Upload the valid records and report the others' },
		],
		default: 'fail',
		displayOptions: { show },
	},
	{
		displayName: 'Options',
		name: 'options',
		type: 'collection',
		placeholder: 'Add Option',
		default: {},
		displayOptions: { show },
		options: [
			{
				displayName: 'Part Size Limit (Bytes)',
				name: 'partSizeLimit',
				type: 'number',
				typeOptions: { minValue: 1024, maxValue: PERSON_FILE_MAX_BYTES },
				default: PERSON_FILE_MAX_BYTES,
				description: 'Larger files are split into parts of at most this size, cut between records',
			},
			{
				displayName: 'Keys to Ignore',
				name: 'ignoredKeys',
				type: 'string',
				default: '',
				placeholder: 'row_number, createdAt',
				description: 'Comma-separated item keys that automatic mapping leaves out',
			},
		],
	},
];

interface Settings {
	format: PersonFileFormatName;
	keys: KeyConfiguration;
	skipInvalid: boolean;
	maxPartBytes: number;
}

export async function executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	const settings: Settings = {
		format: this.getNodeParameter('format', 0, 'csv') as PersonFileFormatName,
		keys: readKeys.call(this),
		skipInvalid: this.getNodeParameter('onInvalid', 0, 'fail') === 'skip',
		maxPartBytes: Math.min(Number(options.partSizeLimit) || PERSON_FILE_MAX_BYTES, PERSON_FILE_MAX_BYTES),
	};
	const source = this.getNodeParameter('source', 0, 'items') as string;
	if (source === 'binary') {
		const output: INodeExecutionData[] = [];
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			output.push(...(await uploadBinaryFile.call(this, itemIndex, settings)));
		}
		return output;
	}
	return await uploadItems.call(this, items, settings, options);
}

function readKeys(this: IExecuteFunctions): KeyField[] {
	const entries = (this.getNodeParameter('keyFields.values', 0, []) as Array<{ field: KeyField }>).map((e) => e.field);
	const keys = [...new Set(entries)];
	if (keys.length !== entries.length) {
		throw new NodeOperationError(this.getNode(), 'A key field is listed twice in Key Fields');
	}
	return keys;
}

// ---- Input items ----

async function uploadItems(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	settings: Settings,
	options: IDataObject,
): Promise<INodeExecutionData[]> {
	const rawRowOf = planRows.call(this, items, options);
	const summary = new ValidationSummary(MAX_REPORTED_VIOLATIONS);

	// Checks every item and yields the valid ones in their written form; `summary` counts both kinds.
	function* validRecords(): Generator<SourceRecord> {
		for (let itemIndex = 0; itemIndex < items.length; itemIndex++) {
			const result = validatePersonRow(rawRowOf(itemIndex), itemIndex, settings.keys);
			if (isPersonRow(result)) {
				summary.addValid();
				yield { itemIndex, row: result };
			} else summary.addInvalid(result);
		}
	}

	if (!settings.skipInvalid) {
		// A first pass that keeps nothing: any invalid record stops the upload before it starts.
		for (const _ of validRecords());
		if (summary.invalid > 0) throw invalidRecordsError(this, summary, 'item');
		summary.valid = 0;
	}
	return await uploadParts.call(this, validRecords(), settings, summary, 'item');
}

/** The raw record of each item, by mapping mode; configuration errors become node errors. */
function planRows(
	this: IExecuteFunctions,
	items: INodeExecutionData[],
	options: IDataObject,
): (itemIndex: number) => RawPersonRow {
	const mode = this.getNodeParameter('mappingMode', 0, 'auto') as string;
	try {
		if (mode === 'define') return planDefinedRows.call(this);
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
		return (itemIndex) => mapping.map(items[itemIndex].json);
	} catch (error) {
		throw asMappingError(this, error);
	}
}

function* jsonOf(items: INodeExecutionData[]): Generator<IDataObject> {
	for (const item of items) yield item.json;
}

function planDefinedRows(this: IExecuteFunctions): (itemIndex: number) => RawPersonRow {
	const definedPerson = (itemIndex: number): DefinedPerson => {
		const fields: Partial<Record<PersonField, unknown>> = {};
		for (const { field, value } of this.getNodeParameter('personFields.values', itemIndex, []) as Array<{
			field: PersonField;
			value: unknown;
		}>) {
			if (field in fields) {
				throw new PersonMappingError(`Person field ${field} is defined twice`, itemIndex);
			}
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
	return (itemIndex) => {
		try {
			return mapping.map(itemIndex === 0 ? first : definedPerson(itemIndex), itemIndex);
		} catch (error) {
			throw asMappingError(this, error);
		}
	};
}

function asMappingError(context: IExecuteFunctions, error: unknown): Error {
	if (!(error instanceof PersonMappingError)) return error as Error;
	return new NodeOperationError(context.getNode(), error.message, { itemIndex: error.itemIndex });
}

// ---- Binary files ----

async function uploadBinaryFile(
	this: IExecuteFunctions,
	itemIndex: number,
	settings: Settings,
): Promise<INodeExecutionData[]> {
	const property = readTextParameter.call(this, 'binaryPropertyName', itemIndex, 'Input Binary Field');
	const binary = this.helpers.assertBinaryData(itemIndex, property);
	const fileSize = binary.id
		? (await this.helpers.getBinaryMetadata(binary.id)).fileSize
		: Buffer.byteLength(binary.data, 'base64');
	// Closed at the end whatever happened: a reader that stops early (a bad header) leaves its file open otherwise.
	const opened: Readable[] = [];
	const open = async (): Promise<Readable> => {
		const stream = await openBinary(this, binary);
		opened.push(stream);
		return stream;
	};
	const validate = this.getNodeParameter('validateFile', itemIndex, true) as boolean;
	const tooLarge = fileSize > settings.maxPartBytes;

	try {
		let summary: ValidationSummary | undefined;
		if (validate || tooLarge) {
			// Parts are rewritten from the records, so a file that must be split is always checked first.
			const check = await checkPersonFile(await open(), settings.format, settings.keys, MAX_REPORTED_VIOLATIONS);
			summary = check.summary;
			if (summary.invalid > 0 && !settings.skipInvalid) throw invalidRecordsError(this, summary, 'record', itemIndex);
		}
		if (summary && summary.valid === 0) throw noValidRecordError(this, summary, itemIndex);

		if (!tooLarge && (summary === undefined || summary.invalid === 0)) {
			// The file as it is, in one request.
			const response = await sendPart.call(this, await open(), settings, itemIndex, fileSize);
			const json = partJson(response, { index: 0, records: summary?.valid ?? null, bytes: fileSize }, summary);
			return [{ json, pairedItem: { item: itemIndex } }];
		}

		const rewritten = new ValidationSummary(MAX_REPORTED_VIOLATIONS);
		const records = validFileRecords(await open(), settings.format, settings.keys, rewritten);
		const output = await uploadParts.call(this, records, settings, summary ?? rewritten, 'record', itemIndex);
		// The records of a file all come from one input item.
		for (const item of output) item.pairedItem = { item: itemIndex };
		return output;
	} catch (error) {
		if (error instanceof PersonFileError) {
			throw new NodeOperationError(this.getNode(), `The ${settings.format.toUpperCase()} file: ${error.message}`, {
				itemIndex,
				description: 'Check the File Format option and the file. Nothing was uploaded.',
			});
		}
		throw error;
	} finally {
		for (const stream of opened) stream.destroy();
	}
}

async function openBinary(context: IExecuteFunctions, binary: IBinaryData): Promise<Readable> {
	if (binary.id) return await context.helpers.getBinaryStream(binary.id);
	return Readable.from([Buffer.from(binary.data, 'base64')]);
}

// ---- Sending ----

interface UploadResponse {
	fileId?: unknown;
	nameFile?: unknown;
	path?: unknown;
	message?: unknown;
}

async function sendPart(
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
	const answer = response.body.response;
	return typeof answer === 'object' && answer !== null ? (answer as UploadResponse) : {};
}

/**
 * Splits the records into parts and sends them one after the other, each written while it is sent. One output
 * item per part, paired with the items whose records it holds.
 */
async function uploadParts(
	this: IExecuteFunctions,
	records: Iterable<SourceRecord> | AsyncIterable<SourceRecord>,
	settings: Settings,
	summary: ValidationSummary,
	itemWord: 'item' | 'record',
	fileItemIndex?: number,
): Promise<INodeExecutionData[]> {
	const format = PERSON_FILE_FORMATS[settings.format];
	const output: INodeExecutionData[] = [];
	const uploaded: string[] = [];
	for await (const part of splitPersonFile(records, { format, maxPartBytes: settings.maxPartBytes })) {
		let response: UploadResponse;
		try {
			response = await sendPart.call(this, part.stream, settings, fileItemIndex);
		} catch (error) {
			const cause = await part.finished.then(
				() => undefined,
				(reason: unknown) => reason,
			);
			throw partFailure(this, cause instanceof RecordTooLargeError ? cause : error, uploaded, itemWord, fileItemIndex);
		}
		const partSummary = await part.finished;
		uploaded.push(String(response.fileId ?? ''));
		output.push({ json: partJson(response, partSummary, summary), pairedItem: pairedItemsOf(partSummary.itemRanges) });
	}
	if (output.length === 0) throw noValidRecordError(this, summary, fileItemIndex);
	// The summary is complete only once the last part has been written.
	for (const item of output) item.json.validation = validationJson(summary);
	for (const item of output) item.json.parts = output.length;
	return output;
}

/**
 * A part's input items as n8n pairs them: one `{ item }` per item, as n8n has no range form. It is the bulk of what
 * the output keeps (about 40 bytes an item); sized up front, as growing by push leaves up to half again unused.
 */
function pairedItemsOf(itemRanges: readonly number[]): IPairedItemData[] {
	let count = 0;
	for (let r = 0; r < itemRanges.length; r += 2) count += itemRanges[r + 1] - itemRanges[r] + 1;
	const pairedItem = new Array<IPairedItemData>(count);
	let next = 0;
	for (let r = 0; r < itemRanges.length; r += 2) {
		for (let i = itemRanges[r]; i <= itemRanges[r + 1]; i++) pairedItem[next++] = { item: i };
	}
	return pairedItem;
}

function partJson(
	response: UploadResponse,
	part: { index: number; records: number | null; bytes: number },
	summary: ValidationSummary | undefined,
): IDataObject {
	const json: IDataObject = {
		fileId: response.fileId as string,
		nameFile: response.nameFile as string,
		path: response.path as string,
		message: response.message as string,
		part: part.index + 1,
		parts: 1,
		records: part.records,
		bytes: part.bytes,
	};
	if (summary) json.validation = validationJson(summary);
	return json;
}

function validationJson(summary: ValidationSummary): IDataObject {
	return {
		valid: summary.valid,
		skipped: summary.invalid,
		reasons: summary.violations as unknown as IDataObject[],
	};
}

// ---- Errors ----

function listViolations(violations: readonly PersonViolation[], itemWord: string): string {
	return violations
		.slice(0, MAX_LISTED_IN_ERROR)
		.map((violation) => describeViolation(violation, itemWord))
		.join('\n');
}

function invalidRecordsError(
	context: IExecuteFunctions,
	summary: ValidationSummary,
	itemWord: 'item' | 'record',
	itemIndex?: number,
): NodeOperationError {
	const total = summary.valid + summary.invalid;
	const first = summary.violations[0];
	const firstText = describeViolation(first, itemWord);
	return new NodeOperationError(
		context.getNode(),
		`${summary.invalid} of ${total} ${itemWord}s break the gateway's person rules (first: ${firstText})`,
		{
			itemIndex: itemIndex ?? first.itemIndex,
			description:
				`Nothing was uploaded. First invalid ${itemWord}s (${itemWord}s count from 0):\n` +
				`${listViolations(summary.violations, itemWord)}\n` +
				'Fix the data, or set On Invalid Records to Skip to upload the valid ones.',
		},
	);
}

function noValidRecordError(context: IExecuteFunctions, summary: ValidationSummary, itemIndex?: number) {
	return new NodeOperationError(context.getNode(), 'There is no valid person record to upload', {
		itemIndex,
		description:
			summary.invalid > 0
				? `All ${summary.invalid} records are invalid:\n${listViolations(summary.violations, 'record')}`
				: 'The input holds no record.',
	});
}

function partFailure(
	context: IExecuteFunctions,
	error: unknown,
	uploaded: string[],
	itemWord: string,
	fileItemIndex?: number,
): Error {
	const already = uploaded.length
		? ` ${uploaded.length} earlier part(s) were uploaded: file ids ${uploaded.join(', ')}.`
		: ' Nothing was uploaded.';
	if (error instanceof RecordTooLargeError) {
		const sizes = `${error.bytes} > ${error.maxPartBytes} bytes`;
		return new NodeOperationError(
			context.getNode(),
			`The ${itemWord} ${error.itemIndex} is larger than the part size limit (${sizes})`,
			{ itemIndex: fileItemIndex ?? error.itemIndex, description: `Raise Part Size Limit or shorten it.${already}` },
		);
	}
	if (error instanceof NodeOperationError || (error instanceof Error && 'description' in error)) {
		const withDescription = error as Error & { description?: string | null };
		if (uploaded.length) withDescription.description = `${withDescription.description ?? ''}${already}`.trim();
		return error;
	}
	return new NodeOperationError(context.getNode(), error as Error, { itemIndex: fileItemIndex, description: already });
}
