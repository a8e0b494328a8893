import { describeViolation, ValidationSummary } from '../../../nodes/MessagingGateway/persons/validation';
import { checkItems, reasons, written } from './helpers';

const VALID_CPF = '529.982.247-25';

describe('rule 2: no keys configured', () => {
	it('accepts a record with only one of Email, CPF, Phone', () => {
		const [email, cpf, phone] = checkItems([
			{ FirstName: 'Ana', Email: 'ana@example.com' },
			{ FirstName: 'Bia', CPF: VALID_CPF },
			{ FirstName: 'Caio', Phone: '+55 (11) 97312-4856' },
		]);
		expect(reasons(email)).toEqual([]);
		expect(reasons(cpf)).toEqual([]);
		expect(reasons(phone)).toEqual([]);
	});

	it('refuses a record with none of them', () => {
		const [result] = checkItems([{ FirstName: 'Ana', ExternalId: '7' }]);
		expect(reasons(result)).toEqual(['CPF/Email/Phone: is missing: at least one of them is required']);
	});
});

describe('rule 3: keys configured', () => {
	it('accepts a record that has the highest-priority key', () => {
		const [result] = checkItems([{ FirstName: 'Ana', Phone: '5511973124856' }], ['Phone', 'Email']);
		expect(reasons(result)).toEqual([]);
	});

	it('refuses a record that only has a lower-priority key', () => {
		const [result] = checkItems([{ FirstName: 'Ana', Email: 'ana@example.com', Phone: '' }], ['Phone', 'Email']);
		expect(reasons(result)).toEqual(['Phone: is required: it is the highest-priority key']);
	});

	it('requires FirstName or LastName, either one is enough', () => {
		const [first, last, neither] = checkItems([
			{ FirstName: 'Ana', Email: 'a@example.com' },
			{ LastName: 'Silva', Email: 'b@example.com' },
			{ FirstName: '  ', Email: 'c@example.com' },
		]);
		expect(reasons(first)).toEqual([]);
		expect(reasons(last)).toEqual([]);
		expect(reasons(neither)).toEqual(['FirstName/LastName: is missing: one of them is required']);
	});
});

describe('rule 4: key values are real', () => {
	it.each(['null', 'N/A', 'unknown', 'Desconhecido', 'none', '-', '---'])('refuses the placeholder %p', (value) => {
		const [result] = checkItems([{ FirstName: 'Ana', Email: value, Phone: '5511973124856' }]);
		expect(reasons(result)).toEqual([expect.stringMatching(/^Email: is a placeholder/)]);
	});

	it('normalises a CPF with punctuation to its 11 digits', () => {
		const [result] = checkItems([{ FirstName: 'Ana', CPF: ` ${VALID_CPF} ` }]);
		expect(written(result)).toEqual({ FirstName: 'Ana', CPF: '52998224725' });
	});

	it('puts back the leading zeros of a CPF that arrives as a number', () => {
		// 048.151.623-95 is valid; a spreadsheet number column shows it as 4815162395.
		const [result] = checkItems([{ FirstName: 'Ana', CPF: 4815162395 }]);
		expect(written(result)).toEqual({ FirstName: 'Ana', CPF: '04815162395' });
	});

	it.each([
		['529.982.247-24', 'has wrong check digits'],
		['111.111.111-11', 'is an invented number'],
		['123.456.789-09', 'is an invented number'],
		['5299822472', 'must have 11 digits, has 10'],
		['529.982.247-2X', 'must hold only digits (dots and dashes allowed)'],
	])('refuses the CPF %p', (cpf, reason) => {
		const [result] = checkItems([{ FirstName: 'Ana', CPF: cpf }]);
		expect(reasons(result)).toEqual([`CPF: ${reason}`]);
	});

	it.each(['ana@example.com', 'ana.maria+news@sub.example.com.br', 'joão@exemplo.com.br'])('accepts the e-mail %p', (email) => {
		expect(reasons(checkItems([{ FirstName: 'Ana', Email: email }])[0])).toEqual([]);
	});

	it.each(['ana@', 'ana@example', 'ana example@x.com', '@example.com', 'ana..b@example.com', 'ana@exa_mple.com'])(
		'refuses the e-mail %p',
		(email) => {
			expect(reasons(checkItems([{ FirstName: 'Ana', Email: email }])[0])).toEqual([
				'Email: is not a valid e-mail address',
			]);
		},
	);

	it('writes a phone as international digits', () => {
		const [text, number] = checkItems([
			{ FirstName: 'Ana', Phone: '+55 (11) 97312-4856' },
			{ FirstName: 'Bia', Phone: 5511973124857 },
		]);
		expect(written(text)).toEqual({ FirstName: 'Ana', Phone: '5511973124856' });
		expect(written(number)).toEqual({ FirstName: 'Bia', Phone: '5511973124857' });
	});

	it.each([
		['1234567', /^is not a valid international number; if it is a national number, write it with its country code/],
		['1234567890123456', /^is not a valid international number/],
		['(11) 98888-7777', /write it with its country code \(e\.g\. 5511988887777\), or set Default Country/],
		['+55 11 99999-9999', /^is an invented number/],
		['+55 11 0000-0000', /^is not a valid number of BR \(\+55\)/],
		['+55 99999-9999', /^is not a valid number of BR \(\+55\)/],
		['+55 11 98888-7777-1234', /^has too many digits for a number of BR/],
		['11 9876-ABCD', /^is not a phone number/],
	])('refuses the phone %p with the reason of the phone module that recipients use', (phone, reason) => {
		const [only, ...others] = reasons(checkItems([{ FirstName: 'Ana', Phone: phone }])[0]);
		expect(others).toEqual([]);
		expect(only.replace(/^Phone: /, '')).toMatch(reason);
	});

	it('refuses a bad optional key value even when another key is present', () => {
		const [result] = checkItems([{ FirstName: 'Ana', Email: 'ana@example.com', Phone: 'N/A' }], ['Email']);
		expect(reasons(result)).toEqual(['Phone: is a placeholder, not a phone number']);
	});
});

describe('rule 5: custom attribute values conform to their type', () => {
	const check = (type: 'Integer' | 'Float' | 'Boolean' | 'Datetime' | 'String', value: unknown) =>
		checkItems([{ FirstName: 'Ana', Email: 'a@example.com', attr: value }], [], { typeOverrides: { attr: type } })[0];

	it.each([
		['Integer', 42, '42'],
		['Integer', '+007', '7'],
		['Integer', '-12', '-12'],
		['Integer', '5.0', '5'],
		['Float', 5, '5.0'],
		['Float', '5', '5.0'],
		['Float', 2.5, '2.5'],
		['Float', '.5', '0.5'],
		['Float', '10.50', '10.50'],
		['Float', 1e-7, '0.0000001'],
		['Boolean', true, 'true'],
		['Boolean', 'FALSE', 'false'],
		['Datetime', '2024-02-29', '2024-02-29'],
		['Datetime', '2024-03-01T10:20:30.123Z', '2024-03-01T10:20:30.123Z'],
		['Datetime', '2024-03-01 10:20:30-03:00', '2024-03-01T10:20:30-03:00'],
		['Datetime', '2024-05-01 10:00', '2024-05-01T10:00'],
		['Datetime', '2024-05-01T10:00:00,5', '2024-05-01T10:00:00.5'],
		['Datetime', '2024-05-01T10:00+03', '2024-05-01T10:00+03:00'],
		['Datetime', '2024-05-01T10:00:00-0330', '2024-05-01T10:00:00-03:30'],
		['Datetime', new Date(Date.UTC(2024, 0, 2, 3, 4, 5)), '2024-01-02T03:04:05.000Z'],
		['String', 12, '12'],
		['String', '  spaced  ', '  spaced  '],
	] as const)('%s accepts %p as %p', (type, value, text) => {
		expect(written(check(type, value))).toEqual({ FirstName: 'Ana', Email: 'a@example.com', [`attr:${type}`]: text });
	});

	it.each([
		['Integer', 4.5, 'must be a whole number'],
		['Integer', 'R$ 10', 'must be a bare number without a currency sign'],
		['Integer', '1,000', 'must use a decimal point and no thousands separator'],
		['Float', 'R$ 10,00', 'must be a bare number without a currency sign'],
		['Float', '$5', 'must be a bare number without a currency sign'],
		['Float', '10,5', 'must use a decimal point and no thousands separator'],
		['Float', 'abc', 'must be a number with a decimal point'],
		['Boolean', 'yes', 'must be true or false'],
		['Boolean', 1, 'must be true or false'],
		['Datetime', '2023-02-29', 'is not a real date or time'],
		['Datetime', '01/02/2024', 'must be a date YYYY-MM-DD or an ISO 8601 timestamp'],
		['Datetime', '2024-01-02T25:00:00Z', 'is not a real date or time'],
	] as const)('%s refuses %p', (type, value, reason) => {
		expect(reasons(check(type, value))).toEqual([`attr: ${reason} (${type})`]);
	});

	it('reports the item, field, reason and a short excerpt of the value', () => {
		const results = checkItems(
			[
				{ FirstName: 'Ana', Email: 'a@example.com', score: '1' },
				{ FirstName: 'Bia', Email: 'b@example.com', score: 'x'.repeat(100) },
			],
			[],
			{ typeOverrides: { score: 'Integer' } },
		);
		expect(results[1]).toEqual([
			{ itemIndex: 1, field: 'score', reason: 'must be a whole number (Integer)', value: `${'x'.repeat(39)}…` },
		]);
		expect(describeViolation((results[1] as Array<{ itemIndex: number; field: string; reason: string }>)[0])).toBe(
			`item 1: score "${'x'.repeat(39)}…" must be a whole number (Integer)`,
		);
	});

	it('keeps attribute names case-sensitive: two spellings are two attributes', () => {
		const [result] = checkItems([{ FirstName: 'Ana', Email: 'a@example.com', Plan: 'gold', plan: 'silver' }]);
		expect(written(result)).toEqual({
			FirstName: 'Ana',
			Email: 'a@example.com',
			'Plan:String': 'gold',
			'plan:String': 'silver',
		});
	});
});

describe('ValidationSummary', () => {
	it('counts every record but keeps only the first violations', () => {
		const summary = new ValidationSummary(2);
		summary.addValid();
		for (let i = 0; i < 5; i++) summary.addInvalid([{ itemIndex: i, field: 'Email', reason: 'bad' }]);
		expect({ valid: summary.valid, invalid: summary.invalid }).toEqual({ valid: 1, invalid: 5 });
		expect(summary.violations.map((v) => v.itemIndex)).toEqual([0, 1]);
	});
});
