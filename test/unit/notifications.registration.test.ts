import {
	SECRET_HEADER,
	creationBody,
	isStoredRegistrationCurrent,
	listedWebhooks,
	newWebhookSecret,
	normaliseMetaVersion,
	registrationFingerprint,
	registrationsFor,
	secretMatches,
	userHeaders,
	type RegistrationSettings,
} from '../../nodes/MessagingGatewayTrigger/registration';

const ENDPOINT = 'https://n8n.example.com/webhook/6f1a7a0e/webhook';

const SETTINGS: RegistrationSettings = {
	endpoint: ENDPOINT,
	types: ['messages'],
	metaVersion: 'LATEST',
	phone: '104857600000001',
	headers: { 'x-team': 'support' },
};

const SECRET = 'a'.repeat(64);

function listed(overrides: Record<string, unknown> = {}) {
	return {
		id: 'wh-1',
		phone: '104857600000001',
		phone_id: '104857600000001',
		meta_version: 'LASTEST',
		endpoint: ENDPOINT,
		create_date: '2025-11-22T08:00:00+00:00',
		update_date: '2025-11-22T08:00:00+00:00',
		headers: { 'x-team': 'support', [SECRET_HEADER]: SECRET },
		...overrides,
	};
}

describe('the creation body', () => {
	it('carries the settings, the user headers and the secret header', () => {
		expect(creationBody(SETTINGS, SECRET)).toEqual({
			phone: '104857600000001',
			meta_version: 'LATEST',
			types: ['messages'],
			headers: { 'x-team': 'support', [SECRET_HEADER]: SECRET },
			endpoint: ENDPOINT,
		});
	});

	it('a new secret is 32 random bytes in hex, different each time', () => {
		const first = newWebhookSecret();
		expect(first).toMatch(/^[0-9a-f]{64}$/);
		expect(newWebhookSecret()).not.toBe(first);
	});
});

describe('the fingerprint of the registered settings', () => {
	const fingerprint = registrationFingerprint(SETTINGS);

	it('does not depend on the order of types or headers', () => {
		const a = { ...SETTINGS, types: ['messages', 'security'], headers: { a: '1', b: '2' } };
		const b = { ...SETTINGS, types: ['security', 'messages'], headers: { b: '2', a: '1' } };
		expect(registrationFingerprint(a)).toBe(registrationFingerprint(b));
	});

	it.each([
		['types', { types: ['messages', 'security'] }],
		['meta version', { metaVersion: 'v16' as const }],
		['phone', { phone: '104857600000002' }],
		['a header value', { headers: { 'x-team': 'sales' } }],
		['a header more', { headers: { 'x-team': 'support', 'x-more': '1' } }],
		['endpoint', { endpoint: 'https://other.example.com/webhook/x' }],
	])('changes when %s changes', (_label, change) => {
		expect(registrationFingerprint({ ...SETTINGS, ...change })).not.toBe(fingerprint);
	});

	it('does not hold header values in clear', () => {
		expect(registrationFingerprint({ ...SETTINGS, headers: { authorization: 'Bearer s3cr3t-token' } })).not.toContain(
			's3cr3t',
		);
	});
});

describe('the listed webhooks', () => {
	it('reads the list, spelling LASTEST as LATEST, skipping entries without id or endpoint', () => {
		expect(
			listedWebhooks({
				success: true,
				webhooks: [
					listed(),
					listed({ id: 'wh-2', meta_version: 'v11', headers: undefined }),
					{ endpoint: ENDPOINT },
					'x',
				],
			}),
		).toEqual([
			{
				id: 'wh-1',
				endpoint: ENDPOINT,
				metaVersion: 'LATEST',
				headers: { 'x-team': 'support', [SECRET_HEADER]: SECRET },
			},
			{ id: 'wh-2', endpoint: ENDPOINT, metaVersion: 'v11', headers: undefined },
		]);
		expect(listedWebhooks({ success: true })).toEqual([]);
		expect(listedWebhooks('nonsense')).toEqual([]);
	});

	it('finds the registrations of this URL, with or without a trailing slash', () => {
		const webhooks = listedWebhooks({
			webhooks: [
				listed(),
				listed({ id: 'wh-2', endpoint: `${ENDPOINT}/` }),
				listed({ id: 'wh-3', endpoint: 'https://x.example/' }),
			],
		});
		expect(registrationsFor(webhooks, ENDPOINT).map((webhook) => webhook.id)).toEqual(['wh-1', 'wh-2']);
	});

	it.each([
		['LASTEST', 'LATEST'],
		['LATEST', 'LATEST'],
		['latest', 'LATEST'],
		['v16', 'v16'],
		['V11', 'v11'],
	])('meta version %s reads as %s', (raw, expected) => {
		expect(normaliseMetaVersion(raw)).toBe(expected);
	});
});

describe('whether the stored registration is kept', () => {
	const stored = {
		webhookId: 'wh-1',
		webhookSecret: SECRET,
		registrationFingerprint: registrationFingerprint(SETTINGS),
	};
	const current = (list: unknown[], storedRegistration: object = stored, settings = SETTINGS) => {
		const forThisUrl = registrationsFor(listedWebhooks({ webhooks: list }), ENDPOINT);
		return isStoredRegistrationCurrent(storedRegistration, forThisUrl, settings);
	};

	it('kept when listed for this URL with the same settings and the secret', () => {
		expect(current([listed()])).toBe(true);
	});

	it('kept when the list shows no headers (nothing to compare)', () => {
		expect(current([listed({ headers: undefined })])).toBe(true);
	});

	it('not kept when nothing was stored, or the stored id is not listed', () => {
		expect(current([listed()], {})).toBe(false);
		expect(current([listed({ id: 'someone-else' })])).toBe(false);
		expect(current([])).toBe(false);
	});

	it('not kept when a setting changed since', () => {
		expect(current([listed()], stored, { ...SETTINGS, types: ['messages', 'security'] })).toBe(false);
		expect(current([listed()], stored, { ...SETTINGS, headers: {} })).toBe(false);
	});

	it('not kept when the gateway shows another version or lost the secret header', () => {
		expect(current([listed({ meta_version: 'v11' })])).toBe(false);
		expect(current([listed({ headers: { 'x-team': 'support' } })])).toBe(false);
		expect(current([listed({ headers: { [SECRET_HEADER]: 'b'.repeat(64) } })])).toBe(false);
	});
});

describe('extra headers typed by the user', () => {
	it('are lower-cased and kept', () => {
		const typed = [
			{ name: ' X-Team ', value: 'support' },
			{ name: 'Authorization', value: 'Bearer t' },
		];
		expect(userHeaders(typed)).toEqual({
			'x-team': 'support',
			authorization: 'Bearer t',
		});
		expect(userHeaders([])).toEqual({});
	});

	it.each([
		[[{ name: '', value: 'x' }], 'has no name'],
		[[{ name: 'bad header', value: 'x' }], 'not a valid HTTP header name'],
		[[{ name: 'X-Gateway-Webhook-Secret', value: 'x' }], 'set by the node itself'],
		[[{ name: 'a', value: '1' }, { name: 'A', value: '2' }], 'given twice'],
		[[{ name: 'a', value: 'line\r\nInjected: 1' }], 'line breaks'],
	])('%j is refused', (entries, message) => {
		expect(userHeaders(entries)).toEqual(expect.stringContaining(message));
	});
});

describe('the secret check', () => {
	it('accepts only the exact secret', () => {
		expect(secretMatches(SECRET, SECRET)).toBe(true);
		expect(secretMatches(SECRET.toUpperCase(), SECRET)).toBe(false);
		expect(secretMatches(SECRET.slice(1), SECRET)).toBe(false);
		expect(secretMatches(`${SECRET}a`, SECRET)).toBe(false);
		expect(secretMatches('', SECRET)).toBe(false);
	});

	it('refuses a missing or repeated header, and anything when no secret was registered', () => {
		expect(secretMatches(undefined, SECRET)).toBe(false);
		expect(secretMatches([SECRET, SECRET], SECRET)).toBe(false);
		expect(secretMatches('', '')).toBe(false);
	});
});
