/**
 * The network's limits on sending (throughput.ts): the phone's throughput in a sliding 1,000 ms window (400, code
 * 130429), the pair rate per recipient (400, code 131056), the 429 mode, the control API and reset. The sandbox's
 * clock is the test's, so windows are exact whatever the machine's load.
 */
import { CHANNEL } from '../../nodes/gateway/spec';
import { message, sendMessage, TO } from './helpers';
import { startSandbox, type Sandbox, type SandboxOptions } from './server';
import { PAIR_RATE_DETAILS } from './throughput';

let clock = Date.UTC(2026, 0, 10, 12);
const sandboxes: Sandbox[] = [];
async function sandboxWith(options: SandboxOptions = {}): Promise<Sandbox> {
	const sandbox = await startSandbox({ now: () => clock, ...options });
	sandboxes.push(sandbox);
	return sandbox;
}
afterEach(async () => {
	await Promise.all(sandboxes.splice(0).map((sandbox) => sandbox.close()));
});

const text = (to: string, body = 'Olá') => ({ ...message('text', { body }), to });
/** A recipient per number: 5511 9 + 8 digits. */
const recipient = (i: number) => `55119${String(70000000 + i)}`;
/** Sends to distinct recipients at the current clock, one after another; their statuses. */
async function sendTimes(sandbox: Sandbox, count: number, first = 0): Promise<number[]> {
	const statuses: number[] = [];
	for (let i = 0; i < count; i++) statuses.push((await sendMessage(sandbox, text(recipient(first + i)))).status);
	return statuses;
}

const THROUGHPUT_BODY = {
	error: {
		message: '(#130429) Rate limit hit',
		type: 'OAuthException',
		code: 130429,
		error_data: { details: 'Cloud API message throughput has been reached' },
		fbtrace_id: 'sandbox',
	},
};

describe('throughput of the phone', () => {
	it('is off by default: every valid send is accepted, and counted', async () => {
		const sandbox = await sandboxWith();
		const statuses = await Promise.all(Array.from({ length: 120 }, (_, i) => sendMessage(sandbox, text(recipient(i)))));
		expect(statuses.every((answer) => answer.status === 200)).toBe(true);
		expect(sandbox.throughput.settings).toEqual({ perSecond: 0, pairIntervalMs: 0, mode: 'network', retryAfterSeconds: 1 });
		expect(sandbox.throughput.counts).toEqual({ accepted: 120, refusedThroughput: 0, refusedPair: 0 });
	});

	it('accepts perSecond sends in any 1,000 ms and answers the excess 400 with code 130429, as the network', async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 3 } });
		expect(await sendTimes(sandbox, 3, 0)).toEqual([200, 200, 200]);
		const refused = await sendMessage(sandbox, text(recipient(3)));
		expect(refused.status).toBe(400);
		expect(refused.json).toEqual(THROUGHPUT_BODY);
		clock += 999;
		expect(await sendTimes(sandbox, 1, 4)).toEqual([400]);
		clock += 1; // The first three are 1,000 ms old: out of the window.
		expect(await sendTimes(sandbox, 4, 5)).toEqual([200, 200, 200, 400]);
		// The refused requests are recorded with their answer, and counted apart.
		expect(sandbox.requests.map((request) => request.status)).toEqual([200, 200, 200, 400, 400, 200, 200, 200, 400]);
		expect(sandbox.requests[3]).toMatchObject({ route: 'messages', body: text(recipient(3)), responseBody: THROUGHPUT_BODY });
		expect(sandbox.throughput.counts).toEqual({ accepted: 6, refusedThroughput: 3, refusedPair: 0 });
	});

	it('slides: a send is accepted as soon as the oldest accepted one in its window is 1,000 ms old', async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 3 } });
		const at: Array<[number, number]> = [];
		const start = clock;
		for (const offset of [0, 400, 800, 999, 1000, 1100, 1399, 1400, 1800, 2000]) {
			clock = start + offset;
			at.push([offset, (await sendMessage(sandbox, text(recipient(offset)))).status]);
		}
		// Accepted at 0, 400, 800; 999 refused (3 in the window); 1000 accepted (0 left it); 1100 refused (400, 800,
		// 1000); 1399 refused; 1400 accepted (400 left); 1800 accepted (800 left); 2000 accepted (1000 left).
		expect(at).toEqual([
			[0, 200],
			[400, 200],
			[800, 200],
			[999, 400],
			[1000, 200],
			[1100, 400],
			[1399, 400],
			[1400, 200],
			[1800, 200],
			[2000, 200],
		]);
	});

	it('counts refused sends against nothing: a flood of refusals does not keep the phone refused', async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 2 } });
		expect(await sendTimes(sandbox, 2, 0)).toEqual([200, 200]);
		for (let i = 0; i < 5; i++) {
			clock += 150;
			expect(await sendTimes(sandbox, 3, 10 * i + 100)).toEqual([400, 400, 400]);
		}
		clock += 250; // 1,000 ms after the two accepted ones, whatever was refused meanwhile.
		expect(await sendTimes(sandbox, 3, 200)).toEqual([200, 200, 400]);
	});

	it('is shared by every caller of the phone: concurrent sends with two API keys get perSecond accepted in all', async () => {
		const sandbox = await sandboxWith({ extraApiKeys: ['second-caller'], throughput: { perSecond: 10 } });
		const answers = await Promise.all(
			Array.from({ length: 30 }, (_, i) =>
				sendMessage(sandbox, text(recipient(i)), i % 2 ? { apikey: 'second-caller' } : undefined),
			),
		);
		expect(answers.filter((answer) => answer.status === 200)).toHaveLength(10);
		expect(answers.filter((answer) => answer.status === 400 && answer.json.error.code === 130429)).toHaveLength(20);
		expect(sandbox.throughput.counts).toEqual({ accepted: 10, refusedThroughput: 20, refusedPair: 0 });
	});

	it('counts neither a mark-as-read nor an invalid message (its own 400 comes first)', async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 1 } });
		const read = { messaging_product: CHANNEL, status: 'read', message_id: 'wamid.HBgNNTUxMTk4ODg4Nzc3NxUCABIYFDNBQjQ1' };
		expect((await sendMessage(sandbox, read)).status).toBe(200);
		const invalid = await sendMessage(sandbox, { ...text(TO), to: '+55 11' });
		expect(invalid.status).toBe(400);
		expect(invalid.json.error.code).toBe(100);
		expect(await sendTimes(sandbox, 2)).toEqual([200, 400]);
		// Past the limit, a mark-as-read still goes through: only messages are limited.
		expect((await sendMessage(sandbox, read)).status).toBe(200);
		expect(sandbox.throughput.counts).toEqual({ accepted: 1, refusedThroughput: 1, refusedPair: 0 });
	});

	it("mode '429' answers the excess with HTTP 429, Retry-After and the same error body", async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 1, mode: '429' } });
		expect(await sendTimes(sandbox, 1)).toEqual([200]);
		const refused = await sendMessage(sandbox, text(recipient(1)));
		expect(refused.status).toBe(429);
		expect(refused.headers.get('retry-after')).toBe('1');
		expect(refused.json).toEqual(THROUGHPUT_BODY);
		sandbox.setThroughput({ perSecond: 1, mode: '429', retryAfterSeconds: 3 });
		expect((await sendMessage(sandbox, text(recipient(2)))).headers.get('retry-after')).toBe('3');
		expect(sandbox.throughput.counts.refusedThroughput).toBe(2);
	});
});

describe('pair rate', () => {
	it('refuses a send to a recipient within pairIntervalMs of the last ACCEPTED one to them: 400, code 131056', async () => {
		const sandbox = await sandboxWith({ throughput: { pairIntervalMs: 1000 } });
		const start = clock;
		const to = async (offset: number, number: string) => {
			clock = start + offset;
			return await sendMessage(sandbox, text(number));
		};
		expect((await to(0, TO)).status).toBe(200);
		const refused = await to(500, TO);
		expect(refused.status).toBe(400);
		expect(refused.json).toEqual({
			error: {
				message: '(#131056) (Business Account, Consumer Account) pair rate limit hit',
				type: 'OAuthException',
				code: 131056,
				error_data: { details: PAIR_RATE_DETAILS },
				fbtrace_id: 'sandbox',
			},
		});
		expect((await to(500, recipient(1))).status).toBe(200); // Another recipient is not limited.
		expect((await to(999, TO)).status).toBe(400);
		// 1,000 ms after the accepted one: the refusals at 500 and 999 did not count.
		expect((await to(1000, TO)).status).toBe(200);
		expect((await to(1999, TO)).status).toBe(400);
		expect(sandbox.throughput.counts).toEqual({ accepted: 3, refusedThroughput: 0, refusedPair: 3 });
		expect(sandbox.requests.filter((request) => request.status === 400)).toHaveLength(3);
	});

	it('comes after the throughput: a send refused for the throughput counts for neither', async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 1, pairIntervalMs: 5000 } });
		expect((await sendMessage(sandbox, text(TO))).status).toBe(200);
		const both = await sendMessage(sandbox, text(TO));
		expect(both.json.error.code).toBe(130429);
		clock += 1000;
		expect((await sendMessage(sandbox, text(TO))).json.error.code).toBe(131056);
		expect((await sendMessage(sandbox, text(recipient(1)))).status).toBe(200);
		clock += 4000;
		expect((await sendMessage(sandbox, text(TO))).status).toBe(200);
		expect(sandbox.throughput.counts).toEqual({ accepted: 3, refusedThroughput: 1, refusedPair: 1 });
	});

	it("mode '429' answers it with HTTP 429 and the pair rate's code", async () => {
		const sandbox = await sandboxWith({ throughput: { pairIntervalMs: 6000, mode: '429' } });
		expect((await sendMessage(sandbox, text(TO))).status).toBe(200);
		const refused = await sendMessage(sandbox, text(TO));
		expect(refused.status).toBe(429);
		expect(refused.headers.get('retry-after')).toBe('1');
		expect(refused.json.error.code).toBe(131056);
	});
});

describe('settings', () => {
	const control = async (sandbox: Sandbox, method: string, body?: unknown) => {
		const response = await fetch(`${sandbox.url}/__sandbox/throughput`, {
			method,
			body: body === undefined ? undefined : JSON.stringify(body),
		});
		return { status: response.status, json: (await response.json()) as any };
	};

	it('are set and read through the control API; absent or 0 is off, and the settings are replaced, not merged', async () => {
		const sandbox = await sandboxWith();
		const set = await control(sandbox, 'POST', { perSecond: 2, pairIntervalMs: 6000 });
		expect(set).toEqual({ status: 200, json: { settings: { perSecond: 2, pairIntervalMs: 6000, mode: 'network', retryAfterSeconds: 1 } } });
		expect(await sendTimes(sandbox, 3)).toEqual([200, 200, 400]);
		expect((await sendMessage(sandbox, text(recipient(0)))).status).toBe(400);
		expect(await control(sandbox, 'GET')).toEqual({
			status: 200,
			json: {
				settings: { perSecond: 2, pairIntervalMs: 6000, mode: 'network', retryAfterSeconds: 1 },
				counts: { accepted: 2, refusedThroughput: 2, refusedPair: 0 },
			},
		});
		// Only the pair rate now: the throughput is off since it is absent.
		expect((await control(sandbox, 'POST', { pairIntervalMs: 6000 })).json.settings.perSecond).toBe(0);
		expect(await sendTimes(sandbox, 5, 10)).toEqual([200, 200, 200, 200, 200]);
		expect((await sendMessage(sandbox, text(recipient(10)))).json.error.code).toBe(131056);
		expect((await control(sandbox, 'POST', { perSecond: 0, mode: '429', retryAfterSeconds: 2 })).json.settings).toEqual({
			perSecond: 0,
			pairIntervalMs: 0,
			mode: '429',
			retryAfterSeconds: 2,
		});
		expect((await sendMessage(sandbox, text(recipient(10)))).status).toBe(200);
		expect((await control(sandbox, 'POST', {})).json.settings).toEqual({ perSecond: 0, pairIntervalMs: 0, mode: 'network', retryAfterSeconds: 1 });
	});

	it('refuses invalid settings through the control API and keeps the ones in force', async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 5 } });
		for (const body of [{ perSecond: -1 }, { perSecond: '80' }, { pairIntervalMs: null }, { mode: '503' }, { perSeconds: 80 }]) {
			const refused = await control(sandbox, 'POST', body);
			expect(refused.status).toBe(400);
			expect(refused.json.error).toEqual(expect.any(String));
		}
		expect(sandbox.throughput.settings.perSecond).toBe(5);
	});

	it('setThroughput replaces the settings (null: off); accepted sends before still count against the new limit', async () => {
		const sandbox = await sandboxWith();
		expect(await sendTimes(sandbox, 3)).toEqual([200, 200, 200]);
		expect(sandbox.setThroughput({ perSecond: 4 })).toEqual({ perSecond: 4, pairIntervalMs: 0, mode: 'network', retryAfterSeconds: 1 });
		expect(await sendTimes(sandbox, 2, 3)).toEqual([200, 400]);
		sandbox.setThroughput(null);
		expect(await sendTimes(sandbox, 2, 5)).toEqual([200, 200]);
	});

	it('reset() (and POST /__sandbox/reset) restores the settings given at start and forgets the past and the counts', async () => {
		const sandbox = await sandboxWith({ throughput: { perSecond: 2, pairIntervalMs: 6000 } });
		expect(await sendTimes(sandbox, 3)).toEqual([200, 200, 400]);
		sandbox.setThroughput({ perSecond: 1 });
		sandbox.reset();
		expect(sandbox.throughput.settings).toEqual({ perSecond: 2, pairIntervalMs: 6000, mode: 'network', retryAfterSeconds: 1 });
		expect(sandbox.throughput.counts).toEqual({ accepted: 0, refusedThroughput: 0, refusedPair: 0 });
		// At the same instant, the sends before the reset are forgotten: the window and the pair rate start afresh.
		expect(await sendTimes(sandbox, 3)).toEqual([200, 200, 400]);
		await control(sandbox, 'POST', { perSecond: 1 });
		expect((await fetch(`${sandbox.url}/__sandbox/reset`, { method: 'POST' })).status).toBe(200);
		expect((await control(sandbox, 'GET')).json).toEqual({
			settings: { perSecond: 2, pairIntervalMs: 6000, mode: 'network', retryAfterSeconds: 1 },
			counts: { accepted: 0, refusedThroughput: 0, refusedPair: 0 },
		});
		expect(await sendTimes(sandbox, 1)).toEqual([200]);
	});
});
