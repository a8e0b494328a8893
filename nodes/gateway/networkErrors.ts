/**
 * The network's error codes that the gateway passes through (Meta's `error.code`, in a send's error answer or in a
 * `failed` status notification): what each means for a user, what to do, and how far a refusal reaches; how a
 * refusal reads in an item's error; and the run's breaker, which stops the sends a refusal would reach. Pure: no n8n
 * imports, tested directly. The one table of these codes: the trigger's status items (reason, hint), the send's
 * stop-the-run rule and docs/network-errors.md read it from here.
 *
 * Scope says what else the same answer will refuse:
 * - `account`: every further message of the run (the key, the account or the phone number is refused or blocked);
 * - `template`: every further message that uses the same template;
 * - `recipient`: this recipient only (others go on);
 * - `message`: this message only (its content is wrong);
 * - `rate`: nothing by itself: a limit that passes (the run waits and sends again: actions/message/run.ts).
 */

export type NetworkErrorScope = 'account' | 'template' | 'recipient' | 'message' | 'rate';

export interface NetworkErrorInfo {
	/** The network's code; undefined when the failure carried none. */
	readonly code: number | undefined;
	readonly scope: NetworkErrorScope;
	/** What happened, in plain words. */
	readonly reason: string;
	/** What to do about it. */
	readonly hint: string;
}

type Entry = Omit<NetworkErrorInfo, 'code'>;

const KNOWN: Readonly<Record<number, Entry>> = {
	0: {
		scope: 'account',
		reason: 'The network refused the account\'s authentication.',
		hint: 'Check the API key and the account\'s access with the gateway\'s provider.',
	},
	10: {
		scope: 'account',
		reason: 'The account has no permission for this action.',
		hint: 'Ask the gateway\'s provider to grant the permission to this phone number.',
	},
	190: {
		scope: 'account',
		reason: 'The account\'s access token expired.',
		hint: 'Ask the gateway\'s provider to renew the account\'s access.',
	},
	368: {
		scope: 'account',
		reason: 'The account is temporarily blocked for policy violations.',
		hint: 'Stop sending and check the account\'s quality and policy notices with the gateway\'s provider.',
	},
	130429: {
		scope: 'rate',
		reason: 'The phone number\'s message throughput was reached.',
		hint: 'Send more slowly: set Sending > Messages per Second to what the phone number allows (docs/sending.md says where to read it).',
	},
	131000: {
		scope: 'message',
		reason: 'The network failed to send the message for an unknown reason.',
		hint: 'Try again later; if it persists, ask the gateway\'s provider.',
	},
	131005: {
		scope: 'account',
		reason: 'Access to the account was denied.',
		hint: 'Check the account\'s permissions with the gateway\'s provider.',
	},
	131008: {
		scope: 'message',
		reason: 'A required parameter of the message is missing.',
		hint: 'Fill in every required field of the message.',
	},
	131009: {
		scope: 'message',
		reason: 'A parameter of the message has a value the network does not accept.',
		hint: 'Check the message\'s fields against the network\'s limits.',
	},
	131021: {
		scope: 'recipient',
		reason: 'The recipient is the sending phone number itself.',
		hint: 'Send to another number.',
	},
	131026: {
		scope: 'recipient',
		reason: 'The message could not be delivered to this number (not on the network, an old app version, or it has not accepted the latest terms).',
		hint: 'Check the number; reach this person another way.',
	},
	131031: {
		scope: 'account',
		reason: 'The business account is locked.',
		hint: 'Stop sending and resolve the lock with the gateway\'s provider.',
	},
	131042: {
		scope: 'account',
		reason: 'The business account has a payment problem.',
		hint: 'Fix the account\'s payment method with the gateway\'s provider.',
	},
	131047: {
		scope: 'recipient',
		reason: 'More than 24 hours have passed since the recipient last wrote: a free-form message is outside the customer-service window.',
		hint: 'Send an approved template instead (Message Type: Template).',
	},
	131048: {
		scope: 'account',
		reason: 'The phone number is restricted for sending too many messages that were blocked or reported as spam.',
		hint: 'Stop sending; check the number\'s quality rating before sending again.',
	},
	131049: {
		scope: 'recipient',
		reason: 'The network chose not to deliver this marketing message, to keep the recipient\'s engagement healthy (per-user marketing limit).',
		hint: 'Do not retry at once; try again later or with another template category.',
	},
	131050: {
		scope: 'recipient',
		reason: 'The recipient stopped marketing messages from this business.',
		hint: 'Do not send marketing messages to this recipient.',
	},
	131051: {
		scope: 'message',
		reason: 'The message type is not supported.',
		hint: 'Send another message type.',
	},
	131052: {
		scope: 'message',
		reason: 'The media of the message could not be downloaded by the network.',
		hint: 'Upload the media again and send it with its new ID.',
	},
	131053: {
		scope: 'message',
		reason: 'The media could not be uploaded (unsupported format or size).',
		hint: 'Check the media\'s format and size against the network\'s limits.',
	},
	131056: {
		scope: 'rate',
		reason: 'Too many messages were sent to this recipient in a short time (pair rate limit).',
		hint: 'Send to this recipient less often: Sending > Interval per Recipient spaces the messages to one recipient (the network allows about one every 6 seconds).',
	},
	132000: {
		scope: 'message',
		reason: 'The number of template parameters does not match the template.',
		hint: 'Give a value for each placeholder of the template, no more.',
	},
	132001: {
		scope: 'template',
		reason: 'The template does not exist in this language.',
		hint: "Check the template's name and language: both must match an approved template letter for letter (Template > Get reads a template by its ID).",
	},
	132005: {
		scope: 'message',
		reason: 'The template\'s text with its parameters is too long.',
		hint: 'Shorten the parameter values.',
	},
	132007: {
		scope: 'template',
		reason: 'The template\'s content breaks a network policy.',
		hint: 'Edit the template and have it approved again.',
	},
	132012: {
		scope: 'message',
		reason: 'A template parameter has the wrong format.',
		hint: 'Give each parameter in the format the template expects.',
	},
	132015: {
		scope: 'template',
		reason: 'The template is paused because of its low quality.',
		hint: 'Edit the template or use another approved template.',
	},
	132016: {
		scope: 'template',
		reason: 'The template is disabled because it was paused too many times.',
		hint: 'Create a new template; this one cannot be sent again.',
	},
	133010: {
		scope: 'account',
		reason: 'The phone number is not registered on the network.',
		hint: 'Register the phone number with the gateway\'s provider.',
	},
};

const UNKNOWN_HINT = 'Look the code up in the network\'s error codes, or ask the gateway\'s provider.';

/** The codes with an entry, in order (docs/network-errors.md lists them all; a test checks that it does). */
export const KNOWN_NETWORK_ERROR_CODES: readonly number[] = Object.keys(KNOWN)
	.map(Number)
	.sort((a, b) => a - b);

/** Reads a code as it may come (number or numeric text); undefined when it is no code. */
export function readNetworkCode(value: unknown): number | undefined {
	if (typeof value === 'number' && Number.isInteger(value)) return value;
	if (typeof value === 'string' && /^\d+$/.test(value.trim())) return Number(value.trim());
	return undefined;
}

/** The entry of a known code; undefined for any other. */
export function knownNetworkError(code: unknown): NetworkErrorInfo | undefined {
	const number = readNetworkCode(code);
	if (number === undefined) return undefined;
	const entry = KNOWN[number];
	return entry ? { code: number, ...entry } : undefined;
}

/**
 * Reason and hint for any failure: a known code's own; for another code the network's own text (`title`, `message`)
 * as the reason, with a generic hint. Unknown codes are scoped `message`: they never stop a run.
 */
export function explainNetworkCode(code: unknown, networkText?: string): NetworkErrorInfo {
	const known = knownNetworkError(code);
	if (known) return known;
	const text = networkText?.trim();
	return {
		code: readNetworkCode(code),
		scope: 'message',
		reason: text ? `The network refused the message: ${text}` : 'The network refused the message.',
		hint: UNKNOWN_HINT,
	};
}

// ---- How a refusal reads ----

/**
 * How a gateway refusal (an answer of 4xx) reads: like the node's own checks, it names the item, the field the refusal
 * points at when the node can tell (by the network's code, or by the operation for a 404 of an id), and ends with
 * that nothing was sent for the item.
 */
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
 * so the table's general hint is left out.
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

// ---- How far a refusal reaches: the run's breaker ----

/**
 * The run's breaker: one refusal that every further message would get too stops new sends at once. What a refusal
 * reaches is the `scope` of its network code in the table above; an HTTP 401 or 403 of the gateway itself (the API key
 * refused) reaches every message as well.
 *
 * - `account`: no further message of the run is sent;
 * - `template`: no further message with the same template (name and language) is sent; the others go on;
 * - any other scope (a recipient, one message, a rate limit) stops nothing.
 */
export interface Refusal {
	scope: 'account' | 'template';
	/** The item whose answer tripped the breaker. */
	itemIndex: number;
	/** Why, in words that finish "because ...". */
	reason: string;
	/** For a template refusal: the template's name and language. */
	template?: string;
}

/**
 * What a failed send's answer reaches beyond its item: `httpCode` is the gateway's HTTP status, `code` the network's
 * error code in the answer (Meta's `error.code`), `template` the message's template. Undefined: nothing beyond it.
 */
export function refusalOf(
	itemIndex: number,
	answer: { httpCode?: string; code?: unknown; template?: string },
): Refusal | undefined {
	if (answer.httpCode === '401' || answer.httpCode === '403') {
		return { scope: 'account', itemIndex, reason: `the gateway refused the API key (HTTP ${answer.httpCode})` };
	}
	const status = Number(answer.httpCode);
	// Only a refusal (4xx) says something about the next message; a 5xx or a lost answer does not.
	if (!(status >= 400 && status < 500)) return undefined;
	const known = knownNetworkError(answer.code);
	if (!known) return undefined;
	const reason = known.reason.replace(/\.$/, '');
	const lowered = reason.charAt(0).toLowerCase() + reason.slice(1);
	if (known.scope === 'account') return { scope: 'account', itemIndex, reason: `${lowered} (code ${known.code})` };
	if (known.scope === 'template' && answer.template) {
		return { scope: 'template', itemIndex, template: answer.template, reason: `template ${answer.template}: ${lowered} (code ${known.code})` };
	}
	return undefined;
}

/** The error text of an item not sent because of a refusal. */
export function notSentText(itemIndex: number, refusal: Refusal): string {
	return `Not sent (item ${itemIndex}): the run stopped after item ${refusal.itemIndex} because ${refusal.reason}`;
}
