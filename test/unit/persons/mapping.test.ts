import { isFullNameKey, personFieldForKey } from '../../../nodes/MessagingGateway/persons/fields';
import {
	inferAttributeType,
	PersonMappingError,
	planAutoMapping,
	planDefinedMapping,
	splitFullName,
} from '../../../nodes/MessagingGateway/persons/mapping';
import { validatePersonRow } from '../../../nodes/MessagingGateway/persons/validation';
import { checkItems, written } from './helpers';

describe('auto mapping', () => {
	it.each([
		['email', 'Email'],
		['EMAIL', 'Email'],
		['first_name', 'FirstName'],
		['firstName', 'FirstName'],
		['Last Name', 'LastName'],
		['cpf', 'CPF'],
		['external-id', 'ExternalId'],
		['E-mail', 'Email'],
		['Mail', 'Email'],
		['Mobile', 'Phone'],
		['Celular', 'Phone'],
		['WhatsApp', 'Phone'],
		['Sobrenome', 'LastName'],
	])('maps the key %p to the person field %p', (key, field) => {
		expect(personFieldForKey(key)).toBe(field);
	});

	it.each([['Name'], ['Full Name'], ['full_name'], ['Nome'], ['Nome Completo']])('%p holds a whole name', (key) => {
		expect(isFullNameKey(key)).toBe(true);
		expect(personFieldForKey(key)).toBeUndefined();
	});

	it.each([
		['Ana Maria  Souza ', ['Ana Maria', 'Souza']],
		['Ana', ['Ana', undefined]],
		['  ', [undefined, undefined]],
		[42, [undefined, undefined]],
	] as const)('splits the name %p into %p (the last word is the last name)', (value, parts) => {
		expect(splitFullName(value)).toEqual(parts);
	});

	it('fills FirstName and LastName from a whole name only when the item has neither', () => {
		const results = checkItems([
			{ Name: 'Ana Souza', email: 'ana@example.com' },
			{ Name: 'Bia Lima', first_name: 'Beatriz', email: 'bia@example.com' },
		]);
		expect(results.map(written)).toEqual([
			{ FirstName: 'Ana', LastName: 'Souza', Email: 'ana@example.com' },
			{ FirstName: 'Beatriz', Email: 'bia@example.com' },
		]);
	});

	it('reports which keys filled which field, the split name columns and the custom attributes', () => {
		const mapping = planAutoMapping([{ 'E-mail': 'a@example.com', Email: 'b@example.com', Nome: 'Ana', plan: 'gold', n: 1 }]);
		expect(mapping.report).toEqual({
			fields: { Email: ['Email', 'E-mail'] },
			splitNames: ['Nome'],
			customAttributes: { plan: 'String', n: 'Integer' },
		});
	});

	it('leaves other keys as custom attributes, in order of first appearance', () => {
		const mapping = planAutoMapping([
			{ email: 'a@example.com', first_name: 'Ana', plan: 'gold' },
			{ Email: 'b@example.com', LastName: 'Silva', visits: 3 },
		]);
		expect(mapping.columns).toEqual({
			fields: ['FirstName', 'LastName', 'Email'],
			attributes: [
				{ name: 'plan', type: 'String' },
				{ name: 'visits', type: 'Integer' },
			],
		});
	});

	it('takes the first key with a value when two keys fill the same field', () => {
		const [result] = checkItems([{ Email: '', email: 'ana@example.com', FirstName: 'Ana' }]);
		expect(written(result)).toEqual({ FirstName: 'Ana', Email: 'ana@example.com' });
	});

	it.each([
		[[1, 2, '3'], 'Integer'],
		[[1, 2.5], 'Float'],
		[['1.5', '2'], 'Float'],
		[[true, 'false'], 'Boolean'],
		[['2024-01-02', '2024-01-02T10:00:00Z'], 'Datetime'],
		[['01234', '5'], 'String'],
		[['12345678901234567890'], 'String'],
		[[1, 'x'], 'String'],
		[[true, 1], 'String'],
		[[null, undefined, ''], 'String'],
		[[{ a: 1 }], 'String'],
	] as const)('infers %p as %s', (values, type) => {
		expect(inferAttributeType(values)).toBe(type);
	});

	it('infers each attribute type across all items, ignoring empty values', () => {
		const [first, second] = checkItems([
			{ first_name: 'Ana', email: 'a@example.com', age: 30, score: 7, vip: 'true', since: '2020-01-01' },
			{ first_name: 'Bia', email: 'b@example.com', age: '', score: 7.25, vip: false, since: null },
		]);
		expect(written(first)).toEqual({
			FirstName: 'Ana',
			Email: 'a@example.com',
			'age:Integer': '30',
			'score:Float': '7.0',
			'vip:Boolean': 'true',
			'since:Datetime': '2020-01-01',
		});
		expect(written(second)).toEqual({
			FirstName: 'Bia',
			Email: 'b@example.com',
			'score:Float': '7.25',
			'vip:Boolean': 'false',
		});
	});

	it('lets an override replace the inferred type', () => {
		const mapping = planAutoMapping([{ zip: 1234 }], { typeOverrides: { zip: 'String' } });
		expect(mapping.columns.attributes).toEqual([{ name: 'zip', type: 'String' }]);
	});

	it('refuses an override with an unknown type', () => {
		expect(() => planAutoMapping([{ a: 1 }], { typeOverrides: { a: 'Number' as never } })).toThrow(PersonMappingError);
	});

	it('writes nested objects and arrays as JSON text in a String attribute', () => {
		const [result] = checkItems([{ FirstName: 'Ana', Email: 'a@example.com', tags: ['a', 'b'], address: { city: 'Rio' } }]);
		expect(written(result)).toEqual({
			FirstName: 'Ana',
			Email: 'a@example.com',
			'tags:String': '["a","b"]',
			'address:String': '{"city":"Rio"}',
		});
	});

	it('refuses a nested object in a person field', () => {
		const [result] = checkItems([{ FirstName: 'Ana', Email: { work: 'a@example.com' } }]);
		expect(result).toEqual([
			{ itemIndex: 0, field: 'Email', reason: 'must be text', value: '{"work":"a@example.com"}' },
		]);
	});

	it('leaves ignored keys out', () => {
		const mapping = planAutoMapping([{ row_number: 2, Email: 'a@example.com' }], { ignoredKeys: ['row_number'] });
		expect(mapping.columns).toEqual({ fields: ['Email'], attributes: [] });
	});
});

describe('defined mapping', () => {
	const mapping = planDefinedMapping({
		fields: ['Email', 'FirstName'],
		attributes: [
			{ name: 'Plan', type: 'String' },
			{ name: 'Score', type: 'Float' },
		],
	});

	it('takes the columns from the configuration, fields in the spec order', () => {
		expect(mapping.columns.fields).toEqual(['FirstName', 'Email']);
		expect(mapping.columns.attributes.map((a) => a.name)).toEqual(['Plan', 'Score']);
	});

	it('maps and validates explicitly given values', () => {
		const raw = mapping.map(
			{
				fields: { Email: 'ana@example.com', FirstName: 'Ana' },
				attributes: [{ name: 'Score', type: 'Float', value: 3 }],
			},
			0,
		);
		expect(written(validatePersonRow(raw, 0, ['Email']))).toEqual({
			FirstName: 'Ana',
			Email: 'ana@example.com',
			'Score:Float': '3.0',
		});
	});

	it('refuses an item whose attribute type differs from the configuration', () => {
		expect(() =>
			mapping.map({ fields: {}, attributes: [{ name: 'Score', type: 'Integer', value: 3 }] }, 4),
		).toThrow(expect.objectContaining({ itemIndex: 4 }));
	});

	it('refuses an attribute defined twice or without a name', () => {
		const twice = [
			{ name: 'a', type: 'String' as const },
			{ name: 'a', type: 'Integer' as const },
		];
		expect(() => planDefinedMapping({ fields: [], attributes: twice })).toThrow('defined twice');
		expect(() => planDefinedMapping({ fields: [], attributes: [{ name: ' ', type: 'String' }] })).toThrow('no name');
	});
});
