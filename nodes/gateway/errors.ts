/**
 * Reading the gateway's answers when something went wrong. Pure: no n8n imports, tested directly.
 *
 * The gateway's own error shape is not documented (docs/gateway.md); it may pass Meta's shape through. So the message is
 * looked for in `error.message`, `message`, `errors[]`, `title`, `detail`, in that order, with Meta's
 * `error.error_data.details` as the longer description, and the HTTP status text as the last resort.
 */

export interface GatewayErrorDetails {
	message: string;
	description?: string;
	code?: string;
	/** For failures without an answer: whether the request can have reached the gateway. */
	outcome?: RequestOutcome;
}

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
	typeof value === 'object' && value !== null && !Array.isArray(value);

const text = (value: unknown): string | undefined =>
	typeof value === 'string' && value.trim() !== '' ? value.trim() : undefined;

function messagesOf(errors: unknown): string | undefined {
	if (!Array.isArray(errors)) return text(errors);
	const parts = errors
		.map((entry) => (isObject(entry) ? text(entry.message) ?? text(entry.title) ?? text(entry.detail) : text(entry)))
		.filter((entry): entry is string => entry !== undefined);
	return parts.length ? parts.join('; ') : undefined;
}

/** Tries to read a JSON error body that arrived as text (for example with a wrong content type). */
function asObject(body: unknown): Json | undefined {
	if (isObject(body)) return body;
	if (typeof body === 'string' && body.trim().startsWith('{')) {
		try {
			const parsed: unknown = JSON.parse(body);
			return isObject(parsed) ? parsed : undefined;
		} catch {
			return undefined;
		}
	}
	return undefined;
}

export function readGatewayError(statusCode: number, body: unknown, statusText?: string): GatewayErrorDetails {
	const json = asObject(body);
	const metaError = json && isObject(json.error) ? json.error : undefined;
	const message =
		text(metaError?.message) ??
		(json ? text(json.error) : undefined) ??
		(json ? text(json.message) : undefined) ??
		(json ? messagesOf(json.errors) : undefined) ??
		(json ? text(json.title) : undefined) ??
		(json ? text(json.detail) : undefined);

	const details = metaError && isObject(metaError.error_data) ? text(metaError.error_data.details) : undefined;
	const detail = json && message !== text(json.detail) ? text(json.detail) : undefined;
	const code = metaError?.code ?? json?.code;

	if (message) {
		return {
			message: `The gateway answered ${statusCode}: ${message}`,
			description: details ?? detail,
			code: code === undefined ? undefined : String(code),
		};
	}
	const looksLikeHtml = typeof body === 'string' && /^\s*</.test(body);
	return {
		message: `The gateway answered ${statusCode}${statusText ? ` ${statusText}` : ''}`,
		description: looksLikeHtml
			? 'The answer was an HTML page, not the gateway\'s JSON: check the Base URL of the credential, or a proxy in between.'
			: undefined,
	};
}

/** What an error's `context` may hold (n8n's errors carry one): `outcome: 'unknown'` marks a request that may have arrived. */
interface WithContext {
	context?: Record<string, unknown>;
}

/**
 * Marks an error as one of a request that may have been accepted: it must not be sent again, not even by a retry. The
 * mark is in the error's own `context` (n8n's errors have one), so it goes wherever the error goes.
 */
export function markUnknownOutcome<E extends object>(error: E): E {
	const holder = error as WithContext;
	holder.context = { ...(holder.context ?? {}), outcome: 'unknown' };
	return error;
}

export function hasUnknownOutcome(error: unknown): boolean {
	return typeof error === 'object' && error !== null && (error as WithContext).context?.outcome === 'unknown';
}

/**
 * `accepted`: the gateway took the request. `notSent`: it did not, sending it again is safe. `unknown`: it may have
 * taken it; such a request is never repeated, neither by the node nor by n8n's Retry On Fail.
 */
export type RequestOutcome = 'accepted' | 'notSent' | 'unknown';

/**
 * The outcome of an HTTP status (docs/retries.md lists this table). A 2xx is accepted (its body must still be
 * readable: an unreadable 2xx is unknown). Every 4xx, 429 included, is the gateway or its proxy refusing the request
 * before taking it: not sent. Every 5xx is unknown: the gateway sits behind an API proxy (docs/gateway.md), whose 502,
 * 503 and 504 come when the upstream failed or did not answer in time, which may be after it accepted the message; and
 * a 500 is the one error status the spec documents ("Server error", section 7) without saying at what point it
 * happens, while the proxy answers its own failures with a 500 too, so a 500 cannot be told apart from "taken, then
 * failed". 1xx and 3xx (redirects are not followed) never reached a handler: not sent.
 */
export function outcomeOfStatus(status: number): RequestOutcome {
	if (status >= 200 && status < 300) return 'accepted';
	if (status >= 500) return 'unknown';
	return 'notSent';
}

/** What the user is told when a request may have reached the gateway and was therefore not sent again. */
export const MAY_HAVE_BEEN_ACCEPTED =
	"The gateway may have accepted the request. It was not repeated, neither by the node nor by n8n's Retry On Fail, so that nothing is sent twice: check before running it again.";

/** A request that ran past its deadline: it was sent (or being sent), so it may have been accepted. */
export function describeTimeout(timeoutMs: number): GatewayErrorDetails {
	const seconds = Math.round(timeoutMs / 100) / 10;
	return {
		message: `The gateway did not answer within ${seconds} s (Timeout option): the request may have been sent and was not repeated`,
		description: MAY_HAVE_BEEN_ACCEPTED,
		code: 'TIMEOUT',
	};
}

/** A streamed upload during which no byte moved either way for the Timeout: it may have been accepted. */
export function describeIdleTimeout(timeoutMs: number): GatewayErrorDetails {
	const seconds = Math.round(timeoutMs / 100) / 10;
	return {
		message: `The upload stalled: no byte moved for ${seconds} s (Timeout option); it may have been sent and was not repeated`,
		description: MAY_HAVE_BEEN_ACCEPTED,
		code: 'TIMEOUT',
	};
}

/** A request in flight when the execution was cancelled: it was aborted, and may have been accepted. */
export const CANCELLED_IN_FLIGHT: GatewayErrorDetails = {
	message: 'The execution was canceled while this request was in flight: it was aborted and may have been sent',
	description: MAY_HAVE_BEEN_ACCEPTED,
	code: 'CANCELED',
};

/** Network failures: whether the request can have reached the gateway decides what the user is told. */
const NOT_SENT_CODES = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH', 'ENETUNREACH', 'ERR_INVALID_URL']);

export function describeNetworkError(code: string | undefined, baseUrl: string): GatewayErrorDetails {
	if (code && NOT_SENT_CODES.has(code)) {
		return {
			message: `Could not reach the gateway at ${baseUrl} (${code})`,
			description: 'Nothing was sent. Check the Base URL of the credential and that the gateway is reachable from n8n.',
			code,
			outcome: 'notSent',
		};
	}
	return {
		message: `The connection to the gateway was lost before it answered (${code ?? 'no answer'})`,
		description: MAY_HAVE_BEEN_ACCEPTED,
		code,
		outcome: 'unknown',
	};
}

/**
 * The network code (ECONNREFUSED, ...) of an error of n8n's HTTP helper, looked for along its causes. n8n-core 2.41
 * keeps the network error as the cause; 2.0 keeps it as `errorResponse` with no cause, and its text in `messages`.
 */
export function networkErrorCode(error: unknown): string | undefined {
	const seen = new Set<unknown>();
	const pending: unknown[] = [error];
	while (pending.length > 0) {
		const current = pending.shift();
		if (typeof current !== 'object' || current === null || seen.has(current)) continue;
		seen.add(current);
		const candidate = current as { code?: unknown; cause?: unknown; errorResponse?: unknown; message?: unknown; messages?: unknown };
		if (typeof candidate.code === 'string' && /^[A-Z_]+$/.test(candidate.code)) return candidate.code;
		const texts = [candidate.message, ...(Array.isArray(candidate.messages) ? candidate.messages : [])];
		for (const text of texts) {
			if (typeof text !== 'string') continue;
			const named = NETWORK_CODE_IN_TEXT.exec(text);
			if (named) return named[1];
			if (/socket hang up/i.test(text)) return 'ECONNRESET';
		}
		pending.push(candidate.cause, candidate.errorResponse);
	}
	return undefined;
}

/** A network code as Node writes it into an error's text (`connect ECONNREFUSED 127.0.0.1:9`). */
const NETWORK_CODE_IN_TEXT = /\b(ECONNREFUSED|ECONNRESET|ENOTFOUND|EAI_AGAIN|ETIMEDOUT|EHOSTUNREACH|ENETUNREACH|EPIPE)\b/;

/** The network's code in a gateway answer: Meta's `error.code`, or a top-level `code`; undefined when it has none. */
export function networkCodeOf(body: unknown): unknown {
	const json = asObject(body);
	if (!json) return undefined;
	if (isObject(json.error) && 'code' in json.error) return json.error.code;
	return json.code;
}

/** The network's throughput answer (the phone number's limit) and its pair rate answer (one recipient too often). */
export const THROUGHPUT_CODE = 130429;
export const PAIR_RATE_CODE = 131056;

/**
 * A refusal that is a wait, not an answer about the message (docs/gateway.md, Decisions: such a message was not sent,
 * and sending it again later is safe): the phone's throughput (the network's 400 with 130429, or an HTTP 429, whose
 * Retry-After says how long), or the pair rate of one recipient (400 with 131056). Undefined for any other answer.
 */
export type Wait = { kind: 'throughput'; retryAfterMs?: number } | { kind: 'pairRate' };

export function waitOf(status: number, body: unknown, retryAfterHeader?: unknown): Wait | undefined {
	if (status === 429) {
		const seconds = parseRetryAfterSeconds(retryAfterHeader);
		return { kind: 'throughput', retryAfterMs: seconds === undefined ? undefined : seconds * 1000 };
	}
	if (status !== 400) return undefined;
	const code = Number(networkCodeOf(body));
	if (code === THROUGHPUT_CODE) return { kind: 'throughput' };
	if (code === PAIR_RATE_CODE) return { kind: 'pairRate' };
	return undefined;
}

/**
 * Seconds to wait before retrying a 429, from a `Retry-After` header (delta seconds or an HTTP date).
 * Undefined when the header is absent or unreadable.
 */
export function parseRetryAfterSeconds(header: unknown, now: number = Date.now()): number | undefined {
	const value = Array.isArray(header) ? header[0] : header;
	if (typeof value === 'number') return value >= 0 ? value : undefined;
	if (typeof value !== 'string' || value.trim() === '') return undefined;
	if (/^\d+(\.\d+)?$/.test(value.trim())) return Number(value.trim());
	const date = Date.parse(value);
	if (Number.isNaN(date)) return undefined;
	return Math.max(0, Math.ceil((date - now) / 1000));
}

/** Replaces every occurrence of each secret in a text; secrets shorter than 4 characters are left (too common). */
export function redact(value: string, secrets: Array<string | undefined>): string {
	let out = value;
	for (const secret of secrets) {
		if (secret && secret.length >= 4) out = out.split(secret).join('***');
	}
	return out;
}

/** Deep copy of a JSON value with every secret redacted in its strings. */
export function redactDeep<T>(value: T, secrets: Array<string | undefined>): T {
	if (typeof value === 'string') return redact(value, secrets) as T;
	if (Array.isArray(value)) return value.map((entry) => redactDeep(entry, secrets)) as T;
	if (isObject(value)) {
		const out: Json = {};
		for (const [key, entry] of Object.entries(value)) out[key] = redactDeep(entry, secrets);
		return out as T;
	}
	return value;
}
