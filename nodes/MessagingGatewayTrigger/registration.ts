/**
 * The trigger's webhook registration at the gateway, as pure logic: the secret header value and how it is checked,
 * the creation body, the fingerprint of the settings that were registered, which listed registrations belong to this
 * node's URL, and whether the one this node registered is still right. No n8n imports.
 */
import { createHash, createHmac, timingSafeEqual } from 'crypto';

import { WEBHOOK_META_VERSION_SPELLINGS, WEBHOOK_META_VERSIONS } from '../gateway/spec';

/**
 * Whether the gateway can call n8n's webhook URL: it calls only https addresses, except when it runs on this machine
 * (a local sandbox gateway, on a loopback host), which takes http.
 */
export function isDeliverable(webhookUrl: string, gatewayBaseUrl: string): boolean {
	if (parsedUrl(webhookUrl)?.protocol === 'https:') return true;
	const host = parsedUrl(gatewayBaseUrl)?.hostname.replace(/^\[|\]$/g, '');
	return host === 'localhost' || host === '::1' || (host !== undefined && /^127\.\d+\.\d+\.\d+$/.test(host));
}

function parsedUrl(raw: string): URL | undefined {
	try {
		return new URL(raw);
	} catch {
		return undefined;
	}
}

/**
 * The header that carries this registration's secret on every notification. The gateway signs nothing (docs/gateway.md),
 * so this header, known only to the gateway and this node, is what tells a real notification from a forged one.
 */
export const SECRET_HEADER = 'x-gateway-webhook-secret';

/** Token characters of RFC 9110, the only ones a header name may have. */
const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export type MetaVersion = (typeof WEBHOOK_META_VERSIONS)[number];

/** What the node registers, apart from the secret. */
export interface RegistrationSettings {
	endpoint: string;
	types: string[];
	metaVersion: MetaVersion;
	/** The credential's phone id (the gateway needs the phone of the account the webhook is for). */
	phone: string;
	/** The user's extra headers, names lower-cased. */
	headers: Record<string, string>;
}

/**
 * What the node keeps in the workflow's static data about its registration. Static data is readable by anyone who can
 * read or export the workflow, so it holds no secret: only a verifier the webhook does not accept as the secret.
 */
export interface StoredRegistration {
	webhookId?: string;
	/** SHA-256 of the secret header value (secretVerifier), to check deliveries without knowing the secret. */
	secretVerifier?: string;
	registrationFingerprint?: string;
	/** The credential's phone id the webhook was registered for: the phone of "Only This Phone". */
	phoneId?: string;
	/** Earlier versions stored the secret itself; accepted until the next activation replaces it. */
	webhookSecret?: string;
}

/** A webhook as `GET /api/Webhooks` lists it (no `types`; `LATEST` may be spelled `LASTEST`). */
export interface ListedWebhook {
	id: string;
	endpoint: string;
	metaVersion?: string;
	headers?: Record<string, unknown>;
}

/** Labels the inputs of the two hashes, so that a value made for one use is never valid for the other. */
const SECRET_LABEL = 'n8n-nodes-messaging-gateway webhook secret v1';
const VERIFIER_LABEL = 'n8n-nodes-messaging-gateway webhook secret verifier v1';

/**
 * The secret header value: an HMAC of the webhook URL under the credential's API key. Only the API key's holder can
 * compute it, the node recomputes it instead of storing it, and a changed key or URL gives another secret.
 */
export function deriveWebhookSecret(apiKey: string, endpoint: string): string {
	if (apiKey === '') throw new Error('The credential has no API key to derive the webhook secret from');
	return createHmac('sha256', apiKey).update(`${SECRET_LABEL}\n${withoutTrailingSlash(endpoint)}`, 'utf8').digest('hex');
}

/** What static data keeps instead of the secret: a one-way hash of it, itself no accepted secret. */
export function secretVerifier(secret: string): string {
	return verifierDigest(secret).toString('hex');
}

/** Whether a received header value is the secret behind a verifier, in constant time. */
export function matchesVerifier(received: unknown, verifier: string | undefined): boolean {
	if (typeof received !== 'string' || typeof verifier !== 'string') return false;
	const expected = Buffer.from(verifier, 'hex');
	if (expected.length !== 32) return false;
	return timingSafeEqual(verifierDigest(received), expected);
}

/** Whether a delivery carries this registration's secret: by its verifier, or the secret an earlier version stored. */
export function acceptsSecret(stored: StoredRegistration, received: unknown): boolean {
	if (stored.secretVerifier !== undefined) return matchesVerifier(received, stored.secretVerifier);
	return typeof stored.webhookSecret === 'string' && secretMatches(received, stored.webhookSecret);
}

function verifierDigest(value: string): Buffer {
	return createHash('sha256').update(`${VERIFIER_LABEL}\n${value}`, 'utf8').digest();
}

/** The body of `POST /api/Webhooks/`: the user's headers plus the secret header. */
export function creationBody(settings: RegistrationSettings, secret: string) {
	return {
		phone: settings.phone,
		meta_version: settings.metaVersion,
		types: settings.types,
		headers: { ...settings.headers, [SECRET_HEADER]: secret },
		endpoint: settings.endpoint,
	};
}

/**
 * Stands for the registered settings, so that a change of any of them is noticed on the next activation. The order of
 * types and headers does not matter; a hash keeps header values (which may be credentials of their own) out of the
 * static data.
 */
export function registrationFingerprint(settings: RegistrationSettings): string {
	const canonical = JSON.stringify([
		settings.endpoint,
		[...new Set(settings.types)].sort(),
		settings.metaVersion,
		settings.phone,
		Object.entries(settings.headers).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
	]);
	return createHash('sha256').update(canonical).digest('hex');
}

/** Response spellings such as `LASTEST` are read as the request value they mean (spec.ts). */
export function normaliseMetaVersion(value: unknown): string | undefined {
	if (typeof value !== 'string') return undefined;
	const upper = value.trim().toUpperCase();
	const spelled = WEBHOOK_META_VERSION_SPELLINGS[upper];
	if (spelled) return spelled;
	return upper === 'LATEST' ? 'LATEST' : value.trim().toLowerCase();
}

/** The webhooks of a `GET /api/Webhooks` answer; entries without an id or endpoint are skipped. */
export function listedWebhooks(listResponse: unknown): ListedWebhook[] {
	const webhooks = isObject(listResponse) && Array.isArray(listResponse.webhooks) ? listResponse.webhooks : [];
	return (webhooks as unknown[]).filter(isObject).flatMap((webhook) => {
		if (typeof webhook.id !== 'string' && typeof webhook.id !== 'number') return [];
		if (typeof webhook.endpoint !== 'string') return [];
		return [
			{
				id: String(webhook.id),
				endpoint: webhook.endpoint,
				metaVersion: normaliseMetaVersion(webhook.meta_version),
				headers: isObject(webhook.headers) ? webhook.headers : undefined,
			},
		];
	});
}

/** Registrations that deliver to this node's URL (a trailing slash makes no difference). */
export function registrationsFor(webhooks: ListedWebhook[], endpoint: string): ListedWebhook[] {
	const wanted = withoutTrailingSlash(endpoint);
	return webhooks.filter((webhook) => withoutTrailingSlash(webhook.endpoint) === wanted);
}

/**
 * Whether the registration this node made can be kept: it is still listed for this URL, and what the node would
 * register now is what it registered then. Where the list shows the version and headers, they must agree too (a
 * registration edited elsewhere without the secret would turn every notification away).
 */
export function isStoredRegistrationCurrent(
	stored: StoredRegistration,
	forThisUrl: ListedWebhook[],
	settings: RegistrationSettings,
	secret: string,
): boolean {
	if (!stored.webhookId || !stored.registrationFingerprint) return false;
	// A changed API key or URL gives another secret: the registration must be made again with it.
	if (!matchesVerifier(secret, stored.secretVerifier)) return false;
	const listed = forThisUrl.find((webhook) => webhook.id === stored.webhookId);
	if (!listed) return false;
	if (stored.registrationFingerprint !== registrationFingerprint(settings)) return false;
	const listedVersion = listed.metaVersion;
	if (listedVersion !== undefined && listedVersion !== normaliseMetaVersion(settings.metaVersion)) return false;
	if (listed.headers !== undefined) {
		if (!secretMatches(headerValue(listed.headers, SECRET_HEADER), secret)) return false;
	}
	return true;
}

/** Header names and values the user typed, checked and lower-cased; an error message for the first bad one. */
export function userHeaders(entries: Array<{ name?: unknown; value?: unknown }>): Record<string, string> | string {
	const headers: Record<string, string> = {};
	for (const entry of entries) {
		const name = typeof entry.name === 'string' ? entry.name.trim().toLowerCase() : '';
		const value = typeof entry.value === 'string' ? entry.value : String(entry.value ?? '');
		if (name === '') return 'An extra header has no name';
		if (!HEADER_NAME_PATTERN.test(name)) return `"${name}" is not a valid HTTP header name`;
		if (name === SECRET_HEADER) return `The header "${SECRET_HEADER}" is set by the node itself; use another name`;
		if (name in headers) return `The header "${name}" is given twice`;
		if (/[\r\n\0]/.test(value)) return `The value of the header "${name}" must not contain line breaks`;
		headers[name] = value;
	}
	return headers;
}

/**
 * Constant-time comparison of a received secret with the registered one. Both are hashed first, so the buffers
 * compared have the same length and the time taken says nothing about the length either.
 */
export function secretMatches(received: unknown, expected: string): boolean {
	if (typeof received !== 'string' || expected === '') return false;
	const digest = (text: string) => createHash('sha256').update(text, 'utf8').digest();
	return timingSafeEqual(digest(received), digest(expected));
}

function headerValue(headers: Record<string, unknown>, name: string): unknown {
	const key = Object.keys(headers).find((candidate) => candidate.toLowerCase() === name);
	return key === undefined ? undefined : headers[key];
}

function withoutTrailingSlash(url: string): string {
	return url.trim().replace(/\/+$/, '');
}

function isObject(value: unknown): value is Record<string, unknown> {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}
