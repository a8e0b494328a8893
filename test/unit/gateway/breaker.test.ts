/** The run's breaker (refusalOf in nodes/gateway/networkErrors.ts, RunBreaker in actions/message/schedule.ts): which refusals stop what. */
import { notSentText, refusalOf } from '../../../nodes/gateway/networkErrors';
import { RunBreaker, templateOf } from '../../../nodes/MessagingGateway/actions/message/schedule';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

import { KNOWN_NETWORK_ERROR_CODES, knownNetworkError } from '../../../nodes/gateway/networkErrors';

describe('what a refusal reaches', () => {
	it.each(['401', '403'])('an HTTP %s of the gateway (the API key refused) reaches every message', (httpCode) => {
		expect(refusalOf(2, { httpCode })).toEqual({ scope: 'account', itemIndex: 2, reason: `the gateway refused the API key (HTTP ${httpCode})` });
	});

	it('follows the scope of every code in the table of network errors', () => {
		for (const code of KNOWN_NETWORK_ERROR_CODES) {
			const refusal = refusalOf(0, { httpCode: '400', code, template: 'promo (en)' });
			const scope = knownNetworkError(code)?.scope;
			expect([code, refusal?.scope]).toEqual([code, scope === 'account' || scope === 'template' ? scope : undefined]);
		}
	});

	it('a per-recipient refusal (131026) or an unknown code stops nothing', () => {
		expect(refusalOf(0, { httpCode: '400', code: 131026 })).toBeUndefined();
		expect(refusalOf(0, { httpCode: '400', code: 999999 })).toBeUndefined();
	});

	it('a 5xx or a lost answer says nothing about the next message, whatever its code', () => {
		expect(refusalOf(0, { httpCode: '502', code: 368 })).toBeUndefined();
		expect(refusalOf(0, { code: 368 })).toBeUndefined();
	});

	it('a template refusal needs the template; its code may come as text', () => {
		expect(refusalOf(1, { httpCode: '400', code: '132015', template: 'promo (en)' })).toMatchObject({ scope: 'template', template: 'promo (en)' });
		expect(refusalOf(1, { httpCode: '400', code: 132015 })).toBeUndefined();
	});
});

describe('the breaker', () => {
	it('an account refusal blocks every message; the first one is kept', () => {
		const breaker = new RunBreaker();
		expect(breaker.blocking(undefined)).toBeUndefined();
		breaker.trip({ scope: 'account', itemIndex: 2, reason: 'first' });
		breaker.trip({ scope: 'account', itemIndex: 3, reason: 'second' });
		expect(breaker.blocking(undefined)?.reason).toBe('first');
		expect(breaker.blocking('promo (en)')?.reason).toBe('first');
		expect(breaker.trippedBy(2)?.reason).toBe('first');
	});

	it('a template refusal blocks that template only', () => {
		const breaker = new RunBreaker();
		breaker.trip({ scope: 'template', itemIndex: 1, template: 'promo (en)', reason: 'paused' });
		expect(breaker.blocking('promo (en)')?.itemIndex).toBe(1);
		expect(breaker.blocking('promo (pt_BR)')).toBeUndefined();
		expect(breaker.blocking(undefined)).toBeUndefined();
	});

	it('names the item not sent and the item that stopped the run', () => {
		expect(notSentText(7, { scope: 'account', itemIndex: 2, reason: 'the gateway refused the API key (HTTP 401)' })).toBe(
			'Not sent (item 7): the run stopped after item 2 because the gateway refused the API key (HTTP 401)',
		);
	});
});

describe('a message\'s template', () => {
	it('is its name and language; other messages have none', () => {
		expect(templateOf({ type: 'template', template: { name: 'promo', language: { code: 'en' } } })).toBe('promo (en)');
		expect(templateOf({ type: 'text', text: { body: 'hi' } })).toBeUndefined();
	});
});

describe('docs/campaigns.md', () => {
	it("lists the codes of each scope that stops a run, as the table of network errors has them", () => {
		const docs = readFileSync(join(__dirname, '../../../docs/campaigns.md'), 'utf8');
		for (const scope of ['account', 'template'] as const) {
			const listed = new RegExp(`network codes of scope \\*\\*${scope}\\*\\*: ([\\d, ]+) \\|`).exec(docs)?.[1];
			const codes = KNOWN_NETWORK_ERROR_CODES.filter((code) => knownNetworkError(code)?.scope === scope);
			expect(listed?.split(', ').map(Number)).toEqual(codes);
		}
	});
});
