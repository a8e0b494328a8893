import { build } from '../../../nodes/MessagingGateway/actions/message/types/contacts';
import { inputError } from './inputError';

const fullCard = {
	formattedName: 'Dr. Maria Clara Silva Jr.',
	prefix: 'Dr.',
	firstName: 'Maria',
	middleName: 'Clara',
	lastName: 'Silva',
	suffix: 'Jr.',
	birthday: '1990-05-17',
	company: 'Acme',
	department: 'Sales',
	jobTitle: 'Manager',
	phones: { phone: [{ phone: '+55 11 98888-7777', type: 'WORK', waId: '5511988887777' }, { phone: '+55 11 3333-4444', type: 'HOME', waId: '' }] },
	emails: { email: [{ email: 'maria@acme.com', type: 'WORK' }] },
	addresses: {
		address: [
			{ street: 'Av. Paulista, 1578', city: 'São Paulo', state: 'SP', zip: '01310-200', country: 'Brasil', countryCode: 'BR', type: 'WORK' },
		],
	},
	urls: { url: [{ url: 'https://acme.com', type: 'WORK' }] },
};

const fullSpecCard = {
	addresses: [
		{ street: 'Av. Paulista, 1578', city: 'São Paulo', state: 'SP', zip: '01310-200', country: 'Brasil', country_code: 'BR', type: 'WORK' },
	],
	birthday: '1990-05-17',
	emails: [{ email: 'maria@acme.com', type: 'WORK' }],
	name: {
		formatted_name: 'Dr. Maria Clara Silva Jr.',
		first_name: 'Maria',
		last_name: 'Silva',
		middle_name: 'Clara',
		suffix: 'Jr.',
		prefix: 'Dr.',
	},
	org: { company: 'Acme', department: 'Sales', title: 'Manager' },
	phones: [
		{ phone: '+55 11 98888-7777', type: 'WORK', wa_id: '5511988887777' },
		{ phone: '+55 11 3333-4444', type: 'HOME' },
	],
	urls: [{ url: 'https://acme.com', type: 'WORK' }],
};

describe('contacts message from the editor fields', () => {
	it('maps every field of a card to the spec shape', () => {
		expect(build({ contactsInputMode: 'fields', contactCards: { card: [fullCard] } })).toEqual({
			type: 'contacts',
			contacts: [fullSpecCard],
		});
	});

	it('sends several cards and leaves out what was not filled in', () => {
		const payload = build({
			contactsInputMode: 'fields',
			contactCards: {
				card: [
					fullCard,
					{ formattedName: 'João', phones: { phone: [{ phone: '+55 21 97777-6666', type: 'HOME', waId: '' }] }, urls: { url: [{ url: '', type: 'HOME' }] } },
				],
			},
		});
		expect(payload.contacts[1]).toEqual({
			name: { formatted_name: 'João' },
			phones: [{ phone: '+55 21 97777-6666', type: 'HOME' }],
		});
	});

	it('makes the formatted name from the name parts when it is empty', () => {
		const payload = build({ contactCards: { card: [{ formattedName: '', prefix: 'Dr.', firstName: 'Ana', lastName: 'Lima' }] } });
		expect(payload.contacts[0].name).toEqual({ formatted_name: 'Dr. Ana Lima', first_name: 'Ana', last_name: 'Lima', prefix: 'Dr.' });
	});

	it('refuses a card without any name, naming the card', () => {
		const error = inputError(() => build({ contactCards: { card: [fullCard, { company: 'Acme' }] } }));
		expect(error.field).toBe('Contact Cards › card 2 › name');
	});

	it('refuses no cards, a bad birthday, a bad email and a phone entry without a number', () => {
		expect(inputError(() => build({ contactCards: {} })).reason).toMatch(/at least one/);
		expect(inputError(() => build({ contactCards: { card: [{ ...fullCard, birthday: '17/05/1990' }] } })).field).toBe(
			'Contact Cards › card 1 › birthday',
		);
		expect(inputError(() => build({ contactCards: { card: [{ ...fullCard, birthday: '1990-02-30' }] } })).reason).toMatch(
			/YYYY-MM-DD/,
		);
		const badEmail = { ...fullCard, emails: { email: [{ email: 'maria at acme', type: 'WORK' }] } };
		expect(inputError(() => build({ contactCards: { card: [badEmail] } })).field).toBe(
			'Contact Cards › card 1 › emails › entry 1 › email',
		);
		const waIdOnly = { ...fullCard, phones: { phone: [{ phone: '', type: 'WORK', waId: '5511988887777' }] } };
		expect(inputError(() => build({ contactCards: { card: [waIdOnly] } })).field).toBe(
			'Contact Cards › card 1 › phones › entry 1 › phone',
		);
	});

	it('cuts an ISO timestamp birthday (from a date picker or expression) to its date', () => {
		const payload = build({ contactCards: { card: [{ formattedName: 'A', birthday: '1990-05-17T00:00:00.000-03:00' }] } });
		expect(payload.contacts[0].birthday).toBe('1990-05-17');
	});
});

describe('contacts message from JSON', () => {
	it('sends cards given in the spec shape unchanged', () => {
		expect(build({ contactsInputMode: 'json', contactsJson: JSON.stringify([fullSpecCard]) })).toEqual({
			type: 'contacts',
			contacts: [fullSpecCard],
		});
	});

	it('accepts one card object from an expression, numbers as text and types in any case', () => {
		const payload = build({
			contactsInputMode: 'json',
			contactsJson: { name: { formatted_name: 'Ana' }, addresses: [{ zip: 1310200, type: 'home' }], phones: [{ phone: 5511988887777 }] },
		});
		expect(payload.contacts).toEqual([
			{ name: { formatted_name: 'Ana' }, addresses: [{ zip: '1310200', type: 'HOME' }], phones: [{ phone: '5511988887777' }] },
		]);
	});

	it('refuses invalid JSON, unknown fields and types other than HOME and WORK', () => {
		expect(inputError(() => build({ contactsInputMode: 'json', contactsJson: '[{' })).field).toBe('Contacts (JSON)');
		const unknownKey = [{ name: { formatted_name: 'A' }, nickname: 'x' }];
		expect(inputError(() => build({ contactsInputMode: 'json', contactsJson: unknownKey })).reason).toMatch(/"nickname"/);
		const cell = [{ name: { formatted_name: 'A' }, phones: [{ phone: '1', type: 'CELL' }] }];
		const error = inputError(() => build({ contactsInputMode: 'json', contactsJson: cell }));
		expect(error.field).toBe('Contacts (JSON) › card 1 › phones › entry 1 › type');
		expect(error.reason).toMatch(/HOME, WORK/);
		expect(inputError(() => build({ contactsInputMode: 'json', contactsJson: '"Ana"' })).reason).toMatch(/array/);
	});
});
