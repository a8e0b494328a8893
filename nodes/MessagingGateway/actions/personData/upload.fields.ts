/**
 * Person Data > Upload: the editor fields, and the settings read from them once per run (all items share one file).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { getGatewaySettings } from '../../../gateway/transport';
import { type CountryCode, readDefaultCountry } from '../../../gateway/phone';
import { PERSON_FILE_MAX_BYTES } from '../../../gateway/spec';
import { timeoutMsOf, timeoutOption } from '../common';
import { RetryMemory } from '../retryMemory';
import { ATTRIBUTE_TYPES, KEY_FIELDS, type KeyConfiguration, type KeyField, PERSON_FIELDS } from '../../persons/fields';
import type { PersonFileFormatName } from '../../persons/writers';

const show = { resource: ['personData'], operation: ['upload'] };
const showItems = { ...show, source: ['items'] };
const typeOptions = ATTRIBUTE_TYPES.map((type) => ({ name: type, value: type }));

export const description: INodeProperties[] = [
	{
		displayName:
			'All input items become one person file, one record per item (records that break the gateway’s rules fail or are skipped, as On Invalid Records says), uploaded once: the output is one item with its file ID. A Phone written without its country code, such as (21) 99876-5432, is read in the Default Country below, or else the credential’s.',
		name: 'itemsNotice',
		type: 'notice',
		default: '',
		displayOptions: { show: showItems },
	},
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
		description:
			'Whether to read the file and check every record against the gateway rules before uploading it. Values the ' +
			'gateway wants in another form (Float 12 → 12.0, a date-time with a space → with T) are rewritten in the ' +
			'file that is sent; the output counts them per column.',
		hint: 'Off: a file within the part size is sent byte for byte, unchecked, and the gateway judges it',
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
					'Keys named like a person field (Email, E-mail, WhatsApp...) fill it, Name is split in two, other keys become attributes',
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
		displayName: 'Default Country',
		name: 'defaultCountry',
		type: 'string',
		default: '',
		placeholder: 'e.g. BR',
		description:
			"Two-letter country code (ISO 3166) of Phone values written without their country code, such as (21) 99876-5432 in BR. Empty: the credential's Default Country.",
		displayOptions: { show },
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
			timeoutOption,
		],
	},
];

/** What all items share; read from the first item's parameters. */
export interface Settings {
	format: PersonFileFormatName;
	keys: KeyConfiguration;
	skipInvalid: boolean;
	maxPartBytes: number;
	/** The Timeout option of each part's request (ms). */
	timeoutMs: number;
	/** What this node run sent, for n8n's Retry On Fail (one per call of the node). */
	retries: RetryMemory;
	options: IDataObject;
	/** The country of Phone values written without their country code: the node's field, or else the credential's. */
	defaultCountry?: CountryCode;
}

export async function readSettings(this: IExecuteFunctions): Promise<Settings> {
	const options = this.getNodeParameter('options', 0, {}) as IDataObject;
	return {
		format: this.getNodeParameter('format', 0, 'csv') as PersonFileFormatName,
		keys: readKeys.call(this),
		defaultCountry: await readPhoneCountry.call(this),
		skipInvalid: this.getNodeParameter('onInvalid', 0, 'fail') === 'skip',
		maxPartBytes: Math.min(Number(options.partSizeLimit) || PERSON_FILE_MAX_BYTES, PERSON_FILE_MAX_BYTES),
		timeoutMs: timeoutMsOf.call(this, 0),
		retries: new RetryMemory(this),
		options,
	};
}

/** The Default Country of person phones, as Message > Send reads it for recipients; a bad code is refused, naming where. */
async function readPhoneCountry(this: IExecuteFunctions): Promise<CountryCode | undefined> {
	const own = this.getNodeParameter('defaultCountry', 0, '') as unknown;
	if (typeof own !== 'string' || own.trim() !== '') {
		const read = readDefaultCountry(own);
		if ('problem' in read) throw new NodeOperationError(this.getNode(), `Default Country: ${read.problem}`, { description: 'Nothing was uploaded.' });
		return read.country;
	}
	const read = readDefaultCountry((await getGatewaySettings.call(this)).defaultCountry);
	if ('problem' in read) {
		throw new NodeOperationError(this.getNode(), `Default Country of the Messaging Gateway credential: ${read.problem}`, {
			description: 'Open the credential and correct Default Country, or leave it empty. Nothing was uploaded.',
		});
	}
	return read.country;
}

function readKeys(this: IExecuteFunctions): KeyField[] {
	const entries = (this.getNodeParameter('keyFields.values', 0, []) as Array<{ field: KeyField }>).map((e) => e.field);
	const keys = [...new Set(entries)];
	if (keys.length !== entries.length) {
		throw new NodeOperationError(this.getNode(), 'A key field is listed twice in Key Fields');
	}
	return keys;
}
