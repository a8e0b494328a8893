/**
 * Webhooks (spec sections 2.4, 4.2, 4.3, 6): checks of the creation body, the response shapes, and the delivery of
 * notifications to registered endpoints. Delivered notifications carry Meta's `value` object only (docs/gateway.md), so the
 * subscription field of a notification is told from its keys; a full Meta envelope names its fields itself.
 */
import http from 'node:http';
import https from 'node:https';

import { WEBHOOK_EVENT_TYPES, WEBHOOK_META_VERSIONS } from '../../nodes/gateway/spec';
import { array, isObject, object, oneOf, onlyKeys, required, string } from './check';
import { invalid } from './errors';

export interface SandboxWebhook {
	id: string;
	/** The API key that created it: webhooks are per caller (spec section 5). */
	apiKey: string;
	phone: string;
	phone_id: string;
	meta_version: (typeof WEBHOOK_META_VERSIONS)[number];
	types: string[];
	endpoint: string;
	headers: Record<string, string>;
	create_date: string;
	update_date: string;
}

export type WebhookCreation = Pick<SandboxWebhook, 'meta_version' | 'types' | 'endpoint' | 'headers'> & { phone: string };

const HEADER_NAME_PATTERN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export function validateWebhookCreation(body: unknown): WebhookCreation {
	const webhook = object(body, 'body');
	// `credentials` is an optional object of the create request (spec section 2.4).
	onlyKeys(webhook, '', ['phone', 'meta_version', 'types', 'headers', 'endpoint', 'credentials']);
	required(webhook, '', ['phone', 'meta_version', 'types', 'headers', 'endpoint']);
	const phone = string(webhook.phone, 'phone');
	const meta_version = oneOf(webhook.meta_version, 'meta_version', WEBHOOK_META_VERSIONS);
	const types = array(webhook.types, 'types', { min: 1 }).map((t, i) => oneOf(t, `types[${i}]`, WEBHOOK_EVENT_TYPES));
	if (new Set(types).size !== types.length) throw invalid('types', 'must not repeat a subscription field');
	const headers = object(webhook.headers, 'headers');
	for (const [name, value] of Object.entries(headers)) {
		if (!HEADER_NAME_PATTERN.test(name)) throw invalid(`headers.${name}`, 'is not a valid HTTP header name');
		if (typeof value !== 'string') throw invalid(`headers.${name}`, 'must be a string (headers map strings to strings)');
		if (/[\r\n\0]/.test(value)) throw invalid(`headers.${name}`, 'must not contain line breaks');
	}
	const endpoint = validateEndpoint(webhook.endpoint);
	if (webhook.credentials !== undefined) object(webhook.credentials, 'credentials');
	return { phone, meta_version, types, endpoint, headers: headers as Record<string, string> };
}

/**
 * The receiving server must have a valid TLS certificate (spec section 2.4): only https. A plain http URL is
 * accepted when its host is loopback, so that a local n8n can be tested against the sandbox.
 */
function validateEndpoint(value: unknown): string {
	const endpoint = string(value, 'endpoint');
	let url: URL;
	try {
		url = new URL(endpoint);
	} catch {
		throw invalid('endpoint', `must be an absolute https URL, got ${JSON.stringify(endpoint)}`);
	}
	if (url.protocol === 'https:') return endpoint;
	if (url.protocol === 'http:') {
		if (isLoopbackHost(url.hostname)) return endpoint;
		throw invalid('endpoint', `must be an https URL: the receiving server needs a valid TLS certificate (got http to ${url.hostname}; plain http is accepted only for loopback hosts)`);
	}
	throw invalid('endpoint', `must be an https URL, got the scheme ${url.protocol}`);
}

export function isLoopbackHost(hostname: string): boolean {
	return hostname === 'localhost' || hostname === '[::1]' || /^127(\.\d{1,3}){3}$/.test(hostname);
}

/** Responses spell `LATEST` as `LASTEST`, as the spec's examples do (section 2.4). */
function responseMetaVersion(webhook: SandboxWebhook): string {
	return webhook.meta_version === 'LATEST' ? 'LASTEST' : webhook.meta_version;
}

export function createdWebhookView(webhook: SandboxWebhook): unknown {
	return {
		success: true,
		id: webhook.id,
		phone: webhook.phone,
		phone_id: webhook.phone_id,
		meta_version: responseMetaVersion(webhook),
		types: webhook.types,
		endpoint: webhook.endpoint,
		create_date: webhook.create_date,
		update_date: webhook.update_date,
		headers: webhook.headers,
	};
}

/** List entries carry no `types` (spec section 4.3). */
export function listedWebhookView(webhook: SandboxWebhook): unknown {
	const { types: _types, success: _success, ...listed } = createdWebhookView(webhook) as Record<string, unknown>;
	return listed;
}

/** ISO 8601 with an explicit offset (spec section 2.4). */
export function isoWithOffset(date: Date): string {
	return date.toISOString().replace('Z', '+00:00');
}

/** The subscription fields a notification belongs to (docs/gateway.md: the kind is told by the keys present). */
export function notificationFields(notification: unknown): string[] {
	if (!isObject(notification)) throw new Error('A notification must be a JSON object');
	if (Array.isArray(notification.entry)) {
		const fields = new Set<string>();
		for (const entry of notification.entry) {
			if (!isObject(entry) || !Array.isArray(entry.changes)) continue;
			for (const change of entry.changes) if (isObject(change) && typeof change.field === 'string') fields.add(change.field);
		}
		if (fields.size === 0) throw new Error('The Meta envelope has no entry[].changes[].field');
		return [...fields];
	}
	if (notification.event !== undefined && notification.message_template_id !== undefined) {
		return ['message_template_status_update'];
	}
	if (notification.messages !== undefined || notification.statuses !== undefined) return ['messages'];
	throw new Error(
		'Cannot tell the subscription field of the notification: expected messages, statuses, event + message_template_id, or a Meta envelope',
	);
}

export interface DeliveryOptions {
	omitCustomHeaders?: boolean;
	extraHeaders?: Record<string, string>;
	timeoutMs?: number;
}

export interface DeliveryResult {
	webhookId: string;
	endpoint: string;
	/** The receiver's HTTP status, or 0 when it could not be reached (then `body` holds the reason). */
	status: number;
	body: string;
}

/** POSTs the notification to one webhook endpoint with its custom headers. */
export function postNotification(
	webhook: SandboxWebhook,
	notification: unknown,
	options: DeliveryOptions = {},
): Promise<DeliveryResult> {
	const payload = Buffer.from(JSON.stringify(notification));
	const headers: Record<string, string> = {
		...(options.omitCustomHeaders ? {} : webhook.headers),
		...options.extraHeaders,
		'content-type': 'application/json',
		'content-length': String(payload.length),
	};
	const url = new URL(webhook.endpoint);
	const client = url.protocol === 'https:' ? https : http;
	return new Promise((resolve) => {
		const done = (status: number, body: string) => resolve({ webhookId: webhook.id, endpoint: webhook.endpoint, status, body });
		const request = client.request(
			url,
			// Loopback receivers have no certificate a client could check (the sandbox needs no certificate checks).
			{ method: 'POST', headers, agent: false, rejectUnauthorized: false, timeout: options.timeoutMs ?? 15_000 },
			(response) => {
				const chunks: Buffer[] = [];
				response.on('data', (chunk: Buffer) => chunks.push(chunk));
				response.on('end', () => done(response.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
				response.on('error', (error) => done(0, `response error: ${error.message}`));
			},
		);
		request.on('timeout', () => request.destroy(new Error('timed out')));
		request.on('error', (error) => done(0, `request error: ${error.message}`));
		request.end(payload);
	});
}
