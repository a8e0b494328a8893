/**
 * Pure parts of Send and Wait for Response: the message text with its response links, the moment the wait ends,
 * and the small HTML pages the recipient sees after opening a link. No n8n imports, tested directly.
 */
import { MessageInputError } from './types/common';

export type ResponseType = 'approval' | 'freeText';

export interface ApprovalOptions {
	approvalType?: 'single' | 'double';
	approveLabel?: string;
	disapproveLabel?: string;
}

export interface ResponseLink {
	label: string;
	url: string;
}

export const DEFAULT_LABELS = { approve: 'Approve', decline: 'Decline', respond: 'Respond' } as const;

/**
 * The links of the message, in the order they are shown. `signedUrl` is n8n's getSignedResumeUrl: each answer is
 * its own signed link, so a recipient cannot turn a decline into an approval by editing the address.
 */
export function responseLinks(
	responseType: ResponseType,
	approval: ApprovalOptions,
	respondLabel: string | undefined,
	signedUrl: (query?: Record<string, string>) => string,
): ResponseLink[] {
	if (responseType === 'freeText') return [{ label: label(respondLabel, DEFAULT_LABELS.respond), url: signedUrl() }];
	const approve = { label: label(approval.approveLabel, DEFAULT_LABELS.approve), url: signedUrl({ approved: 'true' }) };
	if (approval.approvalType !== 'double') return [approve];
	return [approve, { label: label(approval.disapproveLabel, DEFAULT_LABELS.decline), url: signedUrl({ approved: 'false' }) }];
}

function label(value: string | undefined, fallback: string): string {
	return value?.trim() || fallback;
}

/**
 * The text message: the user's message, then each link under its label in the network's *bold*. The address stays
 * alone on its line and unformatted, so that the app recognises all of it as a link.
 */
export function waitMessageText(message: string, links: ResponseLink[]): string {
	const linkLines = links.map(({ label: text, url }) => `*${text}:*\n${url}`);
	return [message.trim(), ...linkLines].join('\n\n');
}

export interface LimitWaitTime {
	limitType?: 'afterTimeInterval' | 'atSpecifiedTime';
	resumeAmount?: number;
	resumeUnit?: 'minutes' | 'hours' | 'days';
	maxDateAndTime?: string;
}

const UNIT_MS = { minutes: 60_000, hours: 3_600_000, days: 86_400_000 } as const;

/**
 * When the wait ends without an answer: `undefined` for no limit, else a date after `now`. The execution then
 * continues with the input items, as n8n's own send-and-wait nodes do.
 */
export function waitTillOf(limit: LimitWaitTime | undefined, now: Date): Date | undefined {
	if (!limit || limit.limitType === undefined) return undefined;
	const field = 'Options › Limit Wait Time';
	if (limit.limitType === 'atSpecifiedTime') {
		const date = new Date(String(limit.maxDateAndTime ?? ''));
		if (Number.isNaN(date.getTime())) {
			throw new MessageInputError(`${field} › Max Date and Time`, `"${String(limit.maxDateAndTime ?? '')}" is not a date`);
		}
		if (date.getTime() <= now.getTime()) {
			throw new MessageInputError(`${field} › Max Date and Time`, `${date.toISOString()} is in the past`);
		}
		return date;
	}
	const amount = Number(limit.resumeAmount);
	const unit = UNIT_MS[limit.resumeUnit ?? 'hours'];
	if (!Number.isFinite(amount) || amount <= 0 || unit === undefined) {
		throw new MessageInputError(`${field} › Amount`, `must be a positive number of ${limit.resumeUnit ?? 'hours'}`);
	}
	return new Date(now.getTime() + amount * unit);
}

export function escapeHtml(text: string): string {
	return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** A small self-contained page for a phone screen: no scripts, no outside resources. */
function page(title: string, body: string): string {
	return `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>body{font-family:system-ui,sans-serif;max-width:32rem;margin:3rem auto;padding:0 1rem;color:#222}
p{white-space:pre-wrap;line-height:1.4}textarea{width:100%;min-height:8rem;font:inherit;box-sizing:border-box}
button{font:inherit;padding:.7rem 1.4rem;margin-top:1rem;border:0;border-radius:.4rem;background:#1f7a4d;color:#fff}</style>
</head><body>${body}</body></html>`;
}

/**
 * Asks before recording an approval. The form posts back to the address it was opened with (no action attribute),
 * which keeps the signed query, so only a deliberate tap answers; link previews and scanners only read the page.
 */
export function confirmationPage(choiceLabel: string, message: string): string {
	return page(
		choiceLabel,
		`<h1>${escapeHtml(choiceLabel)}?</h1><p>${escapeHtml(message)}</p>
<form method="post"><button type="submit">${escapeHtml(choiceLabel)}</button></form>`,
	);
}

/** Field name of the free-text answer in the form's body. */
export const RESPONSE_FIELD = 'response';

export function responseFormPage(title: string, description: string, buttonLabel: string, problem = ''): string {
	return page(
		title || 'Your response',
		`${title ? `<h1>${escapeHtml(title)}</h1>` : ''}<p>${escapeHtml(description)}</p>
${problem ? `<p role="alert"><strong>${escapeHtml(problem)}</strong></p>` : ''}<form method="post">
<textarea name="${RESPONSE_FIELD}" required aria-label="Your response"></textarea>
<button type="submit">${escapeHtml(buttonLabel || 'Submit')}</button></form>`,
	);
}

export const RECORDED_PAGE = page('Response recorded', '<h1>Got it, thanks</h1><p>Your response was recorded. You can close this page.</p>');

/** The free-text answer from a form post: a parsed body, or the raw url-encoded bytes when the body was not parsed. */
export function readFormResponse(body: unknown, rawBody: unknown): string {
	if (typeof body === 'object' && body !== null && RESPONSE_FIELD in body) {
		return String((body as Record<string, unknown>)[RESPONSE_FIELD] ?? '').trim();
	}
	const raw = Buffer.isBuffer(rawBody) ? rawBody.toString('utf8') : typeof body === 'string' ? body : '';
	return (new URLSearchParams(raw).get(RESPONSE_FIELD) ?? '').trim();
}
