/**
 * Our streaming CSV reader against csv-parse (the reader it replaced, kept as a devDependency for this comparison),
 * with the options the node used: the same rows for the same bytes, however the bytes are split into chunks, and an
 * error where csv-parse has one.
 */
import { parse } from 'csv-parse/sync';

import { CsvFormatError, readCsvRows } from '../../../nodes/gateway/csv';

function csvParseRows(bytes: Buffer): string[][] {
	return parse(bytes, { delimiter: ';', bom: true, skip_empty_lines: true, relax_column_count: true }) as string[][];
}

async function* chunked(bytes: Buffer, sizes: () => number): AsyncGenerator<Buffer> {
	for (let at = 0; at < bytes.length; ) {
		const size = Math.max(1, sizes());
		yield bytes.subarray(at, at + size);
		at += size;
	}
}

async function ourRows(bytes: Buffer, sizes: () => number = () => 65536): Promise<string[][]> {
	const rows: string[][] = [];
	for await (const row of readCsvRows(chunked(bytes, sizes))) rows.push(row);
	return rows;
}

/** A small deterministic generator (mulberry32), so that a failure can be reproduced from its seed. */
function random(seed: number): () => number {
	let state = seed >>> 0;
	return () => {
		state = (state + 0x6d2b79f5) >>> 0;
		let t = state;
		t = Math.imul(t ^ (t >>> 15), t | 1);
		t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
		return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
	};
}

const AWKWARD = ['a', 'Zé', '🙂', ' ', ';', '"', '\n', '\r\n', '\r', '', '12.5', 'x;y', 'ção', '\t'];

/** A CSV file of quoted and bare cells with every awkward character, valid by construction. */
function validCsv(next: () => number, lineBreak: string): string {
	const lines: string[] = [];
	const records = 1 + Math.floor(next() * 30);
	for (let r = 0; r < records; r++) {
		const cells: string[] = [];
		const count = 1 + Math.floor(next() * 6);
		for (let c = 0; c < count; c++) {
			let value = '';
			const length = Math.floor(next() * 6);
			for (let k = 0; k < length; k++) value += AWKWARD[Math.floor(next() * AWKWARD.length)];
			const needsQuotes = /[;"\r\n]/.test(value) || next() < 0.2;
			cells.push(needsQuotes ? `"${value.replace(/"/g, '""')}"` : value);
		}
		lines.push(cells.join(';'));
		if (next() < 0.1) lines.push('');
	}
	return (next() < 0.3 ? '\ufeff' : '') + lines.join(lineBreak) + (next() < 0.5 ? lineBreak : '');
}

/** Any text of the meaningful characters: valid or not, csv-parse's verdict is the reference. */
function anyCsv(next: () => number): string {
	const alphabet = ['a', 'b', ';', '"', '""', '\n', '\r', '\r\n', ' ', 'é'];
	let text = '';
	const length = Math.floor(next() * 40);
	for (let k = 0; k < length; k++) text += alphabet[Math.floor(next() * alphabet.length)];
	return text;
}

async function compare(text: string, seed: number): Promise<void> {
	const bytes = Buffer.from(text, 'utf8');
	let expected: string[][] | 'error';
	try {
		expected = csvParseRows(bytes);
	} catch {
		expected = 'error';
	}
	const next = random(seed);
	for (const sizes of [() => 65536, () => 1, () => 1 + Math.floor(next() * 7)]) {
		const actual = await ourRows(bytes, sizes).catch((error: unknown) => {
			if (!(error instanceof CsvFormatError)) throw error;
			return 'error' as const;
		});
		if (JSON.stringify(actual) !== JSON.stringify(expected)) {
			throw new Error(`seed ${seed}: ${JSON.stringify(text)} read as ${JSON.stringify(actual)}, csv-parse: ${JSON.stringify(expected)}`);
		}
	}
}

describe('readCsvRows compared with csv-parse', () => {
	it('reads generated valid files alike, split into chunks anywhere (inside characters, quotes, line breaks)', async () => {
		for (let seed = 1; seed <= 300; seed++) {
			const next = random(seed);
			await compare(validCsv(next, ['\n', '\r\n', '\r'][seed % 3]), seed);
		}
	});

	it('agrees on arbitrary text of quotes, delimiters and line breaks: the same rows, or both refuse it', async () => {
		for (let seed = 1; seed <= 2000; seed++) await compare(anyCsv(random(seed)), seed);
	});

	it.each([
		['a person file', 'FirstName;Email;Phone\nAna;ana@example.com;+55 11 98888-7777\n'],
		['an empty file', ''],
		['only empty lines', '\n\n\r\n'],
		['a quoted empty cell alone on a line', 'a\n""\nb'],
		['a line break kept in a quoted cell', 'a;"x\ny"\r\nb;c'],
		['a lone \\r inside a \\n file', 'a\rb;c\nd\r\n'],
		['a BOM', '\ufeffName;Phone\nA;1'],
		['cells with more and fewer cells than the header', 'a;b;c\n1\n1;2;3;4'],
	])('reads %s as csv-parse does', async (_name, text) => {
		await compare(text, 7);
	});

	it.each([
		['an unterminated quote', 'a;"b\nc', /Quote not closed.*line 2/],
		['a quote inside a bare cell', 'a;b"c', /Invalid opening quote.*"b".*line 1/],
		['text after a closing quote', 'a;"b"c\n', /Invalid closing quote: "c".*line 1/],
	])('refuses %s, saying where', async (_name, text, message) => {
		expect(() => csvParseRows(Buffer.from(text))).toThrow();
		await expect(ourRows(Buffer.from(text))).rejects.toThrow(message);
	});

	it('decodes UTF-8 split across chunks, and reads text chunks too', async () => {
		const text = 'Nome;Cidade\nJoão;São Paulo 🙂\n';
		expect(await ourRows(Buffer.from(text), () => 1)).toEqual([['Nome', 'Cidade'], ['João', 'São Paulo 🙂']]);
		const rows: string[][] = [];
		for await (const row of readCsvRows((async function* () { yield '\ufeffa;b\n'; yield '1;"2'; yield '"""\n'; })())) rows.push(row);
		expect(rows).toEqual([['a', 'b'], ['1', '2"']]);
	});

	it('stops reading the input when the consumer stops', async () => {
		let pulled = 0;
		async function* endless(): AsyncGenerator<string> {
			try {
				for (;;) {
					pulled++;
					yield 'a;b\n'.repeat(100);
				}
			} finally {
				pulled = -pulled;
			}
		}
		for await (const row of readCsvRows(endless())) if (row[0] === 'a') break;
		expect(pulled).toBe(-1);
	});
});
