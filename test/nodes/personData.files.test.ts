/**
 * Person Data > Upload from binary files, inside n8n's real execution context, against the sandbox gateway: one
 * upload and one output item per file, Validate File First as a promise about the bytes sent, and what happens to
 * the other files when one fails, with and without Continue On Fail.
 */
import { parse } from 'csv-parse/sync';
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError } from 'n8n-workflow';

import { PERSON_CONTENT_TYPES } from '../../nodes/gateway/spec';
import type { InputItem } from '../harness';
import { rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const run = (parameters: INodeParameters, items: InputItem[], continueOnFail = false) =>
	runGateway(
		gateway.sandbox,
		{ resource: 'personData', operation: 'upload', source: 'binary', ...parameters },
		{ items, continueOnFail },
	);

const uploads = () => gateway.sandbox.requests.filter((request) => request.route === 'personUpload');

const binaryItem = (text: string, fileName = 'people.csv'): InputItem => ({
	json: { fileName },
	binary: { data: { data: Buffer.from(text), fileName, mimeType: 'text/csv' } },
});

const csv = 'FirstName;Email;score:Integer\nAna;ana@example.com;1\nBia;bia@example.com;2\n';

describe('Person Data > Upload from a binary file', () => {
	it('streams a valid file as it is, byte for byte, and answers with its fileId', async () => {
		const result = await run({}, [binaryItem(csv)]);
		const [file] = gateway.sandbox.state.personFiles;
		expect(file.text).toBe(csv);
		expect(file.contentType).toBe(PERSON_CONTENT_TYPES.csv);
		expect(uploads()[0].headers.apikey).toBe(gateway.sandbox.apiKey);
		expect(result.output[0]).toEqual([
			{
				json: expect.objectContaining({
					fileName: 'people.csv',
					fileId: file.fileId,
					fileIds: [file.fileId],
					records: 2,
					bytes: csv.length,
					parts: 1,
					rewritten: false,
					validation: { checked: true, valid: 2, skipped: 0, reasons: [], normalised: {} },
				}),
				pairedItem: { item: 0 },
			},
		]);
	});

	it('sends a JSON file with the JSON content type', async () => {
		const json = JSON.stringify([{ FirstName: 'Ana', Email: 'ana@example.com' }]);
		await run({ format: 'json' }, [binaryItem(json, 'people.json')]);
		expect(gateway.sandbox.state.personFiles[0]).toMatchObject({ text: json, contentType: PERSON_CONTENT_TYPES.json });
	});

	it('refuses a file with invalid records before uploading, naming the record', async () => {
		const error = await rejectionOf(run({}, [binaryItem(`${csv}Caio;not-an-email;3\n`)]));
		expect(error.message).toBe("1 of 3 records break the gateway's person rules");
		expect(error.description).toContain('<li>record 2: Email <code>not-an-email</code> is not a valid e-mail address</li>');
		expect(uploads()).toHaveLength(0);
	});

	it('rewrites the file without the invalid records when skipping', async () => {
		const result = await run({ onInvalid: 'skip' }, [binaryItem(`${csv}Caio;N/A;3\n`)]);
		expect(gateway.sandbox.state.personFiles[0].text).toBe(csv);
		expect(result.output[0][0].json).toMatchObject({ rewritten: true, validation: { valid: 2, skipped: 1 } });
	});

	it('splits a file larger than the part size into valid parts: still one output item, with every fileId', async () => {
		const rows = Array.from({ length: 100 }, (_, i) => `P${i};p${i}@example.com;${i}`);
		const result = await run({ options: { partSizeLimit: 1024 } }, [
			binaryItem(`FirstName;Email;score:Integer\n${rows.join('\n')}\n`),
		]);
		const files = gateway.sandbox.state.personFiles;
		expect(files.length).toBeGreaterThan(1);
		const back = files.flatMap((file) => file.text!.trimEnd().split('\n').slice(1));
		expect(back).toEqual(rows);
		expect(result.output[0]).toHaveLength(1);
		const [out] = result.output[0];
		expect(out.pairedItem).toEqual({ item: 0 });
		expect(out.json).toMatchObject({ fileIds: files.map((file) => file.fileId), parts: files.length, records: 100 });
		expect((out.json.uploads as IDataObject[]).map((upload) => upload.fileId)).toEqual(files.map((file) => file.fileId));
	});

	it('explains a file that is not a person file', async () => {
		const error = await rejectionOf(run({}, [binaryItem('name;mail\nAna;a@example.com\n')]));
		expect(error.message).toContain('Column "name" is neither a person field');
		expect(error.context.itemIndex).toBe(0);
	});
});

describe('Person Data > Upload: Validate File First is a promise about the bytes sent', () => {
	const needsNormalising =
		'FirstName;Email;Score:Float;Seen:Datetime\n' +
		'Ana;ana@example.com;12;2024-05-01 10:00\n' +
		'Bia;bia@example.com;2.5;2024-05-02\n';

	it('rewrites Float 12 and a date-time with a space into the gateway form, and counts them per column', async () => {
		const result = await run({}, [binaryItem(needsNormalising)]);
		const [file] = gateway.sandbox.state.personFiles;
		expect(parse(file.text!, { delimiter: ';', columns: true })).toEqual([
			{ FirstName: 'Ana', Email: 'ana@example.com', 'Score:Float': '12.0', 'Seen:Datetime': '2024-05-01T10:00' },
			{ FirstName: 'Bia', Email: 'bia@example.com', 'Score:Float': '2.5', 'Seen:Datetime': '2024-05-02' },
		]);
		expect(result.output[0][0].json).toMatchObject({
			fileId: file.fileId,
			rewritten: true,
			records: 2,
			validation: { checked: true, valid: 2, skipped: 0, normalised: { 'Score:Float': 1, 'Seen:Datetime': 1 } },
		});
	});

	it('JSON: a Float given as a whole string, a date-time with a comma fraction and a short offset', async () => {
		const json = JSON.stringify([
			{ Email: 'ana@example.com', FirstName: 'Ana', customAttributes: { Score: { Type: 'Float', Value: '12' }, Seen: { Type: 'Datetime', Value: '2024-05-01 10:00:00,5+03' } } },
		]);
		const result = await run({ format: 'json' }, [binaryItem(json, 'people.json')]);
		expect(JSON.parse(gateway.sandbox.state.personFiles[0].text!)).toEqual([
			{
				FirstName: 'Ana',
				Email: 'ana@example.com',
				customAttributes: {
					Score: { Type: 'Float', Value: 12 },
					Seen: { Type: 'Datetime', Value: '2024-05-01T10:00:00.5+03:00' },
				},
			},
		]);
		expect(result.output[0][0].json.validation).toMatchObject({ normalised: { 'Score:Float': 1, 'Seen:Datetime': 1 } });
	});

	it('without it the file goes out as it is, and the gateway judges it: its answer is the error', async () => {
		const error = await rejectionOf(run({ validateFile: false }, [binaryItem(needsNormalising)]));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/Score:float.*12.*not a Float/i);
		expect(gateway.sandbox.state.personFiles).toHaveLength(0);
		expect(uploads()).toHaveLength(1);
	});
});

describe("Person Data > Upload from files: n8n's Retry On Fail uploads nothing twice", () => {
	it('the second of three files is refused once: the retry uploads neither file 1 again nor anything twice', async () => {
		// A 429 is "not sent" (a 500 would be of unknown outcome, never repeated).
		gateway.sandbox.failNext('personUpload', 1, '429', { skip: 1 });
		const files = [0, 1, 2].map((n) => binaryItem(`FirstName;Email\nP${n};p${n}@example.com\n`, `people-${n}.csv`));
		const { output, tries } = await runGateway(
			gateway.sandbox,
			{ resource: 'personData', operation: 'upload', source: 'binary' },
			{ items: files, retryOnFail: { maxTries: 3 } },
		);
		expect(tries).toBe(2);
		const stored = gateway.sandbox.state.personFiles;
		expect(stored.map((file) => file.text)).toEqual([0, 1, 2].map((n) => `FirstName;Email\nP${n};p${n}@example.com\n`));
		expect(uploads()).toHaveLength(4); // three accepted, one refused
		expect(output[0].map((item) => item.json.fileId)).toEqual(stored.map((file) => file.fileId));
		expect(output[0].map((item) => item.pairedItem)).toEqual([{ item: 0 }, { item: 1 }, { item: 2 }]);
	});
});

describe('Person Data > Upload: three files, the middle one bad', () => {
	const files = [
		binaryItem(csv, 'monday.csv'),
		binaryItem('Nome;mail\nAna;a@example.com\n', 'tuesday.csv'),
		binaryItem(csv.replace(/Ana/g, 'Caio'), 'wednesday.csv'),
	];

	it('without Continue On Fail: the error names the item, the files already uploaded with their fileIds, and the ones not sent', async () => {
		const error = await rejectionOf(run({}, files));
		const [monday] = gateway.sandbox.state.personFiles;
		expect(gateway.sandbox.state.personFiles).toHaveLength(1);
		expect(error.context.itemIndex).toBe(1);
		expect(error.description).toContain('Nothing of this file was uploaded');
		expect(error.description).toContain(
			'This upload was accepted by the gateway before the failure: it is real, and running the node again uploads it again.',
		);
		expect(error.description).toContain(`<li>item 0 (monday.csv): fileId <code>${monday.fileId}</code></li>`);
		expect(error.description).toContain('The files of item 2 were not uploaded.');
		expect((error as unknown as { data: IDataObject }).data.accepted).toEqual([{ upload: 'item 0 (monday.csv)', fileId: monday.fileId }]);
	});

	it('with Continue On Fail: an error item in the bad file\'s place, and the next file is uploaded', async () => {
		const result = await run({}, files, true);
		const stored = gateway.sandbox.state.personFiles;
		expect(stored).toHaveLength(2);
		const [first, second, third] = result.output[0];
		expect(result.output[0]).toHaveLength(3);
		expect(first).toEqual({ json: expect.objectContaining({ fileName: 'monday.csv', fileId: stored[0].fileId }), pairedItem: { item: 0 } });
		expect(second.pairedItem).toEqual({ item: 1 });
		expect(second.json).toMatchObject({
			fileName: 'tuesday.csv',
			error: expect.stringContaining('Column "Nome" is neither a person field'),
			description: expect.stringContaining('Nothing of this file was uploaded'),
		});
		expect(third).toEqual({ json: expect.objectContaining({ fileName: 'wednesday.csv', fileId: stored[1].fileId }), pairedItem: { item: 2 } });
		expect(stored[1].text).toContain('Caio');
	});

	it('unchecked, the gateway refuses the middle file: its own message, and the accepted file named', async () => {
		const unchecked = [files[0], binaryItem(`${csv}Caio;cai@example.com;x\n`, 'tuesday.csv'), files[2]];
		const error = await rejectionOf(run({ validateFile: false }, unchecked));
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/score:integer/i);
		expect(error.context.itemIndex).toBe(1);
		expect(error.description).toContain(`<li>item 0 (monday.csv): fileId <code>${gateway.sandbox.state.personFiles[0].fileId}</code></li>`);
		expect(error.description).toContain('running the node again uploads it again');
		expect(uploads()).toHaveLength(2);
	});
});
