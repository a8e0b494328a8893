/**
 * The run's breaker: one refusal that every further message would get too stops new sends at once. Pure: no n8n
 * imports. What a refusal reaches is the `scope` of its network code in nodes/gateway/networkErrors.ts (the one
 * table, listed in docs/network-errors.md); an HTTP 401 or 403 of the gateway itself (the API key refused) reaches
 * every message as well.
 *
 * - `account`: no further message of the run is sent;
 * - `template`: no further message with the same template (name and language) is sent; the others go on;
 * - any other scope (a recipient, one message, a rate limit) stops nothing.
 */
import { knownNetworkError } from '../../../gateway/networkErrors';

export interface Refusal {
	scope: 'account' | 'template';
	/** The item whose answer tripped the breaker. */
	itemIndex: number;
	/** Why, in words that finish "because ...". */
	reason: string;
	/** For a template refusal: the template's name and language. */
	template?: string;
}

/** A template message's identity (name and language), or undefined for another message. */
export function templateOf(body: unknown): string | undefined {
	const template = (body as { template?: { name?: unknown; language?: { code?: unknown } } } | undefined)?.template;
	if (!template || typeof template.name !== 'string') return undefined;
	const language = typeof template.language?.code === 'string' ? template.language.code : '';
	return `${template.name} (${language})`;
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

export class RunBreaker {
	private account: Refusal | undefined;
	private readonly templates = new Map<string, Refusal>();

	/** Remembers a refusal; the first one of each kind (the account, each template) is kept. */
	trip(refusal: Refusal): void {
		if (refusal.scope === 'account') this.account ??= refusal;
		else if (refusal.template && !this.templates.has(refusal.template)) this.templates.set(refusal.template, refusal);
	}

	/** Items the breaker stopped before their request (counted by `stop`). */
	stoppedItems = 0;

	/** The refusal that stops a message (with this template), or undefined: it may be sent. */
	blocking(template: string | undefined): Refusal | undefined {
		return this.account ?? (template === undefined ? undefined : this.templates.get(template));
	}

	/** As `blocking`, and counts the item as stopped when a refusal stops it. */
	stop(template: string | undefined): Refusal | undefined {
		const refusal = this.blocking(template);
		if (refusal) this.stoppedItems++;
		return refusal;
	}

	/** The refusal an item's answer tripped, if it tripped one. */
	trippedBy(itemIndex: number): Refusal | undefined {
		if (this.account?.itemIndex === itemIndex) return this.account;
		return [...this.templates.values()].find((refusal) => refusal.itemIndex === itemIndex);
	}
}

/** The error text of an item not sent because of a refusal. */
export function notSentText(itemIndex: number, refusal: Refusal): string {
	return `Not sent (item ${itemIndex}): the run stopped after item ${refusal.itemIndex} because ${refusal.reason}`;
}
