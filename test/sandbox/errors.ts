/**
 * Error answers of the sandbox gateway. The gateway's own error shape is not documented (spec section 7), so every
 * error answers Meta's shape, which a gateway in front of the network passes through (docs/gateway.md). That way the node's
 * error reader is exercised by every refusal, and the message always names the offending field or rule.
 *
 * One exception: a refused API key is the gateway's own answer, given before anything reaches the network, so it
 * carries no network code (docs/gateway.md, Decisions): a 401 whose body is `{ message }`.
 */

/** A refusal: the HTTP status and the Meta-shaped error body. Thrown by the validators, answered by the server. */
export class GatewayError extends Error {
	constructor(
		readonly status: number,
		message: string,
		readonly options: { type?: string; code?: number; details?: string; headers?: Record<string, string>; keyRefused?: boolean } = {},
	) {
		super(message);
	}

	body(): MetaErrorBody | KeyRefusedBody {
		if (this.options.keyRefused) return keyRefusedBody(this.message);
		return errorBody(this.message, this.options.type ?? errorTypeOf(this.status), this.options.code ?? codeOf(this.status), this.options.details);
	}
}

/** The gateway's answer to a missing, unknown or revoked API key: no network code, only what was wrong. */
export interface KeyRefusedBody {
	message: string;
}

export function keyRefusedBody(message: string): KeyRefusedBody {
	return { message };
}

/** A refused API key: 401 with the gateway's own body (no network code; docs/gateway.md, Decisions). */
export function keyRefused(message: string): GatewayError {
	return new GatewayError(401, message, { keyRefused: true });
}

export interface MetaErrorBody {
	error: { message: string; type: string; code: number; error_data: { details: string }; fbtrace_id: string };
}

export function errorBody(message: string, type: string, code: number, details?: string): MetaErrorBody {
	return { error: { message, type, code, error_data: { details: details ?? message }, fbtrace_id: 'sandbox' } };
}

/** A request body that does not match the spec: 400 with Meta's "invalid parameter" code. */
export function invalid(field: string, problem: string): GatewayError {
	return new GatewayError(400, `Invalid parameter: ${field} ${problem}`, { details: `${field}: ${problem}` });
}

function errorTypeOf(status: number): string {
	if (status === 404) return 'NotFound';
	if (status >= 500) return 'ServerError';
	return 'OAuthException';
}

/** Meta's numeric codes where one is well known: 100 invalid parameter, 130429 throughput, 2 a service error. */
function codeOf(status: number): number {
	if (status === 429) return 130429;
	if (status >= 500) return 2;
	return 100;
}
