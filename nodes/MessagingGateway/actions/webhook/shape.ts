/** Webhook requests and answers (spec sections 2.4, 4.2, 4.3). Pure logic, no n8n imports. */

import { WEBHOOK_EVENT_TYPES, WEBHOOK_META_VERSION_SPELLINGS } from '../../../gateway/spec';

/** A webhook as the node outputs it: `meta_version` spelled as in requests. */
export function normaliseWebhook<T extends Record<string, unknown>>(webhook: T): T {
	const version = webhook.meta_version;
	if (typeof version !== 'string') return webhook;
	const spelled = WEBHOOK_META_VERSION_SPELLINGS[version.trim().toUpperCase()];
	return spelled ? { ...webhook, meta_version: spelled } : webhook;
}

/**
 * Why the gateway could not deliver to this endpoint, or undefined when it is an https URL. The gateway needs a
 * server with a valid TLS certificate (self-signed certificates are not supported), so plain http is refused.
 */
export function endpointRefusal(endpoint: string): string | undefined {
	const trimmed = endpoint.trim();
	if (!trimmed) return 'is empty: give the https address of the server that receives the notifications';
	let url: URL;
	try {
		url = new URL(trimmed);
	} catch {
		return `"${trimmed}" is not a URL: give an address such as https://n8n.example.com/webhook/…`;
	}
	if (url.protocol !== 'https:') {
		return `"${trimmed}" is not an https address: the gateway delivers notifications only to servers with a valid TLS certificate (self-signed certificates are not supported)`;
	}
	return undefined;
}

/**
 * The custom headers map from name/value pairs. Header names are case-insensitive, so a name given twice
 * (in any letter case) is a mistake rather than a choice; it is returned as `duplicate`.
 */
export function headersMap(
	pairs: Array<{ name?: unknown; value?: unknown }>,
): { headers: Record<string, string> } | { error: string } {
	const headers: Record<string, string> = {};
	const seen = new Set<string>();
	for (const [index, pair] of pairs.entries()) {
		const name = String(pair.name ?? '').trim();
		if (!name) return { error: `header ${index + 1} has no name` };
		if (!/^[!#$%&'*+\-.^_`|~0-9A-Za-z]+$/.test(name)) return { error: `"${name}" is not a valid header name` };
		if (seen.has(name.toLowerCase())) return { error: `"${name}" is given twice` };
		seen.add(name.toLowerCase());
		headers[name] = String(pair.value ?? '');
	}
	return { headers };
}

/** A checked value, or why it is refused. */
type Checked<T> = { value: T } | { problem: string };

/**
 * Webhook subscription types: a list (the editor's choice), or from an expression a list or comma-separated text.
 * Every type must be one of spec section 6; repeats are dropped (the gateway refuses a type given twice).
 */
export function checkWebhookTypes(value: unknown): Checked<string[]> {
	const list = typeof value === 'string' ? value.split(',') : value;
	if (!Array.isArray(list)) return { problem: `must be a list of subscription types, got ${JSON.stringify(value)}` };
	const types: string[] = [];
	for (const entry of list) {
		if (typeof entry !== 'string') return { problem: `must hold subscription types as text, got ${JSON.stringify(entry)}` };
		const type = entry.trim();
		if (type === '') continue;
		if (!(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type)) {
			return { problem: `"${type}" is not a subscription type of the gateway; use ${WEBHOOK_EVENT_TYPES.join(', ')}` };
		}
		if (!types.includes(type)) types.push(type);
	}
	if (types.length === 0) return { problem: 'is empty: choose at least one, such as Messages' };
	return { value: types };
}
