import { parse } from 'csv-parse/sync';
import { Readable } from 'node:stream';

import type { PersonRow } from '../../../nodes/MessagingGateway/persons/fields';
import { planAutoMapping } from '../../../nodes/MessagingGateway/persons/mapping';
import { readPersonFile } from '../../../nodes/MessagingGateway/persons/reader';
import { isPersonRow, validatePersonRow } from '../../../nodes/MessagingGateway/persons/validation';
import { csvFormat, jsonFormat, personFileChunks } from '../../../nodes/MessagingGateway/persons/writers';
import { PERSON_CONTENT_TYPES } from '../../../nodes/gateway/spec';

/** Items with every kind of awkward text: delimiters, quotes, line breaks, unicode, empty cells. */
const ITEMS: Array<Record<string, unknown>> = [
	{ FirstName: 'Ana; Maria', LastName: 'O"Neil', Email: 'ana@example.com', notes: 'line 1\nline 2', score: 5, vip: true },
	{ FirstName: 'José 🙂', Email: 'jose@exemplo.com.br', Phone: '+55 11 97312-4856', notes: '"quoted"', score: 2.75 },
	{ LastName: 'Ünïcødé', CPF: '529.982.247-25', notes: 'a\r\nb;c', vip: false, since: '2024-01-02' },
	{ FirstName: 'Só', Email: 'so@example.com', notes: '', score: null },
];

function validRows(items = ITEMS): PersonRow[] {
	const mapping = planAutoMapping(items);
	return items.map((json, index) => {
		const result = validatePersonRow(mapping.map(json), index, []);
		if (!isPersonRow(result)) throw new Error(JSON.stringify(result));
		return result;
	});
}

const EXPECTED: Array<Record<string, string>> = [
	{
		FirstName: 'Ana; Maria',
		LastName: 'O"Neil',
		Email: 'ana@example.com',
		notes: 'line 1\nline 2',
		score: '5.0',
		vip: 'true',
	},
	{ FirstName: 'José 🙂', Email: 'jose@exemplo.com.br', Phone: '5511973124856', notes: '"quoted"', score: '2.75' },
	{ LastName: 'Ünïcødé', CPF: '52998224725', notes: 'a\r\nb;c', vip: 'false', since: '2024-01-02' },
	{ FirstName: 'Só', Email: 'so@example.com' },
];

describe('CSV writer', () => {
	const rows = validRows();
	const text = [...personFileChunks(csvFormat, rows[0].columns, rows)].join('');

	it('writes the header first, custom attributes as Name:Type', () => {
		expect(text.split('\n')[0]).toBe(
			'FirstName;LastName;CPF;Email;Phone;notes:String;score:Float;vip:Boolean;since:Datetime',
		);
		expect(csvFormat.contentType).toBe(PERSON_CONTENT_TYPES.csv);
	});

	it('parses back with csv-parse into exactly the records written', () => {
		const parsed = parse(text, { delimiter: ';', columns: true }) as Array<Record<string, string>>;
		const expected = EXPECTED.map((record) => {
			const cells: Record<string, string> = {};
			for (const header of text.split('\n')[0].split(';')) {
				const name = header.split(':')[0];
				cells[header] = record[name] ?? '';
			}
			return cells;
		});
		expect(parsed).toEqual(expected);
	});

	it('quotes only the values that need it, doubling quotes', () => {
		expect(text).toContain('"Ana; Maria";"O""Neil";');
		expect(text).toContain(';"""quoted""";');
		expect(text).toContain('\nSó;;;so@example.com;;;;;\n');
	});

	it('reads back through the file reader into the same written records', async () => {
		const back = [];
		for await (const record of readPersonFile(Readable.from([Buffer.from(text)]), 'csv')) {
			const result = validatePersonRow(record.raw!, record.index, []);
			back.push(isPersonRow(result) ? { fields: result.fields, attributes: result.attributes } : result);
		}
		// An empty CSV cell and an absent value are the same thing.
		expect(back).toEqual(rows.map((row) => ({ fields: [...row.fields], attributes: [...row.attributes] })));
	});
});

describe('JSON writer', () => {
	const rows = validRows();
	const text = [...personFileChunks(jsonFormat, rows[0].columns, rows)].join('');

	it('writes an array of person objects with typed customAttributes', () => {
		const parsed = JSON.parse(text);
		expect(parsed[0]).toEqual({
			FirstName: 'Ana; Maria',
			LastName: 'O"Neil',
			Email: 'ana@example.com',
			customAttributes: {
				notes: { Type: 'String', Value: 'line 1\nline 2' },
				score: { Type: 'Float', Value: 5 },
				vip: { Type: 'Boolean', Value: true },
			},
		});
		expect(parsed[3]).toEqual({ FirstName: 'Só', Email: 'so@example.com' });
		expect(jsonFormat.contentType).toBe(PERSON_CONTENT_TYPES.json);
	});

	it('keeps the decimal place of a whole Float on the wire (5.0, not 5)', () => {
		expect(text).toContain('"score":{"Type":"Float","Value":5.0}');
		expect(text).toContain('"since":{"Type":"Datetime","Value":"2024-01-02"}');
	});

	it('parses back into exactly the records written', () => {
		const parsed = JSON.parse(text) as Array<Record<string, unknown>>;
		const flat = parsed.map(({ customAttributes, ...fields }) => {
			const out: Record<string, string> = { ...(fields as Record<string, string>) };
			for (const [name, { Value }] of Object.entries(
				(customAttributes ?? {}) as Record<string, { Value: unknown }>,
			)) {
				out[name] = name === 'score' && Number.isInteger(Value) ? `${Value}.0` : String(Value);
			}
			return out;
		});
		expect(flat).toEqual(EXPECTED);
	});

	it('reads back through the streaming reader, even split into one-byte chunks', async () => {
		const bytes = Buffer.from(text);
		const chunks = [...bytes].map((byte) => Buffer.from([byte]));
		const back = [];
		for await (const record of readPersonFile(Readable.from(chunks), 'json')) {
			const result = validatePersonRow(record.raw!, record.index, []);
			if (!isPersonRow(result)) throw new Error(JSON.stringify(result));
			const out: Record<string, string> = {};
			result.columns.fields.forEach((field, i) => (out[field] = result.fields[i]!));
			result.columns.attributes.forEach(({ name }, i) => (out[name] = result.attributes[i]!));
			back.push(out);
		}
		expect(back).toEqual(EXPECTED);
	});
});
