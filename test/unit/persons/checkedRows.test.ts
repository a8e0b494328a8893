/**
 * On Invalid Records = Fail writes every record a second time without checking it again (checkedRows.ts): the
 * second pass must give exactly the text the first pass validated, also where the quick way would not.
 */
import type { PersonRow, RawPersonRow } from '../../../nodes/MessagingGateway/persons/fields';
import { RecordChangedError, writeCheckedRow } from '../../../nodes/MessagingGateway/persons/checkedRows';
import { planAutoMapping } from '../../../nodes/MessagingGateway/persons/mapping';
import { checkPersonRow, isPersonRow, validatePersonRow } from '../../../nodes/MessagingGateway/persons/validation';
import { csvFormat, jsonFormat } from '../../../nodes/MessagingGateway/persons/writers';

/** Records in the forms people send, each valid, several written differently than they came. */
const PEOPLE: Array<Record<string, unknown>> = [
	{ FirstName: ' Ana ', Email: ' ana@example.com ', Phone: '+55 (11) 97312-4856', score: 12, seen: '2024-05-01 10:00' },
	// The national 0 after the country code: the checked form drops it, the digits keep it.
	{ FirstName: 'Bob', Phone: '+44 020 7946 0018', score: 0.5, seen: '2024-05-01' },
	// `00` in front of the country code: the checked form drops it.
	{ FirstName: 'Caio', Phone: '0055 11 97312-4856', CPF: 4815162395, score: '7' },
	{ LastName: 'Dias', CPF: '529.982.247-25', Phone: 5511973124856, score: 2.5 },
	{ FirstName: 'Eva', Email: 'eva@exemplo.com.br', seen: '2024-05-01T10:00:00,5+03' },
];

function firstPass(people: Array<Record<string, unknown>>) {
	const mapping = planAutoMapping(people);
	return people.map((json, itemIndex) => {
		const raw = mapping.map(json);
		const row = validatePersonRow(raw, itemIndex, []);
		if (!isPersonRow(row)) throw new Error(JSON.stringify(row));
		const mask = checkPersonRow(raw, itemIndex, []);
		if (typeof mask !== 'number') throw new Error(JSON.stringify(mask));
		return { raw, row, mask };
	});
}

const fieldIndex = (raw: RawPersonRow, field: string) => raw.columns.fields.indexOf(field as never);

describe('writing a checked record again without its checks', () => {
	it('gives every record exactly the text that was validated, in CSV and in JSON', () => {
		const checked = firstPass(PEOPLE);
		checked.forEach(({ raw, row, mask }, itemIndex) => {
			const again: PersonRow = writeCheckedRow(raw, mask, itemIndex);
			expect(again).toEqual(row);
			expect(csvFormat.record(again, itemIndex)).toBe(csvFormat.record(row, itemIndex));
			expect(jsonFormat.record(again, itemIndex)).toBe(jsonFormat.record(row, itemIndex));
		});
		// The forms the checks rewrite really were sent rewritten: national 0 and `00` gone, CPF zeros back.
		expect(checked.map(({ row }) => row.fields[fieldIndex(row, 'Phone')])).toEqual([
			'5511973124856',
			'442079460018',
			'5511973124856',
			'5511973124856',
			undefined,
		]);
		expect(checked[2].row.fields[fieldIndex(checked[2].row, 'CPF')]).toBe('04815162395');
	});

	it('writes the quick way only where that gives the validated text', () => {
		const checked = firstPass(PEOPLE);
		const phoneBit = 1 << fieldIndex(checked[0].raw, 'Phone');
		expect(checked.map(({ mask }) => (mask & phoneBit) !== 0)).toEqual([false, true, true, false, false]);
		// A wrong mask would show: the quick way keeps the national 0.
		expect(writeCheckedRow(checked[1].raw, 0, 1).fields[fieldIndex(checked[1].raw, 'Phone')]).toBe('4402079460018');
	});

	it('refuses a record whose rewritten value changed into an invalid one, naming the item and the field', () => {
		const [, bob] = firstPass(PEOPLE);
		const changed: RawPersonRow = { ...bob.raw, fields: bob.raw.fields.map((value, i) => (i === fieldIndex(bob.raw, 'Phone') ? '+44 0000' : value)) };
		expect(() => writeCheckedRow(changed, bob.mask, 1)).toThrow(RecordChangedError);
		expect(() => writeCheckedRow(changed, bob.mask, 1)).toThrow(/item 1 changed after it was checked: Phone/);
	});

	it('checks by the same rules as validation: the same verdict and violations for every record', () => {
		const people: Array<Record<string, unknown>> = [
			...PEOPLE,
			{ FirstName: 'F', Email: 'f@example.com', score: Infinity, visits: 3 },
			{ FirstName: 'G', Email: 'g@example.com', visits: 1.5, note: new Date(NaN) },
			{ FirstName: 'H', Email: 'h@example.com', visits: 2 ** 60, vip: 'yes' },
			{ FirstName: 'I', Email: 'N/A', Phone: '+55 11 99999-9999', vip: true, note: { a: 1 } },
			{ Email: 'j@example.com', score: '1,5', seen: '2024-13-01' },
			// Plain text fields in every form a check that writes nothing must judge as validation does.
			{ FirstName: 42, LastName: true, Email: 'k@example.com' },
			{ FirstName: NaN, LastName: { a: 1 }, Email: 'l@example.com', ExternalId: ['x'] },
			{ FirstName: '   ', LastName: 7n, Email: 'm@example.com' },
			{ FirstName: ' Nia ', ExternalId: Infinity, Email: 'n@example.com' },
			{ LastName: -0.5, ExternalId: ' e-1 ', Email: 'o@example.com' },
		];
		const mapping = planAutoMapping(people, { typeOverrides: { visits: 'Integer', vip: 'Boolean', score: 'Float', seen: 'Datetime' } });
		const verdicts = people.map((json, itemIndex) => {
			const raw = mapping.map(json);
			const validated = validatePersonRow(raw, itemIndex, []);
			const checked = checkPersonRow(raw, itemIndex, []);
			expect(typeof checked === 'number').toBe(isPersonRow(validated));
			if (!isPersonRow(validated)) expect(checked).toEqual(validated);
			return isPersonRow(validated);
		});
		expect(verdicts).toEqual([true, true, true, true, true, false, false, false, false, false, false, false, true, false, true]);
	});
});
