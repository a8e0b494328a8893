/** `npm run sandbox -- statuses ...` and `... latency ...` against a running sandbox (in process here). */
import { latencyCommand, statusesCommand, UsageError } from './switches';
import { sendMessage, VALID_MESSAGES } from './helpers';
import { startSandbox, type Sandbox } from './server';

let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ statuses: { enabled: true, delayMs: 300 } });
});
afterAll(() => sandbox.close());

it('statuses: shows the switch, turns it off and on, and sets the delay', async () => {
	expect(await statusesCommand(sandbox.url, [])).toEqual([expect.stringMatching(/^Status notifications: on\. .*300 ms apart.* 0 delivered so far\.$/)]);
	expect(await statusesCommand(sandbox.url, ['off'])).toEqual(['Status notifications: off. Sends get no status notification.']);
	expect(sandbox.statuses.settings).toEqual({ enabled: false, delayMs: 300 });
	expect(await statusesCommand(sandbox.url, ['on', '--delay', '50'])).toEqual([expect.stringContaining('50 ms apart')]);
	expect(sandbox.statuses.settings).toEqual({ enabled: true, delayMs: 50 });
	await expect(statusesCommand(sandbox.url, ['maybe'])).rejects.toThrow(UsageError);
	await expect(statusesCommand(sandbox.url, ['--delay', 'soon'])).rejects.toThrow(UsageError);
});

it('latency: shows it, sets it, and the next answer waits that long', async () => {
	expect(await latencyCommand(sandbox.url, [])).toEqual(['Latency: every gateway request is answered after 0 ms.']);
	expect(await latencyCommand(sandbox.url, ['120'])).toEqual(['Latency: every gateway request is answered after 120 ms.']);
	await statusesCommand(sandbox.url, ['off']);
	const started = Date.now();
	expect((await sendMessage(sandbox, VALID_MESSAGES.text)).status).toBe(200);
	expect(Date.now() - started).toBeGreaterThanOrEqual(115);
	await latencyCommand(sandbox.url, ['0']);
	await expect(latencyCommand(sandbox.url, ['-1'])).rejects.toThrow(UsageError);
	await expect(latencyCommand(sandbox.url, ['1', '2'])).rejects.toThrow(UsageError);
});
