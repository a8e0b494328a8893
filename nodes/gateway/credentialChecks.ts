/**
 * What the credential test can check beyond the key, as pure functions (no n8n imports, tested directly).
 *
 * The gateway tells a caller its phone only on webhooks: `GET /api/Webhooks` lists each webhook with the `phone_id`
 * of the account it was registered under (spec 2.4, 4.3). No endpoint lists an account's phones, so a Phone ID can
 * be checked only when the account has a webhook; otherwise the test says it was not checked.
 */
import { readDefaultCountry } from './phone';

/** The Default Country field, or the sentence that says what is wrong with it. */
export function defaultCountryProblem(value: unknown): string | undefined {
	const read = readDefaultCountry(value);
	return 'problem' in read ? `Default Country ${read.problem}` : undefined;
}

/** The phone ids the gateway lists on the account's webhooks (a list answer per spec 4.3); [] when it shows none. */
export function phoneIdsOfWebhookList(body: unknown): string[] {
	const webhooks = typeof body === 'object' && body !== null ? (body as { webhooks?: unknown }).webhooks : undefined;
	if (!Array.isArray(webhooks)) return [];
	const ids = new Set<string>();
	for (const webhook of webhooks) {
		const phoneId = typeof webhook === 'object' && webhook !== null ? (webhook as { phone_id?: unknown }).phone_id : undefined;
		if (typeof phoneId === 'string' && phoneId.trim() !== '') ids.add(phoneId.trim());
	}
	return [...ids];
}

export type PhoneIdVerdict = { checked: true } | { checked: false; note: string } | { problem: string };

/** Whether the Phone ID is one the gateway knows for this key, judged by the phone ids on its webhooks. */
export function judgePhoneId(phoneId: string, knownPhoneIds: string[]): PhoneIdVerdict {
	if (knownPhoneIds.length === 0) {
		return {
			checked: false,
			note: 'Phone ID not checked: the gateway shows an account\'s phone only on its webhooks, and this key has none yet',
		};
	}
	if (knownPhoneIds.includes(phoneId)) return { checked: true };
	const known = knownPhoneIds.slice(0, 3).join(', ') + (knownPhoneIds.length > 3 ? ', ...' : '');
	return {
		problem: `Phone ID ${phoneId} is not a phone of this API key: its webhooks are for ${known}. The trigger's Only This Phone would drop every message of the real phone.`,
	};
}
