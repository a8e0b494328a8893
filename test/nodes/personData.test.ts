/**
 * Person Data > Upload from input items, inside n8n's real execution context, against the sandbox gateway: what
 * reaches the gateway (content type, apiKey header, the records exactly), splitting into parts, invalid items, column
 * names from spreadsheets, and Continue On Fail. Binary files: personData.files.test.ts. The memory check with 200,000
 * items: personData.heavy.test.ts (`npm run test:heavy`).
 */
import { parse } from 'csv-parse/sync';
import type { IDataObject, INodeParameters } from 'n8n-workflow';

import { PERSON_CONTENT_TYPES } from '../../nodes/gateway/spec';
import { type InputItem } from '../harness';
import { jsonItems, rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const run = (parameters: INodeParameters, items: InputItem[], continueOnFail = false) =>
	runGateway(gateway.sandbox, { resource: 'personData', operation: 'upload', ...parameters }, { items, continueOnFail });

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
	return gateway.sandbox.requests.filter((request) => request.route === 'personUpload');
}

/** The records the gateway stored, as CSV rows, in upload order. */
function storedRows(): Array<Record<string, string>> {
	return gateway.sandbox.state.personFiles.flatMap(
		(file) => parse(file.text!, { delimiter: ';', columns: true }) as Array<Record<string, string>>,
	);
}

describe('Person Data > Upload from items', () => {
	it('sends one CSV file with the records exactly, the CSV content type and the apiKey header', async () => {
		const result = await run({}, PEOPLE.map((json) => ({ json })));

		const [request] = uploads();
		expect(uploads()).toHaveLength(1);
		expect(request.headers['content-type']).toBe(PERSON_CONTENT_TYPES.csv);
		expect(request.headers.apikey).toBe(gateway.sandbox.apiKey);
		const [file] = gateway.sandbox.state.personFiles;
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
		const [file] = gateway.sandbox.state.personFiles;
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
		expect(parse(gateway.sandbox.state.personFiles[0].text!, { delimiter: ';', columns: true })).toEqual([
			{ FirstName: 'Ana', Email: 'a@example.com', 'Score:Float': '5.0' },
			{ FirstName: 'Bia', Email: 'b@example.com', 'Score:Float': '2.5' },
		]);
	});

	it('splits into parts under the size limit, each a complete file, every record exactly once', async () => {
		const items = Array.from({ length: 120 }, (_, i) => ({
			json: { first_name: `Pessoa ${i}`, email: `p${i}@example.com`, note: `n;${i}` },
		}));
		const result = await run({ options: { partSizeLimit: 1024 } }, items);

		const files = gateway.sandbox.state.personFiles;
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

	it('fails with the invalid items listed in a readable description and uploads nothing by default', async () => {
		const items = jsonItems([...PEOPLE, { first_name: 'Bad', email: 'N/A' }, { email: 'x@example.com' }]);
		const error = await rejectionOf(run({}, items));
		expect(error.message).toBe("2 of 5 items break the gateway's person rules");
		// No one item named: n8n would add "[item 3]" to a message about two items.
		expect(error.context.itemIndex).toBeUndefined();
		// A local refusal: nothing in context.data, which n8n's panel shows under "From Messaging Gateway".
		expect(error.context.data).toBeUndefined();
		// n8n's error panel renders the description as HTML: a list, not lines glued together.
		expect(error.description).toContain('<li>item 3: Email <code>N/A</code> is a placeholder, not an e-mail</li>');
		expect(error.description).toContain('<li>item 4: FirstName/LastName is missing: one of them is required</li>');
		expect(error.description).not.toContain('\n');
		expect((error as unknown as { data: IDataObject }).data.violations).toHaveLength(2);
		expect(uploads()).toHaveLength(0);
	});

	it('lists only the first invalid items in the description and all of them in the error data', async () => {
		const items = jsonItems(Array.from({ length: 30 }, (_, i) => ({ first_name: `P${i}`, email: `bad-${i}` })));
		const error = await rejectionOf(run({}, items));
		expect(error.description!.match(/<li>item \d+:/g)).toHaveLength(5);
		expect(error.description).toContain('… and 25 more: with Continue On Fail, the error item lists them all');
		expect((error as unknown as { data: IDataObject }).data.violations).toHaveLength(30);
	});

	it('with Continue On Fail, invalid items become one error item for the file, paired with every item, never the input', async () => {
		const items = jsonItems([...PEOPLE, { first_name: 'Bad', email: 'N/A' }]);
		const result = await run({}, items, true);
		expect(uploads()).toHaveLength(0);
		expect(result.output[0]).toHaveLength(1);
		const [out] = result.output[0];
		expect(out.json).toMatchObject({
			error: "1 of 4 items break the gateway's person rules",
			description: expect.stringContaining('item 3: Email "N/A" is a placeholder, not an e-mail'),
			valid: 3,
			invalid: 1,
			violations: [{ itemIndex: 3, field: 'Email', reason: 'is a placeholder, not an e-mail', value: 'N/A' }],
		});
		expect(out.json.description).not.toContain('<');
		expect(out.pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }, { item: 3 }]);
	});

	it('skips invalid items when asked and reports them', async () => {
		const items = jsonItems([...PEOPLE, { first_name: 'Bad', email: 'N/A' }]);
		const result = await run({ onInvalid: 'skip' }, items);
		expect(gateway.sandbox.state.personFiles[0].records).toBe(3);
		const [out] = result.output[0];
		expect(out.json.validation).toEqual({
			valid: 3,
			skipped: 1,
			reasons: [{ itemIndex: 3, field: 'Email', reason: 'is a placeholder, not an e-mail', value: 'N/A' }],
		});
		expect(out.pairedItem).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});

	it('sends each value in the form it was checked in, also where that is not its digits (both On Invalid modes)', async () => {
		// Fail checks every item first and writes them again without the checks: the rewritten forms must survive.
		const items = jsonItems([
			{ first_name: 'Bob', phone: '+44 020 7946 0018', cpf: 4815162395, score: 12 },
			{ first_name: 'Caio', phone: '0055 11 97312-4856', email: ' caio@example.com ', score: 2.5 },
		]);
		for (const onInvalid of ['fail', 'skip']) {
			gateway.sandbox.reset();
			await run({ onInvalid }, items);
			expect(storedRows()).toEqual([
				{ FirstName: 'Bob', CPF: '04815162395', Email: '', Phone: '442079460018', 'score:Float': '12.0' },
				{ FirstName: 'Caio', CPF: '', Email: 'caio@example.com', Phone: '5511973124856', 'score:Float': '2.5' },
			]);
		}
	});

	it('requires the highest-priority key when keys are configured', async () => {
		const error = await rejectionOf(run({ keyFields: { values: [{ field: 'CPF' }, { field: 'Email' }] } }, jsonItems(PEOPLE)));
		expect(error.message).toBe("2 of 3 items break the gateway's person rules");
	});
});

describe('Person Data > Upload: an attribute whose type changes between items (defined mapping)', () => {
	const parameters: INodeParameters = {
		mappingMode: 'define',
		personFields: { values: [{ field: 'Email', value: '={{ $json.mail }}' }, { field: 'FirstName', value: 'Ana' }] },
		customAttributes: { values: [{ name: 'score', type: '={{ $json.kind }}', value: '={{ $json.score }}' }] },
	};
	const items = jsonItems([
		{ mail: 'a@example.com', kind: 'String', score: 'x' },
		{ mail: 'b@example.com', kind: 'Integer', score: 2 },
		{ mail: 'c@example.com', kind: 'String', score: 'y' },
	]);
	const reason = 'Custom attribute "score" is Integer in this item and String in the first item';

	it('Skip: the item is skipped and reported with its index and the attribute, the others are uploaded', async () => {
		const result = await run({ ...parameters, onInvalid: 'skip' }, items);
		expect(storedRows().map((row) => row.Email)).toEqual(['a@example.com', 'c@example.com']);
		const [out] = result.output[0];
		expect(out.json.validation).toEqual({ valid: 2, skipped: 1, reasons: [{ itemIndex: 1, field: 'score', reason }] });
		expect(out.pairedItem).toEqual([{ item: 0 }, { item: 2 }]);
	});

	it('Fail: nothing is uploaded and the error names the item and the attribute', async () => {
		const error = await rejectionOf(run(parameters, items));
		expect(error.context.itemIndex).toBe(1);
		expect(error.description).toContain(`<li>item 1: score ${reason}</li>`);
		expect(uploads()).toHaveLength(0);
	});
});

describe('Person Data > Upload: parts that fail', () => {
	// Records of about 60 bytes in parts of at most 1024: item 40 alone is larger than a part.
	const items = jsonItems(
		Array.from({ length: 60 }, (_, i) => ({
			first_name: `Pessoa ${i}`,
			email: `p${i}@example.com`,
			note: i === 40 ? 'x'.repeat(2000) : `n${i}`,
		})),
	);
	const parameters = { options: { partSizeLimit: 1024 } };

	it('a record too large for a part: the error names its item and the parts already uploaded, not the connection', async () => {
		const error = await rejectionOf(run(parameters, items));
		const files = gateway.sandbox.state.personFiles;
		expect(files.length).toBeGreaterThan(0);
		expect(error.message).toBe('The item 40 is larger than the part size limit');
		expect(error.message).not.toMatch(/connection/i);
		expect(error.context.itemIndex).toBe(40);
		for (const file of files) expect(error.description).toContain(`fileId <code>${file.fileId}</code>`);
		expect(error.description).toContain('running the node again uploads them again');
		expect(error.description).toMatch(/Part \d+ of the file \(items [\d, -]*40\) was not uploaded, nor the items after it/);
		expect((error as unknown as { data: IDataObject }).data.accepted).toHaveLength(files.length);
		// Every accepted part is complete: the records before the failed part, each once.
		expect(storedRows().map((row) => row.Email)).toEqual(items.slice(0, storedRows().length).map((item) => item.json.email));
	});

	it('with Continue On Fail, the failed part is an error item paired with its items and the next parts go on', async () => {
		const result = await run(parameters, items, true);
		const out = result.output[0];
		const failed = out.filter((item) => item.json.error !== undefined);
		expect(failed).toHaveLength(1);
		expect(failed[0].json.error).toBe('The item 40 is larger than the part size limit');
		const failedItems = (failed[0].pairedItem as Array<{ item: number }>).map((p) => p.item);
		expect(failedItems).toContain(40);
		// Every item is paired exactly once: uploaded in a part, or in the failed part.
		const paired = out.flatMap((item) => (item.pairedItem as Array<{ item: number }>).map((p) => p.item));
		expect([...paired].sort((a, b) => a - b)).toEqual(items.map((_, i) => i));
		const uploaded = storedRows().map((row) => row.Email);
		expect(uploaded).toEqual(
			items.filter((_, i) => !failedItems.includes(i)).map((item) => item.json.email),
		);
		expect(out.filter((item) => item.json.fileId).map((item) => item.json.fileId)).toEqual(
			gateway.sandbox.state.personFiles.map((file) => file.fileId),
		);
	});

	it('a gateway failure of one part with Continue On Fail: an error item with the gateway\'s message for that part', async () => {
		gateway.sandbox.failNext('personUpload', 1, '500');
		const few = jsonItems(Array.from({ length: 100 }, (_, i) => ({ first_name: `P${i}`, email: `p${i}@example.com` })));
		const result = await run(parameters, few, true);
		const [first, ...rest] = result.output[0];
		expect(first.json).toMatchObject({ error: expect.stringContaining('injected by the sandbox'), httpCode: '500', part: 1 });
		expect(rest.length).toBeGreaterThan(0);
		expect(rest.every((item) => typeof item.json.fileId === 'string')).toBe(true);
		const firstItems = (first.pairedItem as Array<{ item: number }>).map((p) => p.item);
		expect(firstItems[0]).toBe(0);
		expect(storedRows()).toHaveLength(100 - firstItems.length);
	});
});

describe('Person Data > Upload: spreadsheet column names', () => {
	it('splits Name into first and last name and maps E-mail, Mail, Mobile, Celular and WhatsApp, listing what went where', async () => {
		const result = await run({}, jsonItems([
			{ 'Full Name': 'Ana Maria Souza', 'E-mail': 'ana@example.com', WhatsApp: '+55 11 97312-4856', Plano: 'ouro' },
			{ 'Full Name': 'Bia', 'E-mail': 'bia@example.com', WhatsApp: '', Plano: 'prata' },
		]));
		expect(storedRows()).toEqual([
			{ FirstName: 'Ana Maria', LastName: 'Souza', Email: 'ana@example.com', Phone: '5511973124856', 'Plano:String': 'ouro' },
			{ FirstName: 'Bia', LastName: '', Email: 'bia@example.com', Phone: '', 'Plano:String': 'prata' },
		]);
		expect(result.output[0][0].json.mapping).toEqual({
			fields: { Email: ['E-mail'], Phone: ['WhatsApp'] },
			splitIntoFirstAndLastName: ['Full Name'],
			customAttributes: { Plano: 'String' },
		});
	});

	it.each([
		['Nome', 'Mail', 'Celular'],
		['Name', 'Mail', 'Mobile'],
	])('maps %s, %s and %s', async (name, mail, phone) => {
		await run({}, jsonItems([{ [name]: 'José da Silva', [mail]: 'jose@example.com', [phone]: '+55 11 97312-4856' }]));
		expect(storedRows()).toEqual([
			{ FirstName: 'José da', LastName: 'Silva', Email: 'jose@example.com', Phone: '5511973124856' },
		]);
	});
});

describe("Person Data > Upload: n8n's Retry On Fail uploads nothing twice", () => {
	const retryOnFail = { maxTries: 3 };
	const items = jsonItems(Array.from({ length: 200 }, (_, i) => ({ first_name: `P${i}`, email: `p${i}@example.com` })));
	const upload = () =>
		runGateway(
			gateway.sandbox,
			{ resource: 'personData', operation: 'upload', options: { partSizeLimit: 1024 } },
			{ items, retryOnFail },
		);

	it('part 2 is refused once: the retry does not upload part 1 again and reuses its fileId; every record is stored once', async () => {
		// A 429 is "not sent" (a 500 would be of unknown outcome, never repeated).
		gateway.sandbox.failNext('personUpload', 1, '429', { skip: 1 });
		const { output, tries } = await upload();
		expect(tries).toBe(2);
		const files = gateway.sandbox.state.personFiles;
		expect(files.length).toBeGreaterThan(2);
		// One request per part, plus the one the gateway refused.
		expect(uploads()).toHaveLength(files.length + 1);
		expect(uploads().filter((request) => request.status === 429)).toHaveLength(1);
		expect(storedRows().map((row) => row.Email)).toEqual(items.map((item) => item.json.email));
		expect(output[0].map((item) => item.json.fileId)).toEqual(files.map((file) => file.fileId));
		expect(output[0].map((item) => item.json.part)).toEqual(files.map((_, index) => index + 1));
	});

	it('Continue On Fail: a first part of unknown outcome keeps its records on the retry; no record twice, every fileId with its own items', async () => {
		// 12 items in three parts; the first part's connection drops after the gateway stored it.
		const twelve = jsonItems(Array.from({ length: 12 }, (_, i) => ({ first_name: `P${i}`, email: `p${i}@example.com` })));
		gateway.sandbox.failNext('personUpload', 1, 'drop-after-accept');
		const { output, tries } = await runGateway(
			gateway.sandbox,
			{ resource: 'personData', operation: 'upload', options: { partSizeLimit: 125 } },
			{ items: twelve, retryOnFail, continueOnFail: true },
		);
		expect(tries).toBe(3); // the error item comes first: n8n tries again until Max Tries
		expect(uploads()).toHaveLength(3); // one request per part, none on the retries
		expect(storedRows().map((row) => row.Email)).toEqual(twelve.map((item) => item.json.email));
		// Each output item is paired with the items of its own part, as the gateway stored the parts.
		const stored = gateway.sandbox.state.personFiles;
		expect(stored.map((file) => file.records).reduce((sum, records) => sum + records, 0)).toBe(12);
		let next = 0;
		const partItems = stored.map((file) => Array.from({ length: file.records }, () => ({ item: next++ })));
		const [first, ...accepted] = output[0];
		expect(first.json.error).toMatch(/connection to the gateway was lost/);
		expect(first.pairedItem).toEqual(partItems[0]);
		// The first part was stored but its answer was lost: the others carry their own fileIds.
		expect(accepted.map((item) => item.json.fileId)).toEqual(stored.slice(1).map((file) => file.fileId));
		expect(accepted.map((item) => item.pairedItem)).toEqual(partItems.slice(1));
	});

	it('a part that may have arrived (connection lost) is not sent again by any try', async () => {
		gateway.sandbox.failNext('personUpload', 1, 'drop', { skip: 1 });
		const error = await rejectionOf(upload());
		expect(error.message).toMatch(/connection to the gateway was lost/);
		expect(error.tries).toBe(3);
		// Three tries: part 1 once, part 2 once (dropped); the later parts were never sent.
		expect(uploads()).toHaveLength(2);
		expect(gateway.sandbox.state.personFiles).toHaveLength(1);
	});
});

describe('Person Data > Upload: a record that changes between the check and the upload', () => {
	// Defined mapping evaluates its expressions in each pass. This one counts its evaluations in the item's JSON:
	// a whole number the first time (the check), text the second (the upload). Item 0's values are read once, when
	// the columns are planned from it, so item 1 is the one that changes.
	const parameters: INodeParameters = {
		mappingMode: 'define',
		personFields: { values: [{ field: 'Email', value: '={{ $json.mail }}' }, { field: 'FirstName', value: 'Ana' }] },
		customAttributes: {
			values: [{ name: 'visits', type: 'Integer', value: '={{ ($json.seen = ($json.seen ?? 0) + 1) === 1 ? 7 : "seven" }}' }],
		},
	};
	const items = () => jsonItems([{ mail: 'a@example.com' }, { mail: 'b@example.com' }]);

	it.each(['fail', 'skip'])('On Invalid = %s: fails the upload naming the item and the field, never skips the record', async (onInvalid) => {
		const error = await rejectionOf(run({ ...parameters, onInvalid }, items()));
		expect(error.message).toMatch(/^The record of item 1 changed after it was checked: visits "seven" must be a whole number/);
		expect(error.context.itemIndex).toBe(1);
		expect((error as unknown as { data: IDataObject }).data.changed).toEqual({ itemIndex: 1, field: 'visits', reason: 'must be a whole number (Integer)', value: 'seven' });
		// The part was planned with both items in the check.
		expect(error.description).toContain('Part 1 of the file (items 0-1) was not uploaded, nor the items after it.');
		expect(gateway.sandbox.state.personFiles).toHaveLength(0);
	});

	it('a value that stays valid but gives other bytes fails the part naming the item, never another length than announced', async () => {
		// 7 in the check, 700 in the upload: valid both times, two bytes longer.
		const longer: INodeParameters = {
			...parameters,
			customAttributes: {
				values: [{ name: 'visits', type: 'Integer', value: '={{ ($json.seen = ($json.seen ?? 0) + 1) === 1 ? 7 : 700 }}' }],
			},
		};
		const error = await rejectionOf(run(longer, items()));
		expect(error.message).toMatch(/^Part 1 changed between the check and the upload: .*item 1/);
		expect(error.context.itemIndex).toBe(1);
		expect(gateway.sandbox.state.personFiles).toHaveLength(0);
	});
});

describe('Person Data > Upload: phones as a new user writes them (issue 30)', () => {
	const firstRows = jsonItems([
		{ name: 'Ana Souza', phone: '+55 31 98765-4321' },
		{ name: 'Bruno Lima', phone: '+55 21 99876-5432' },
		{ name: 'Carla Dias', phone: '(21) 99876-5432' },
	]);
	const upload = (parameters: INodeParameters, credentials?: Record<string, string>) =>
		runGateway(gateway.sandbox, { resource: 'personData', operation: 'upload', ...parameters }, { items: firstRows, credentials });

	it("accepts runs of digits as Send does, and reads a national number in the credential's Default Country", async () => {
		await upload({}, { defaultCountry: 'BR' });
		expect(storedRows().map((row) => row.Phone)).toEqual(['5531987654321', '5521998765432', '5521998765432']);
	});

	it("reads a national number in the node's Default Country, which wins over the credential's", async () => {
		await upload({ defaultCountry: 'br' }, { defaultCountry: 'US' });
		expect(storedRows().map((row) => row.Phone)).toEqual(['5531987654321', '5521998765432', '5521998765432']);
	});

	it('without a Default Country refuses only the national number, saying where to set one', async () => {
		const error = await rejectionOf(upload({}, { defaultCountry: '' }));
		expect(error.message).toBe("1 of 3 items break the gateway's person rules");
		expect(error.description).toContain("set Default Country in the credential or the node's Default Country field");
		expect(uploads()).toHaveLength(0);
	});

	it('refuses a Default Country that is no country, naming the field, before anything is uploaded', async () => {
		const error = await rejectionOf(upload({ defaultCountry: 'Brazil' }));
		expect(error.message).toMatch(/^Default Country: "Brazil" is not a country code/);
		expect(uploads()).toHaveLength(0);
	});
});
