/**
 * How a gateway refusal (an answer of 4xx) reads: like the node's own checks, it names the item, the field the refusal
 * points at when the node can tell (by the network's code, networkErrors.ts, or by the operation for a 404 of an id),
 * and ends with that nothing was sent for the item. Pure: no n8n imports, tested directly.
 */
import { knownNetworkError } from './networkErrors';

/** Where a refusal happened: the operation, and for Message > Send how its template was given. */
export interface RefusalContext {
	resource: string;
	operation: string;
	/** Message > Send's Template Details: `manual` (by name and language) or `fromTemplate` (by ID). */
	templateSource?: string;
}

/** The fields (as the editor shows them) a template message's parameters are given in, by Template Details. */
const TEMPLATE_PARAMETER_FIELDS: Record<string, string[]> = {
	manual: ['Body Parameters', 'URL Button Parameters'],
	fromTemplate: ['Template Parameters'],
};
const TEMPLATE_FIELDS: Record<string, string[]> = {
	manual: ['Template Name', 'Language Code'],
	fromTemplate: ['Template ID'],
};
/** The network's code of a template that does not exist in the language asked for. */
const TEMPLATE_MISSING_CODE = 132001;
/** Codes that point at the template's parameters rather than at the template. */
const TEMPLATE_PARAMETER_CODES = new Set([132000, 132005, 132012]);

/** Operations whose one id field a 404 points at. */
const ID_FIELDS: Record<string, string> = {
	'template:get': 'Template ID',
	'template:edit': 'Template ID',
	'message:markAsRead': 'Message ID',
};

/** The fields a refusal points at; empty when the node cannot tell. */
export function refusedFields(context: RefusalContext, status: number, code: unknown): string[] {
	const key = `${context.resource}:${context.operation}`;
	const known = knownNetworkError(code);
	const sends = key === 'message:send' || key === 'message:sendAndWait';
	if (sends && known?.scope === 'recipient') return ['Recipient Phone Number'];
	if (key === 'message:send' && known?.code === TEMPLATE_MISSING_CODE) return TEMPLATE_FIELDS[context.templateSource ?? 'manual'] ?? [];
	if (key === 'message:send' && known && TEMPLATE_PARAMETER_CODES.has(known.code as number)) {
		return TEMPLATE_PARAMETER_FIELDS[context.templateSource ?? 'manual'] ?? [];
	}
	if (status === 404 && ID_FIELDS[key]) return [ID_FIELDS[key]];
	// By ID, the template is read before the send: a 404 without a network code is that read.
	if (key === 'message:send' && status === 404 && !known && context.templateSource === 'fromTemplate') return ['Template ID'];
	return [];
}

const quoted = (fields: string[]): string => fields.map((field) => `"${field}"`).join(' or ');

/** The gateway's message with the item named: "The gateway answered 404 for item 0: ...". */
export function refusalMessage(message: string, itemIndex: number): string {
	if (message.includes(`item ${itemIndex}`)) return message;
	const named = message.replace(/^(The gateway answered \d{3})/, `$1 for item ${itemIndex}`);
	return named === message ? `${message} (item ${itemIndex})` : named;
}

/**
 * The description of a refusal: what the network's code means and what to do (when known), the fields to check, the
 * gateway's own words (quoted, so that they read as the gateway's), then that nothing was sent for the item.
 *
 * A template that does not exist (132001) with the fields named: the sentence about the fields says what to check,
 * so the table's general hint is left out (it sends to Template > Get, which reads a template by its ID only, not
 * by the name that was mistyped).
 */
export function refusalDescription(options: {
	itemIndex: number;
	fields: string[];
	code?: unknown;
	gatewayDescription?: string;
	/** The answer's HTTP status: a 401 or 403 is the credential's API key, whatever network code the body holds. */
	status?: number;
}): string {
	if (options.status === 401 || options.status === 403) return keyRefusedDescription(options.status, options.gatewayDescription);
	const known = knownNetworkError(options.code);
	const parts: string[] = [];
	const missingTemplate = known?.code === TEMPLATE_MISSING_CODE && options.fields.length > 0;
	if (known) parts.push(known.reason);
	if (known && !missingTemplate) parts.push(known.hint);
	if (options.fields.length) {
		const byName = missingTemplate && options.fields.join() === TEMPLATE_FIELDS.manual.join();
		parts.push(
			byName
				? `Check ${quoted(options.fields)} of item ${options.itemIndex}: both must be those of an approved template, letter for letter.`
				: `Check ${quoted(options.fields)} of item ${options.itemIndex}.`,
		);
	}
	parts.push(...gatewaySaid(options.gatewayDescription), 'Nothing was sent for this item.');
	return parts.join(' ');
}

/** The gateway's further words, quoted so that they read as the gateway's; none when it gave none. */
function gatewaySaid(description: string | undefined): string[] {
	const words = description?.trim().replace(/[.\s]+$/, '');
	return words ? [`The gateway said: "${words}".`] : [];
}

/**
 * A 401 or 403 of the gateway: its own refusal of the credential's API key (docs/gateway.md, Decisions), said as such
 * and pointing at the credential's Test, which checks the key alone. A network code in the body (Meta's 190, an
 * expired access token) would send the user after the account's access instead of the key they mistyped.
 */
export function keyRefusedDescription(status: number, gatewayDescription?: string): string {
	const parts = [
		`The gateway refused the credential's API key (HTTP ${status}).`,
		'Correct API Key in the Messaging Gateway credential, then click Test on the credential screen: it says whether the gateway takes the key.',
	];
	parts.push(...gatewaySaid(gatewayDescription), 'Nothing was sent for this item.');
	return parts.join(' ');
}
