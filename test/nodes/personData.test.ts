/**
 * Person Data > Upload inside n8n's real execution context, against the sandbox gateway: what reaches the gateway
 * (content type, apiKey header, the records exactly), splitting into parts, invalid records and binary files.
 */
import { parse } from 'csv-parse/sync';
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeParameters } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { PERSON_CONTENT_TYPES } from '../../nodes/gateway/spec';
import { type InputItem, measurePeakMemory, runNode } from '../harness';
import { type Sandbox, sandboxCredentials, startSandbox } from '../sandbox';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox();
});
afterAll(async () => await sandbox.close());
beforeEach(() => sandbox.reset());

const run = (parameters: INodeParameters, items: InputItem[]) =>
	runNode({
		node: new MessagingGateway(),
		parameters: { resource: 'personData', operation: 'upload', ...parameters },
		credentials: { messagingGatewayApi: { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url } },
		items,
	});

/** Rows as they come from a spreadsheet: snake_case keys, numbers, awkward text. */
const PEOPLE: IDataObject[] = [
	{ first_name: 'Ana; Maria', last_name: 'O"Neil', email: 'ana@example.com', plan: 'gold', visits: 3, vip: true },
	{ first_name: 'José 🙂', email: 'jose@exemplo.com.br', phone: '+55 11 97312-4856', plan: 'a\nb', visits: 10 },
	{ last_name: 'Ünïcødé', cpf: '529.982.247-25', plan: '"x"', visits: 0, vip: false },
];

/** The same people as the gateway must receive them (CSV cells). */
const EXPECTED_CSV = [
	{
		FirstName: 'Ana; Maria',
		LastName: 'O"Neil',
		CPF: '',
		Email: 'ana@example.com',
		Phone: '',
		'plan:String': 'gold',
		'visits:Integer': '3',
		'vip:Boolean': 'true',
	},
	{
		FirstName: 'José 🙂',
		LastName: '',
		CPF: '',
		Email: 'jose@exemplo.com.br',
		Phone: '5511973124856',
		'plan:String': 'a\nb',
		'visits:Integer': '10',
		'vip:Boolean': '',
	},
	{
		FirstName: '',
		LastName: 'Ünïcødé',
		CPF: '52998224725',
		Email: '',
		Phone: '',
		'plan:String': '"x"',
		'visits:Integer': '0',
		'vip:Boolean': 'false',
	},
];

function uploads() {
	return sandbox.requests.filter((request) => request.route === 'personUpload');
}

describe('Person Data > Upload from items', () => {
	it('sends one CSV file with the records exactly, the CSV content type and the apiKey header', async () => {
		const result = await run({}, PEOPLE.map((json) => ({ json })));

		const [request] = uploads();
		expect(uploads()).toHaveLength(1);
		expect(request.headers['content-type']).toBe(PERSON_CONTENT_TYPES.csv);
		expect(request.headers.apikey).toBe(sandbox.apiKey);
		const [file] = sandbox.state.personFiles;
		expect(parse(file.text!, { delimiter: ';', columns: true })).toEqual(EXPECTED_CSV);
		expect(file.records).toBe(3);

		const [out] = result.output[0];
		expect(out.json).toMatchObject({
			fileId: file.fileId,
			nameFile: file.nameFile,
			path: file.path,
			records: 3,
			bytes: file.bytes,
			part: 1,
			parts: 1,
			validation: { valid: 3, skipped: 0, reasons: [] },
		});
		expect(out.pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('sends JSON with customAttributes when the format is JSON', async () => {
		await run({ format: 'json' }, PEOPLE.map((json) => ({ json })));
		const [file] = sandbox.state.personFiles;
		expect(file.contentType).toBe(PERSON_CONTENT_TYPES.json);
		expect(uploads()[0].headers['content-type']).toBe(PERSON_CONTENT_TYPES.json);
		expect(JSON.parse(file.text!)).toEqual([
			{
				FirstName: 'Ana; Maria',
				LastName: 'O"Neil',
				Email: 'ana@example.com',
				customAttributes: {
					plan: { Type: 'String', Value: 'gold' },
					visits: { Type: 'Integer', Value: 3 },
					vip: { Type: 'Boolean', Value: true },
				},
			},
			{
				FirstName: 'José 🙂',
				Email: 'jose@exemplo.com.br',
				Phone: '5511973124856',
				customAttributes: { plan: { Type: 'String', Value: 'a\nb' }, visits: { Type: 'Integer', Value: 10 } },
			},
			{
				LastName: 'Ünïcødé',
				CPF: '52998224725',
				customAttributes: {
					plan: { Type: 'String', Value: '"x"' },
					visits: { Type: 'Integer', Value: 0 },
					vip: { Type: 'Boolean', Value: false },
				},
			},
		]);
	});

	it('maps defined fields and custom attributes, resolving expressions per item', async () => {
		await run(
			{
				mappingMode: 'define',
				personFields: {
					values: [
						{ field: 'Email', value: '={{ $json.mail }}' },
						{ field: 'FirstName', value: '={{ $json.name }}' },
					],
				},
				customAttributes: { values: [{ name: 'Score', type: 'Float', value: '={{ $json.score }}' }] },
				keyFields: { values: [{ field: 'Email' }] },
			},
			[{ json: { mail: 'a@example.com', name: 'Ana', score: 5 } }, { json: { mail: 'b@example.com', name: 'Bia', score: 2.5 } }],
		);
		expect(parse(sandbox.state.personFiles[0].text!, { delimiter: ';', columns: true })).toEqual([
			{ FirstName: 'Ana', Email: 'a@example.com', 'Score:Float': '5.0' },
			{ FirstName: 'Bia', Email: 'b@example.com', 'Score:Float': '2.5' },
		]);
	});

	it('splits into parts under the size limit, each a complete file, every record exactly once', async () => {
		const items = Array.from({ length: 120 }, (_, i) => ({
			json: { first_name: `Pessoa ${i}`, email: `p${i}@example.com`, note: `n;${i}` },
		}));
		const result = await run({ options: { partSizeLimit: 1024 } }, items);

		const files = sandbox.state.personFiles;
		expect(files.length).toBeGreaterThan(3);
		const emails = files.flatMap((file) => {
			expect(file.bytes).toBeLessThanOrEqual(1024);
			const rows = parse(file.text!, { delimiter: ';', columns: true }) as Array<Record<string, string>>;
			expect(rows).toHaveLength(file.records);
			return rows.map((row) => row.Email);
		});
		expect(emails).toEqual(items.map((item) => item.json.email));

		const out = result.output[0];
		expect(out.map((item) => item.json.fileId)).toEqual(files.map((file) => file.fileId));
		expect(out.map((item) => item.json.records)).toEqual(files.map((file) => file.records));
		expect(out.every((item) => item.json.parts === files.length)).toBe(true);
		const paired = out.flatMap((item) => (item.pairedItem as Array<{ item: number }>).map((p) => p.item));
		expect(paired).toEqual(items.map((_, i) => i));
	});

	it('fails with the invalid items listed and uploads nothing by default', async () => {
		const items = [...PEOPLE, { first_name: 'Bad', email: 'N/A' }, { email: 'x@example.com' }].map((json) => ({ json }));
		await expect(run({}, items)).rejects.toMatchObject({
			message: expect.stringContaining('2 of 5 items break'),
			description: expect.stringContaining('item 3: Email "N/A" is a placeholder'),
		});
		expect(uploads()).toHaveLength(0);
	});

	it('skips invalid items when asked and reports them', async () => {
		const items = [...PEOPLE, { first_name: 'Bad', email: 'N/A' }].map((json) => ({ json }));
		const result = await run({ onInvalid: 'skip' }, items);
		expect(sandbox.state.personFiles[0].records).toBe(3);
		const [out] = result.output[0];
		expect(out.json.validation).toEqual({
			valid: 3,
			skipped: 1,
			reasons: [{ itemIndex: 3, field: 'Email', reason: 'is a placeholder, not an e-mail', value: 'N/A' }],
		});
		expect(out.pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('requires the highest-priority key when keys are configured', async () => {
		await expect(
			run({ keyFields: { values: [{ field: 'CPF' }, { field: 'Email' }] } }, PEOPLE.map((json) => ({ json }))),
		).rejects.toMatchObject({ message: expect.stringContaining('2 of 3 items break') });
	});
});

describe('Person Data > Upload from a binary file', () => {
	const csv = 'FirstName;Email;score:Integer\nAna;ana@example.com;1\nBia;bia@example.com;2\n';
	const binaryItem = (text: string, fileName = 'people.csv'): InputItem => ({
		json: {},
		binary: { data: { data: Buffer.from(text), fileName, mimeType: 'text/csv' } },
	});

	it('streams a valid file as it is, byte for byte', async () => {
		const result = await run({ source: 'binary' }, [binaryItem(csv)]);
		const [file] = sandbox.state.personFiles;
		expect(file.text).toBe(csv);
		expect(file.contentType).toBe(PERSON_CONTENT_TYPES.csv);
		expect(uploads()[0].headers.apikey).toBe(sandbox.apiKey);
		expect(result.output[0][0].json).toMatchObject({ fileId: file.fileId, records: 2, bytes: csv.length });
	});

	it('sends a JSON file with the JSON content type', async () => {
		const json = JSON.stringify([{ FirstName: 'Ana', Email: 'ana@example.com' }]);
		await run({ source: 'binary', format: 'json' }, [binaryItem(json, 'people.json')]);
		expect(sandbox.state.personFiles[0]).toMatchObject({ text: json, contentType: PERSON_CONTENT_TYPES.json });
	});

	it('refuses a file with invalid records before uploading', async () => {
		await expect(run({ source: 'binary' }, [binaryItem(`${csv}Caio;not-an-email;3\n`)])).rejects.toMatchObject({
			description: expect.stringContaining('record 2: Email "not-an-email" is not a valid e-mail address'),
		});
		expect(uploads()).toHaveLength(0);
	});

	it('rewrites the file without the invalid records when skipping', async () => {
		const result = await run({ source: 'binary', onInvalid: 'skip' }, [binaryItem(`${csv}Caio;N/A;3\n`)]);
		expect(sandbox.state.personFiles[0].text).toBe(csv);
		expect(result.output[0][0].json.validation).toMatchObject({ valid: 2, skipped: 1 });
	});

	it('splits a file larger than the part size into valid parts', async () => {
		const rows = Array.from({ length: 100 }, (_, i) => `P${i};p${i}@example.com;${i}`);
		const result = await run({ source: 'binary', options: { partSizeLimit: 1024 } }, [
			binaryItem(`FirstName;Email;score:Integer\n${rows.join('\n')}\n`),
		]);
		const files = sandbox.state.personFiles;
		expect(files.length).toBeGreaterThan(1);
		const back = files.flatMap((file) => file.text!.trimEnd().split('\n').slice(1));
		expect(back).toEqual(rows);
		expect(result.output[0]).toHaveLength(files.length);
		expect(result.output[0].every((item) => JSON.stringify(item.pairedItem) === '{"item":0}')).toBe(true);
	});

	it('explains a file that is not a person file', async () => {
		await expect(run({ source: 'binary' }, [binaryItem('name;mail\nAna;a@example.com\n')])).rejects.toMatchObject({
			message: expect.stringContaining('Column "name" is neither a person field'),
		});
	});
});

describe('Person Data > Upload memory', () => {
	const COUNT = 200_000;
	const MB = 1024 * 1024;

	it(`stays flat with ${COUNT} items: nothing per item is held but the output's pairing`, async () => {
		// Its own sandbox that keeps no body: the sandbox runs in this process and its memory would count.
		const quiet = await startSandbox({ keepBodiesUpToBytes: 0 });
		try {
			// Parsed from JSON as n8n's items are: template strings would be flattened in place by the node's checks.
			const people = JSON.parse(
				JSON.stringify(
					Array.from({ length: COUNT }, (_, i) => ({
						first_name: `Pessoa ${i}`,
						email: `pessoa.${i}@example.com`,
						phone: `+55 11 9${30000000 + i}`,
						plan: i % 5 === 0 ? 'gold "vip"' : 'basic',
						visits: i % 1000,
					})),
				),
			) as IDataObject[];
			const node = new MessagingGateway();
			const execute = node.execute as (this: IExecuteFunctions) => Promise<INodeExecutionData[][]>;
			let growth = 0;
			// Measured from execute()'s start: the items n8n wraps the input in are not the node's.
			node.execute = async function (this: IExecuteFunctions) {
				const measured = await measurePeakMemory(async () => await execute.call(this));
				growth = measured.peakGrowth;
				return measured.result;
			};
			const { output } = await runNode({
				node,
				parameters: { resource: 'personData', operation: 'upload' },
				credentials: sandboxCredentials(quiet),
				items: people.map((json) => ({ json })),
			});
			expect(quiet.state.personFiles.map((file) => file.records)).toEqual([COUNT]);
			expect(output[0][0].pairedItem).toHaveLength(COUNT);
			// The output's pairedItem list is ~40 bytes an item (7.6 MB); the upload itself holds about 1 MB. Holding
			// the file (~12 MB) or the checked records (~40 MB) would break the bound.
			expect(growth).toBeLessThan(16 * MB);
		} finally {
			await quiet.close();
		}
	}, 60_000);
});
