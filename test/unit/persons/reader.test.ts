import { Readable } from 'node:stream';

import { checkPersonFile } from '../../../nodes/MessagingGateway/persons/fileCheck';
import { PersonFileError, readPersonFile, scanJsonArray } from '../../../nodes/MessagingGateway/persons/reader';

const input = (text: string, chunkSize = text.length || 1) => {
	const bytes = Buffer.from(text);
	const chunks = [];
	for (let i = 0; i < bytes.length; i += chunkSize) chunks.push(bytes.subarray(i, i + chunkSize));
	return Readable.from(chunks);
};

async function all<T>(iterable: AsyncIterable<T>): Promise<T[]> {
	const out: T[] = [];
	for await (const value of iterable) out.push(value);
	return out;
}

describe('CSV person file', () => {
	it('counts and checks every record against the rules', async () => {
		const csv =
			'\uFEFFFirstName;Email;Phone;score:integer\n' +
			'Ana;ana@example.com;;1\n' +
			'Bia;N/A;;2\n' +
			'\n' +
			';cai@example.com;;x\n';
		const { records, summary } = await checkPersonFile(input(csv, 7), 'csv', []);
		expect(records).toBe(3);
		expect({ valid: summary.valid, invalid: summary.invalid }).toEqual({ valid: 1, invalid: 2 });
		expect(summary.violations.map((v) => `${v.itemIndex} ${v.field}: ${v.reason}`)).toEqual([
			'1 Email: is a placeholder, not an e-mail',
			'2 FirstName/LastName: is missing: one of them is required',
			'2 score: must be a whole number (Integer)',
		]);
	});

	it('refuses a header column that is neither a person field nor Name:Type', async () => {
		await expect(all(readPersonFile(input('FirstName;email\nAna;a@example.com\n'), 'csv'))).rejects.toThrow(
			PersonFileError,
		);
		await expect(all(readPersonFile(input('FirstName;age:Number\n'), 'csv'))).rejects.toThrow(/"age:Number"/);
	});

	it('reports a record whose cell count differs from the header', async () => {
		const [record] = await all(readPersonFile(input('FirstName;Email\nAna;a@example.com;extra\n'), 'csv'));
		expect(record.problem).toEqual({ itemIndex: 0, field: '(record)', reason: 'has 3 cells, the header has 2' });
	});

	it('refuses an empty file', async () => {
		await expect(all(readPersonFile(input(''), 'csv'))).rejects.toThrow('no header');
	});
});

describe('JSON person file', () => {
	it('scans the elements of an array across chunk boundaries, strings with brackets and escapes included', async () => {
		const text = ' [ {"a":"]},[\\"x"}, [1,[2]] ,"s,t", 3 , null ]\n';
		for (const chunkSize of [1, 2, 5, text.length]) {
			expect(await all(scanJsonArray(input(text, chunkSize)))).toEqual([{ a: ']},["x' }, [1, [2]], 's,t', 3, null]);
		}
	});

	it('keeps multi-byte characters split between chunks intact', async () => {
		expect(await all(scanJsonArray(input('[{"n":"ção🙂"}]', 1)))).toEqual([{ n: 'ção🙂' }]);
	});

	it.each([
		['{"FirstName":"Ana"}', 'not an array'],
		['[{"FirstName":"Ana"}', 'ends before its closing ]'],
		['[{"a":1}] x', 'text after its closing ]'],
		['[{"a":1},,{"b":2}]', 'empty element'],
	])('refuses %p', async (text, message) => {
		await expect(all(scanJsonArray(input(text)))).rejects.toThrow(message);
	});

	it('checks records: unknown keys, bad attribute entries and rule violations are reported per record', async () => {
		const json = JSON.stringify([
			{ FirstName: 'Ana', Email: 'ana@example.com', customAttributes: { age: { Type: 'integer', Value: 30 } } },
			{ FirstName: 'Bia', email: 'bia@example.com' },
			{ FirstName: 'Caio', Email: 'c@example.com', customAttributes: { age: { Type: 'Number', Value: 1 } } },
			{ FirstName: 'Dani', Email: 'd@example.com', customAttributes: { age: { Type: 'Integer', Value: 1.5 } } },
			'not a person',
		]);
		const { records, summary } = await checkPersonFile(input(json, 16), 'json', ['Email']);
		expect(records).toBe(5);
		expect(summary.valid).toBe(1);
		expect(summary.violations.map((v) => `${v.itemIndex} ${v.field}: ${v.reason}`)).toEqual([
			'1 email: is not a person field (FirstName, LastName, CPF, Email, Phone, ExternalId, FacebookId, AccessToken, ' +
				'Token, SmartLinkId, CookieId) nor customAttributes',
			'2 age: must be { Type, Value } with Type String, Integer, Float, Boolean or Datetime',
			'3 age: must be a whole number (Integer)',
			'4 (record): is not a JSON object',
		]);
	});
});

describe('values a file holds in another form than the gateway reads', () => {
	it('CSV: counts per column the values that are written differently (Float 12, a space in a date-time, CPF dots)', async () => {
		const csv =
			'FirstName;CPF;Email;Score:Float;Seen:Datetime;Note:String\n' +
			'Ana;529.982.247-25;ana@example.com;12;2024-05-01 10:00; kept as is \n' +
			'Bia;;bia@example.com;2.5;2024-05-02;x\n';
		const { summary } = await checkPersonFile(input(csv), 'csv', []);
		expect(summary.valid).toBe(2);
		expect(summary.normalised).toEqual({ CPF: 1, 'Score:Float': 1, 'Seen:Datetime': 1 });
		expect(summary.normalisedValues).toBe(3);
	});

	it('CSV: a file already in the gateway form has nothing to normalise', async () => {
		const csv = 'FirstName;Email;Score:Float;Seen:Datetime\nAna;ana@example.com;12.0;2024-05-01T10:00\n';
		expect((await checkPersonFile(input(csv), 'csv', [])).summary.normalised).toEqual({});
	});

	it('JSON: bare numbers stay as they are, numbers as strings and nulls are rewritten', async () => {
		const json = JSON.stringify([
			{
				FirstName: 'Ana',
				Email: 'ana@example.com',
				Phone: null,
				customAttributes: {
					a: { Type: 'Float', Value: 12 },
					b: { Type: 'Integer', Value: '7' },
					c: { Type: 'Boolean', Value: true },
					d: { Type: 'Float', Value: 1.5 },
				},
			},
		]);
		const { summary } = await checkPersonFile(input(json), 'json', []);
		expect(summary.valid).toBe(1);
		expect(summary.normalised).toEqual({ Phone: 1, 'b:Integer': 1 });
	});
});

