import { parse } from 'csv-parse/sync';
import { text as streamText } from 'node:stream/consumers';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import type { PersonRow } from '../../../nodes/MessagingGateway/persons/fields';
import { planAutoMapping } from '../../../nodes/MessagingGateway/persons/mapping';
import {
	type PersonFilePartSummary,
	RecordTooLargeError,
	type SourceRecord,
	splitPersonFile,
} from '../../../nodes/MessagingGateway/persons/parts';
import { isPersonRow, validatePersonRow } from '../../../nodes/MessagingGateway/persons/validation';
import { csvFormat, jsonFormat, type PersonFileFormat } from '../../../nodes/MessagingGateway/persons/writers';

function records(count: number, extra: (i: number) => Record<string, unknown> = () => ({})): SourceRecord[] {
	const items = Array.from({ length: count }, (_, i) => ({
		FirstName: `Pessoa ${i} ção`,
		Email: `p${i}@example.com`,
		note: i % 7 === 0 ? 'a;b\n"c"' : `n${i}`,
		...extra(i),
	}));
	const mapping = planAutoMapping(items);
	return items.map((json, itemIndex) => {
		const row = validatePersonRow(mapping.map(json), itemIndex, []);
		if (!isPersonRow(row)) throw new Error(JSON.stringify(row));
		return { itemIndex, row };
	});
}

/** Sends every part the way the upload does: reads each stream to its end before asking for the next part. */
async function collect(
	source: Iterable<SourceRecord> | AsyncIterable<SourceRecord>,
	format: PersonFileFormat,
	columns: PersonRow['columns'],
	maxPartBytes: number,
): Promise<Array<{ text: string; summary: PersonFilePartSummary }>> {
	const parts = [];
	for await (const part of splitPersonFile(source, { format, columns, maxPartBytes })) {
		const text = await streamText(part.stream);
		parts.push({ text, summary: await part.finished });
	}
	return parts;
}

describe('splitPersonFile', () => {
	const source = records(50);
	const columns = source[0].row.columns;

	it('splits a CSV file into valid parts under the limit, each with the header, every record exactly once', async () => {
		const parts = await collect(source, csvFormat, columns, 600);
		expect(parts.length).toBeGreaterThan(3);
		const emails: string[] = [];
		for (const { text, summary } of parts) {
			expect(Buffer.byteLength(text)).toBe(summary.bytes);
			expect(summary.bytes).toBeLessThanOrEqual(600);
			expect(text.startsWith('FirstName;Email;note:String\n')).toBe(true);
			const rows = parse(text, { delimiter: ';', columns: true }) as Array<Record<string, string>>;
			expect(rows).toHaveLength(summary.records);
			emails.push(...rows.map((row) => row.Email));
		}
		expect(emails).toEqual(source.map((_, i) => `p${i}@example.com`));
		expect(parts.map((p) => p.summary.index)).toEqual(parts.map((_, i) => i));
	});

	it('fills each part up to the limit over many chunks, counting multi-byte characters exactly', async () => {
		// Parts of several 64 KB chunks: bytes are counted per chunk, and per record only near the limit.
		const many = records(12_000, (i) => ({ note: i % 3 === 0 ? 'ação; "çã"' : `nota ${i} €` }));
		const limit = 250_000;
		const parts = await collect(many, csvFormat, many[0].row.columns, limit);
		expect(parts.length).toBeGreaterThan(2);
		const header = Buffer.byteLength('FirstName;Email;note:String\n');
		parts.forEach(({ text, summary }, p) => {
			expect(Buffer.byteLength(text)).toBe(summary.bytes);
			expect(summary.bytes).toBeLessThanOrEqual(limit);
			const next = parts[p + 1];
			if (next === undefined) return;
			// Full: the record that starts the next part would not have fitted.
			const firstOfNext = Buffer.byteLength(csvFormat.record(many[next.summary.itemRanges[0]].row, 0));
			expect(summary.bytes + firstOfNext).toBeGreaterThan(limit);
			expect(next.text.length).toBeGreaterThan(header);
		});
		expect(parts.reduce((sum, { summary }) => sum + summary.records, 0)).toBe(12_000);
	});

	it('makes every JSON part a complete array', async () => {
		const parts = await collect(source, jsonFormat, columns, 700);
		expect(parts.length).toBeGreaterThan(3);
		const all = parts.flatMap(({ text, summary }) => {
			expect(summary.bytes).toBeLessThanOrEqual(700);
			const array = JSON.parse(text) as Array<{ Email: string; customAttributes: { note: { Value: string } } }>;
			expect(array).toHaveLength(summary.records);
			return array;
		});
		expect(all.map((p) => p.Email)).toEqual(source.map((_, i) => `p${i}@example.com`));
		expect(all[7].customAttributes.note.Value).toBe('a;b\n"c"');
	});

	it('names the items of each part as ranges, leaving out skipped items', async () => {
		const withGaps = source.filter(({ itemIndex }) => itemIndex !== 3 && itemIndex !== 4);
		const [only] = await collect(withGaps, csvFormat, columns, 1_000_000);
		expect(only.summary.itemRanges).toEqual([0, 2, 5, 49]);
		expect(only.summary.records).toBe(48);
	});

	it('reads an asynchronous source as well', async () => {
		async function* slowly() {
			for (const record of source) {
				await new Promise((resolve) => setImmediate(resolve));
				yield record;
			}
		}
		const parts = await collect(slowly(), csvFormat, columns, 600);
		expect(parts.reduce((sum, p) => sum + p.summary.records, 0)).toBe(50);
	});

	it('yields no part for no record', async () => {
		expect(await collect([], csvFormat, columns, 600)).toEqual([]);
	});

	it('fails with the item of a record larger than a part', async () => {
		const big = records(3, (i) => ({ note: i === 1 ? 'x'.repeat(500) : 'small' }));
		const attempt = collect(big, csvFormat, big[0].row.columns, 300);
		await expect(attempt).rejects.toThrow(RecordTooLargeError);
		await expect(attempt).rejects.toMatchObject({ itemIndex: 1 });
	});

	it('produces a part only as it is read', async () => {
		let pulled = 0;
		function* counting() {
			for (const record of records(2000)) {
				pulled++;
				yield record;
			}
		}
		const parts = splitPersonFile(counting(), { format: csvFormat, columns, maxPartBytes: 1_000_000 });
		const first = await parts.next();
		expect(first.done).toBe(false);
		expect(pulled).toBe(1); // only the look-ahead that proves there is a part
		const stream = first.value!.stream;
		await new Promise((resolve) => stream.once('readable', resolve));
		expect(pulled).toBeLessThan(2000); // one chunk, not the whole part
		await streamText(stream);
		expect(pulled).toBe(2000);
	});

	it('lets go of the records once a part is read, though the part itself is kept', async () => {
		// The HTTP client keeps a sent part (its request body) after the upload; the records' source, which holds
		// all input items, must not stay reachable through it.
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as () => void;
		let input: SourceRecord[] | undefined = records(20);
		const inputRef = new WeakRef(input);
		const kept = [];
		for await (const part of splitPersonFile(input, { format: csvFormat, columns, maxPartBytes: 600 })) {
			await streamText(part.stream);
			kept.push(part.stream);
		}
		input = undefined;
		// A WeakRef target stays alive until the current job ends.
		await new Promise((resolve) => setImmediate(resolve));
		gc();
		expect(kept.length).toBeGreaterThan(1);
		expect(inputRef.deref()).toBeUndefined();
	});
});

describe('a part that fails from inside', () => {
	it('reports the source\'s own error as its failure, and no part follows it', async () => {
		const good = records(3);
		const broken = new Error('the file broke off at record 3');
		async function* source(): AsyncGenerator<SourceRecord> {
			yield* good;
			throw broken;
		}
		const seen = [];
		for await (const part of splitPersonFile(source(), { format: csvFormat, maxPartBytes: 10_000 })) {
			await expect(streamText(part.stream)).rejects.toBe(broken);
			await expect(part.finished).rejects.toBe(broken);
			seen.push({ failure: part.failure(), records: part.summary.records });
		}
		expect(seen).toEqual([{ failure: broken, records: 3 }]);
	});

	it('makes a failed part of a source that fails on its first record, and no part follows it', async () => {
		const broken = new Error('record 0 changed');
		// eslint-disable-next-line require-yield
		function* source(): Generator<SourceRecord> {
			throw broken;
		}
		const seen = [];
		for await (const part of splitPersonFile(source(), { format: csvFormat, maxPartBytes: 10_000 })) {
			await expect(streamText(part.stream)).rejects.toBe(broken);
			seen.push({ failure: part.failure(), records: part.summary.records });
		}
		expect(seen).toEqual([{ failure: broken, records: 0 }]);
	});

	it('goes on with the next part after a record too large for any part', async () => {
		const source = records(6, (i) => ({ note: i === 2 ? 'x'.repeat(400) : `n${i}` }));
		const parts = [];
		for await (const part of splitPersonFile(source, { format: csvFormat, maxPartBytes: 200 })) {
			try {
				await streamText(part.stream);
				parts.push((await part.finished).itemRanges);
			} catch {
				expect(part.failure()).toBeInstanceOf(RecordTooLargeError);
				parts.push(['failed', (part.failure() as RecordTooLargeError).itemIndex]);
			}
		}
		expect(parts.flat()).toEqual([0, 1, 'failed', 2, 3, 5]);
	});
});

