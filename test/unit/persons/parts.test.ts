import { parse } from 'csv-parse/sync';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

import { planAutoMapping } from '../../../nodes/MessagingGateway/persons/mapping';
import {
	type PartPlan,
	PartChangedError,
	type PartRecords,
	PersonPartBody,
	type PlannedPart,
	planParts,
	RecordTooLargeError,
	type SourceRecord,
} from '../../../nodes/MessagingGateway/persons/parts';
import { isPersonRow, validatePersonRow } from '../../../nodes/MessagingGateway/persons/validation';
import { CHUNK_CHARS, csvFormat, jsonFormat, type PersonFileFormat } from '../../../nodes/MessagingGateway/persons/writers';

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

/** The second pass over an array: the records of the part's items, by index. */
function* partRecords(all: readonly SourceRecord[], part: PlannedPart): Generator<SourceRecord> {
	const ranges = part.itemRanges;
	for (let r = 0; r < ranges.length; r += 2) {
		for (let i = ranges[r]; i <= ranges[r + 1]; i++) yield all[i];
	}
}

async function text(body: PersonPartBody): Promise<string> {
	const chunks: Uint8Array[] = [];
	for await (const chunk of body.stream()) chunks.push(chunk);
	return Buffer.concat(chunks).toString('utf8');
}

/** Plans the parts, then writes each the way the upload does: one body per part, read to its end. */
async function collect(
	source: readonly SourceRecord[],
	format: PersonFileFormat,
	maxPartBytes: number,
): Promise<Array<{ text: string; summary: PlannedPart; size: number }>> {
	const plan = await planParts(source, format, { maxPartBytes });
	const parts = [];
	for (const part of plan.parts) {
		const body = new PersonPartBody(part, format, plan.columns, partRecords(source, part));
		parts.push({ text: await text(body), summary: part, size: body.size });
	}
	return parts;
}

describe('planning and writing the parts of a person file', () => {
	const source = records(50);

	it('splits a CSV file into valid parts under the limit, each with the header, every record exactly once', async () => {
		const parts = await collect(source, csvFormat, 600);
		expect(parts.length).toBeGreaterThan(3);
		const emails: string[] = [];
		for (const { text, summary, size } of parts) {
			// The announced size is the part's bytes.
			expect(size).toBe(summary.bytes);
			expect(Buffer.byteLength(text)).toBe(size);
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
		const many = records(12_000, (i) => ({ note: i % 3 === 0 ? 'ação; "çã"' : `nota ${i} €` }));
		const limit = 250_000;
		const parts = await collect(many, csvFormat, limit);
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

	it('makes every JSON part a complete array of its announced size', async () => {
		const parts = await collect(source, jsonFormat, 700);
		expect(parts.length).toBeGreaterThan(3);
		const all = parts.flatMap(({ text, summary }) => {
			expect(summary.bytes).toBeLessThanOrEqual(700);
			expect(Buffer.byteLength(text)).toBe(summary.bytes);
			const array = JSON.parse(text) as Array<{ Email: string; customAttributes: { note: { Value: string } } }>;
			expect(array).toHaveLength(summary.records);
			return array;
		});
		expect(all.map((p) => p.Email)).toEqual(source.map((_, i) => `p${i}@example.com`));
		expect(all[7].customAttributes.note.Value).toBe('a;b\n"c"');
	});

	it('names the items of each part as ranges, leaving out skipped items', async () => {
		const withGaps = source.filter(({ itemIndex }) => itemIndex !== 3 && itemIndex !== 4);
		const { parts } = await planParts(withGaps, csvFormat, { maxPartBytes: 1_000_000 });
		expect(parts).toHaveLength(1);
		expect(parts[0].itemRanges).toEqual([0, 2, 5, 49]);
		expect(parts[0].records).toBe(48);
	});

	it('plans from an asynchronous source and writes from one as well', async () => {
		async function* slowly(list: Iterable<SourceRecord>) {
			for (const record of list) {
				await new Promise((resolve) => setImmediate(resolve));
				yield record;
			}
		}
		const plan = await planParts(slowly(source), csvFormat, { maxPartBytes: 600 });
		expect(plan.parts.reduce((sum, p) => sum + p.records, 0)).toBe(50);
		const body = new PersonPartBody(plan.parts[1], csvFormat, plan.columns, slowly(partRecords(source, plan.parts[1])));
		expect(Buffer.byteLength(await text(body))).toBe(plan.parts[1].bytes);
	});

	it('plans no part for no record', async () => {
		expect((await planParts([], csvFormat, { maxPartBytes: 600 })).parts).toEqual([]);
	});

	it('plans a record larger than a part as a part of its own that fails, naming its item, and goes on after it', async () => {
		const big = records(6, (i) => ({ note: i === 2 ? 'x'.repeat(400) : `n${i}` }));
		const { parts } = await planParts(big, csvFormat, { maxPartBytes: 200 });
		const seen = parts.map((part) => (part.tooLarge ? ['failed', part.tooLarge.itemIndex] : part.itemRanges));
		expect(seen.flat()).toEqual([0, 1, 'failed', 2, 3, 5]);
		const failed = parts.find((part) => part.tooLarge)!;
		expect(failed.tooLarge).toBeInstanceOf(RecordTooLargeError);
		expect(failed.tooLarge).toMatchObject({ itemIndex: 2, maxPartBytes: 200 });
		expect(failed.records).toBe(0);
	});

	it('writes a part only as it is read, a chunk at a time', async () => {
		const all = records(20_000);
		const plan = await planParts(all, csvFormat, { maxPartBytes: 10_000_000 });
		expect(plan.parts).toHaveLength(1);
		let pulled = 0;
		function* counting(): Generator<SourceRecord> {
			for (const record of partRecords(all, plan.parts[0])) {
				pulled++;
				yield record;
			}
		}
		const body = new PersonPartBody(plan.parts[0], csvFormat, plan.columns, counting());
		expect(pulled).toBe(0);
		const chunks = body.stream();
		const first = await chunks.next();
		expect(pulled).toBeLessThan(20_000); // one chunk, not the whole part
		expect((first.value as Uint8Array).length).toBeLessThan(CHUNK_CHARS * 2);
		let bytes = (first.value as Uint8Array).length;
		for await (const chunk of chunks) bytes += chunk.length;
		expect(pulled).toBe(20_000);
		expect(bytes).toBe(body.size);
	});

	it('calls onChunk for each chunk the request takes', async () => {
		const plan = await planParts(source, csvFormat, { maxPartBytes: 600 });
		const body = new PersonPartBody(plan.parts[0], csvFormat, plan.columns, partRecords(source, plan.parts[0]));
		let calls = 0;
		body.onChunk = () => calls++;
		await text(body);
		expect(calls).toBeGreaterThan(0);
		expect(Object.prototype.toString.call(body)).toBe('[object Blob]');
		expect(body.type).toBe(csvFormat.contentType);
	});

	it('lets go of the records once a part is written, though the body itself is kept', async () => {
		// The HTTP client may keep a sent body (its request); the records' source, which holds all input items, must
		// not stay reachable through it.
		setFlagsFromString('--expose-gc');
		const gc = runInNewContext('gc') as () => void;
		let input: SourceRecord[] | undefined = records(20);
		const inputRef = new WeakRef(input);
		const plan = await planParts(input, csvFormat, { maxPartBytes: 600 });
		const kept = [];
		for (const part of plan.parts) {
			const body = new PersonPartBody(part, csvFormat, plan.columns, partRecords(input, part));
			await text(body);
			kept.push(body);
		}
		input = undefined;
		// A WeakRef target stays alive until the current job ends.
		await new Promise((resolve) => setImmediate(resolve));
		gc();
		expect(kept.length).toBeGreaterThan(1);
		expect(inputRef.deref()).toBeUndefined();
	});
});

describe('a retry plans its parts with their earlier records', () => {
	const source = records(50);

	it('each earlier part holds exactly its earlier records, even when more would fit', async () => {
		const earlier = [3, 4];
		const { parts } = await planParts(source, csvFormat, { maxPartBytes: 600, earlierRecords: (p) => earlier[p] });
		expect(parts.slice(0, 2).map((p) => p.itemRanges)).toEqual([[0, 2], [3, 6]]);
		expect(parts.reduce((sum, p) => sum + p.records, 0)).toBe(50);
	});

	it('a part that cannot hold its earlier records is an error, not another cut', async () => {
		const plan = planParts(source, csvFormat, { maxPartBytes: 600, earlierRecords: (p) => (p === 0 ? 500 : undefined) });
		await expect(plan).rejects.toThrow(PartChangedError);
		await expect(plan).rejects.toThrow(/held 500 records on the earlier try/);
	});

	it('a source that ends before a part has its earlier records is an error', async () => {
		const plan = planParts(source.slice(0, 2), csvFormat, { maxPartBytes: 600, earlierRecords: () => 3 });
		await expect(plan).rejects.toThrow(/held 3 records on the earlier try and now 2/);
	});
});

describe('a part whose records differ from the plan fails before its last byte', () => {
	const source = records(30);
	let plan: PartPlan;
	beforeAll(async () => {
		plan = await planParts(source, csvFormat, { maxPartBytes: 1_000_000 });
	});

	/** Writes the part from `records`: the bytes it gave and how it ended. */
	async function write(records: PartRecords): Promise<{ bytes: number; error?: unknown; body: PersonPartBody }> {
		const body = new PersonPartBody(plan.parts[0], csvFormat, plan.columns, records);
		let bytes = 0;
		try {
			for await (const chunk of body.stream()) bytes += chunk.length;
			return { bytes, body };
		} catch (error) {
			return { bytes, error, body };
		}
	}

	it('a record that gives other bytes: names the item where the difference shows (the last of a one-chunk part)', async () => {
		const changed = source.map((record) =>
			record.itemIndex === 12 ? records(30, (i) => ({ note: i === 12 ? 'longer than before' : `n${i}` }))[12] : record,
		);
		const result = await write(changed[Symbol.iterator]());
		expect(result.error).toBeInstanceOf(PartChangedError);
		expect(result.error).toMatchObject({ itemIndex: 29 });
		expect((result.error as Error).message).toMatch(/up to item 29 give more than the planned \d+ bytes/);
		expect(result.bytes).toBeLessThan(result.body.size);
		expect(result.body.failure).toBe(result.error);
	});

	it('more bytes than planned over several chunks: never a byte past the announced size', async () => {
		const many = records(5_000);
		const bigPlan = await planParts(many, csvFormat, { maxPartBytes: 10_000_000 });
		const longer = records(5_000, () => ({ note: 'a much longer note than any planned one' }));
		const body = new PersonPartBody(bigPlan.parts[0], csvFormat, bigPlan.columns, longer[Symbol.iterator]());
		let bytes = 0;
		await expect(
			(async () => {
				for await (const chunk of body.stream()) bytes += chunk.length;
			})(),
		).rejects.toThrow(/give more than the planned/);
		expect(bytes).toBeLessThanOrEqual(body.size);
		expect(body.failure).toBeInstanceOf(PartChangedError);
	});

	it('another record than the planned one: names the item that came', async () => {
		const result = await write(source.filter((record) => record.itemIndex !== 4)[Symbol.iterator]());
		expect(result.error).toMatchObject({ itemIndex: 5 });
		expect((result.error as Error).message).toBe('Part 1 changed between the check and the upload: item 5 came where item 4 was planned');
	});

	it('fewer bytes than planned: the items among which one changed', async () => {
		const shorter = source.map((record) =>
			record.itemIndex === 12 ? records(30, (i) => ({ note: i === 12 ? '' : `n${i}` }))[12] : record,
		);
		const result = await write(shorter[Symbol.iterator]());
		expect(result.error).toMatchObject({ itemIndex: 29 });
		expect((result.error as Error).message).toMatch(/give \d+ bytes, the plan \d+: a record among items 0-29 changed/);
	});

	it('fewer records than planned', async () => {
		const result = await write(source.slice(0, 10)[Symbol.iterator]());
		expect((result.error as Error).message).toMatch(/it ends after 10 of its 30 records/);
		expect(result.bytes).toBeLessThan(result.body.size);
	});

	it("the source's own error is the part's failure", async () => {
		const broken = new Error('the file broke off at record 3');
		async function* breaking(): AsyncGenerator<SourceRecord> {
			yield* source.slice(0, 3);
			throw broken;
		}
		const result = await write(breaking());
		expect(result.error).toBe(broken);
		expect(result.body.failure).toBe(broken);
	});
});
