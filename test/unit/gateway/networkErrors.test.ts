/**
 * The network's error codes: each known code has a reason and a hint, the docs' table lists exactly the known codes
 * with the texts the package shows, and an unknown code keeps its code and the network's text with a generic hint.
 */
import * as fs from 'fs';
import * as path from 'path';

import {
	KNOWN_NETWORK_ERROR_CODES,
	explainNetworkCode,
	knownNetworkError,
	readNetworkCode,
} from '../../../nodes/gateway/networkErrors';

const docsTable = fs.readFileSync(path.resolve(__dirname, '../../../docs/network-errors.md'), 'utf8');

describe('the network error table', () => {
	it('names the failures a campaign meets most, with the scope that decides what else they stop', () => {
		expect(knownNetworkError(131047)).toMatchObject({ scope: 'recipient', hint: expect.stringMatching(/template/i) });
		expect(knownNetworkError(131026)?.scope).toBe('recipient');
		expect(knownNetworkError(131049)?.scope).toBe('recipient');
		expect(knownNetworkError(132015)?.scope).toBe('template');
		expect(knownNetworkError(132016)?.scope).toBe('template');
		expect(knownNetworkError(132001)?.scope).toBe('template');
		expect(knownNetworkError(131031)?.scope).toBe('account');
		expect(knownNetworkError(131042)?.scope).toBe('account');
		expect(knownNetworkError(368)?.scope).toBe('account');
		expect(knownNetworkError(130429)?.scope).toBe('rate');
	});

	it.each(KNOWN_NETWORK_ERROR_CODES.map((code) => [code]))('code %i is in the docs with its reason and hint', (code) => {
		const entry = knownNetworkError(code)!;
		expect(entry.reason.length).toBeGreaterThan(10);
		expect(entry.hint.length).toBeGreaterThan(10);
		expect(docsTable).toContain(`| ${code} | ${entry.scope} | ${entry.reason} | ${entry.hint} |`);
	});

	it('lists no code in the docs that the package does not know', () => {
		const documented = [...docsTable.matchAll(/^\| (\d+) \|/gm)].map((m) => Number(m[1]));
		expect(documented).toEqual(KNOWN_NETWORK_ERROR_CODES);
	});

	it('reads a code given as a number or as numeric text, and nothing else', () => {
		expect(readNetworkCode(131047)).toBe(131047);
		expect(readNetworkCode(' 131047 ')).toBe(131047);
		expect(readNetworkCode('abc')).toBeUndefined();
		expect(readNetworkCode(1.5)).toBeUndefined();
		expect(knownNetworkError('132015')?.code).toBe(132015);
	});

	it('keeps an unknown code and the network\'s text, with a generic hint, scoped to the message only', () => {
		const unknown = explainNetworkCode(999999, 'Something new');
		expect(unknown).toEqual({
			code: 999999,
			scope: 'message',
			reason: 'The network refused the message: Something new',
			hint: expect.stringMatching(/error codes|provider/),
		});
		expect(explainNetworkCode(undefined).code).toBeUndefined();
		expect(explainNetworkCode(131047).reason).toMatch(/24 hours/);
	});
});
