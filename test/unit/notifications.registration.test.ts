import {
	SECRET_HEADER,
	acceptsSecret,
	creationBody,
	deriveWebhookSecret,
	isStoredRegistrationCurrent,
	listedWebhooks,
	matchesVerifier,
	normaliseMetaVersion,
	registrationFingerprint,
	registrationsFor,
	secretMatches,
	secretVerifier,
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

const API_KEY = 'test-api-key-0123456789';
const SECRET = deriveWebhookSecret(API_KEY, ENDPOINT);

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

});

describe('the secret, derived from the API key and the webhook URL', () => {
	it('is 32 bytes in hex, the same each time for the same key and URL (a trailing slash makes no difference)', () => {
		expect(SECRET).toMatch(/^[0-9a-f]{64}$/);
		expect(deriveWebhookSecret(API_KEY, ENDPOINT)).toBe(SECRET);
		expect(deriveWebhookSecret(API_KEY, `${ENDPOINT}/`)).toBe(SECRET);
	});

	it('changes with the key and with the URL, and contains neither', () => {
		expect(deriveWebhookSecret('another-api-key-987654', ENDPOINT)).not.toBe(SECRET);
		expect(deriveWebhookSecret(API_KEY, 'https://n8n.example.com/webhook/other/webhook')).not.toBe(SECRET);
		expect(SECRET).not.toContain(API_KEY);
		expect(() => deriveWebhookSecret('', ENDPOINT)).toThrow(/no API key/);
	});

	it('the verifier kept in static data checks the secret and is not accepted as the secret itself', () => {
		const verifier = secretVerifier(SECRET);
		expect(verifier).toMatch(/^[0-9a-f]{64}$/);
		expect(verifier).not.toBe(SECRET);
		expect(matchesVerifier(SECRET, verifier)).toBe(true);
		expect(matchesVerifier(verifier, verifier)).toBe(false);
		expect(matchesVerifier(SECRET.toUpperCase(), verifier)).toBe(false);
		expect(matchesVerifier(SECRET.slice(1), verifier)).toBe(false);
		expect(matchesVerifier(undefined, verifier)).toBe(false);
		expect(matchesVerifier([SECRET], verifier)).toBe(false);
		expect(matchesVerifier(SECRET, undefined)).toBe(false);
		expect(matchesVerifier(SECRET, 'not hex')).toBe(false);
	});

	it('a delivery is accepted by the verifier; the secret an earlier version stored only while no verifier exists', () => {
		const legacy = 'f'.repeat(64);
		expect(acceptsSecret({ secretVerifier: secretVerifier(SECRET) }, SECRET)).toBe(true);
		expect(acceptsSecret({ secretVerifier: secretVerifier(SECRET), webhookSecret: legacy }, legacy)).toBe(false);
		expect(acceptsSecret({ webhookSecret: legacy }, legacy)).toBe(true);
		expect(acceptsSecret({}, '')).toBe(false);
		expect(acceptsSecret({}, undefined)).toBe(false);
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
		secretVerifier: secretVerifier(SECRET),
		registrationFingerprint: registrationFingerprint(SETTINGS),
	};
	const current = (list: unknown[], storedRegistration: object = stored, settings = SETTINGS, secret = SECRET) => {
		const forThisUrl = registrationsFor(listedWebhooks({ webhooks: list }), ENDPOINT);
		return isStoredRegistrationCurrent(storedRegistration, forThisUrl, settings, secret);
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

	it('not kept when the API key changed (another secret), or an earlier version stored the secret itself', () => {
		const otherKeySecret = deriveWebhookSecret('another-api-key-987654', ENDPOINT);
		expect(current([listed({ headers: undefined })], stored, SETTINGS, otherKeySecret)).toBe(false);
		const legacy = { webhookId: 'wh-1', webhookSecret: SECRET, registrationFingerprint: stored.registrationFingerprint };
		expect(current([listed()], legacy)).toBe(false);
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
