/**
 * The recipient as both nodes show it for a join: the send output's `recipient` and the trigger's status item
 * `recipient` are the same digits-only form of the network id (`wa_id` in the send answer, `recipient_id` in a status),
 * so one expression matches a status to the message it is about (docs/trigger.md). Pure: no n8n imports.
 */

/** `+55 11 98888-7777` or `5511988887777` → `5511988887777`; null when the value holds no digit. */
export function recipientDigits(value: unknown): string | null {
	const text = typeof value === 'string' ? value : typeof value === 'number' && Number.isFinite(value) ? String(value) : null;
	if (text === null) return null;
	const digits = text.replace(/\D/g, '');
	return digits === '' ? null : digits;
}
