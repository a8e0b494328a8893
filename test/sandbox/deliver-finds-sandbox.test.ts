/**
 * `npm run sandbox -- deliver` after `npm start` on other ports: it finds the running sandbox, or says how to name
 * one (SANDBOX_PORT). The sandboxes here run in process and are recorded as the standalone one records itself.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

import { findSandbox, registeredSandboxes, registerSandbox } from './registry';
import { startSandbox, type Sandbox } from './server';

/** An address where nothing listens: the default port of the test. */
const NOTHING = 'http://127.0.0.1:9';

let dir: string;
const started: Sandbox[] = [];
const unregister: Array<() => void> = [];

beforeEach(() => {
	dir = mkdtempSync(join(tmpdir(), 'sandbox-registry-'));
	process.env.SANDBOX_REGISTRY_DIR = dir;
});
afterEach(async () => {
	unregister.splice(0).forEach((remove) => remove());
	await Promise.all(started.splice(0).map((sandbox) => sandbox.close()));
	delete process.env.SANDBOX_REGISTRY_DIR;
	rmSync(dir, { recursive: true, force: true });
});

async function runningSandbox(): Promise<Sandbox> {
	const sandbox = await startSandbox({ phoneId: '104857600000042' });
	started.push(sandbox);
	unregister.push(registerSandbox(sandbox.url));
	return sandbox;
}

it('finds the one running sandbox when nothing answers on the default port', async () => {
	const sandbox = await runningSandbox();
	expect(await findSandbox(null, NOTHING)).toEqual({ url: sandbox.url, info: expect.objectContaining({ phoneId: '104857600000042' }) });
});

it('prefers the sandbox named by SANDBOX_PORT or --url', async () => {
	await runningSandbox();
	const named = await runningSandbox();
	expect(await findSandbox(named.url, NOTHING)).toMatchObject({ url: named.url });
});

it('with two running, names SANDBOX_PORT to choose', async () => {
	const [first, second] = [await runningSandbox(), await runningSandbox()];
	const found = await findSandbox(null, NOTHING);
	expect(found).toEqual({ problem: expect.stringContaining(`Several sandboxes are running (`) });
	const { problem } = found as { problem: string };
	expect(problem).toContain(first.url);
	expect(problem).toContain(second.url);
	expect(problem).toMatch(/SANDBOX_PORT=\d+ npm run sandbox -- deliver/);
});

it('with none running, says to start one and how to name one elsewhere; never "npm run sandbox" alone', async () => {
	const found = await findSandbox(null, NOTHING);
	expect(found).toEqual({ problem: expect.stringContaining('No sandbox is running') });
	expect((found as { problem: string }).problem).toContain('SANDBOX_PORT=<port> npm run sandbox -- deliver');
});

it('a named sandbox that does not answer is said so, with the ones that run', async () => {
	const sandbox = await runningSandbox();
	const found = (await findSandbox(NOTHING, NOTHING)) as { problem: string };
	expect(found.problem).toMatch(new RegExp(`^No sandbox answers at ${NOTHING} .*Running sandboxes: ${sandbox.url}\\.`));
});

it('forgets the record of a sandbox whose process has ended', () => {
	registerSandbox('http://127.0.0.1:45678', 2 ** 22 + 12345);
	expect(registeredSandboxes()).toEqual([]);
});
