/** URL helpers shared by the nodes and the credential test. Pure: no n8n imports. */

/** The base URL as the user typed it, without trailing slashes; undefined when it is not an http(s) address. */
export function normaliseBaseUrl(raw: unknown): string | undefined {
	if (typeof raw !== 'string') return undefined;
	const trimmed = raw.trim().replace(/\/+$/, '');
	try {
		const url = new URL(trimmed);
		if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
		return trimmed;
	} catch {
		return undefined;
	}
}

/** Loopback hosts: a local sandbox gateway or a local n8n. */
export function isLoopbackUrl(raw: string): boolean {
	try {
		const host = new URL(raw).hostname.replace(/^\[|\]$/g, '');
		return host === 'localhost' || host === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
	} catch {
		return false;
	}
}

export function isHttpsUrl(raw: string): boolean {
	try {
		return new URL(raw).protocol === 'https:';
	} catch {
		return false;
	}
}
