'use strict';
/**
 * Start the sandbox gateway (test/sandbox/cli.ts, the same thing `npm run sandbox` runs) and talk to its control
 * API under /__sandbox/ (see test/sandbox/control.ts).
 */
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT, log, startProcess, stopProcess, waitFor, tail } = require('./util');

const SANDBOX_CLI = path.join(REPO_ROOT, 'test', 'sandbox', 'cli.ts');
const DEFAULT_PORT = 8787; // the sandbox CLI's own default, so `npm run sandbox -- deliver` finds it

/**
 * Start on `port`; resolves when the control API answers. Returns {url, apiKey, phoneId, statuses, proc, control}.
 * The default phone is the one the sample notifications (test/fixtures/notifications) are for, so that the trigger's
 * "Only This Phone" (on by default) keeps them.
 */
async function startSandbox({ port, apiKey = 'sandbox-api-key', phoneId = '104857600000001', logDir, node = process.execPath, statuses = false }) {
	// statuses: the network's status notifications after each send (test/sandbox/statuses.ts); off unless chosen.
	const env = {
		...process.env,
		SANDBOX_PORT: String(port),
		SANDBOX_API_KEY: apiKey,
		SANDBOX_PHONE_ID: phoneId,
		SANDBOX_STATUSES: statuses ? '1' : '0',
	};
	if (!fs.existsSync(SANDBOX_CLI)) throw new Error(`The sandbox gateway is missing: ${SANDBOX_CLI}`);
	const kind = 'sandbox';
	// What `npm run sandbox` runs, without npm in between so that stopping it stops the server.
	const cmd = node;
	const args = [path.join(REPO_ROOT, 'node_modules', 'ts-node', 'dist', 'bin.js'), '--transpile-only', SANDBOX_CLI];
	const logFile = path.join(logDir, `sandbox-${port}.log`);
	const proc = startProcess(kind, cmd, args, { env, cwd: REPO_ROOT, logFile });
	const url = `http://127.0.0.1:${port}`;
	try {
		await waitFor(
			`the ${kind} on port ${port}`,
			async () => {
				if (proc.exited) throw Object.assign(new Error(`${kind} exited (${proc.exitCode})`), { fatal: true });
				const res = await fetch(`${url}/__sandbox/state`).catch(() => null);
				return res && res.ok;
			},
			{ timeoutMs: 60000, intervalMs: 250 },
		);
	} catch (e) {
		await stopProcess(proc);
		throw new Error(`${e.message}\n--- ${logFile} ---\n${tail(logFile)}`);
	}
	log(`Started the ${kind} at ${url}`);
	return { kind, url, apiKey, phoneId, statuses, proc, logFile, control: controlClient(url) };
}

/** Thin client of the control API. */
function controlClient(url) {
	const call = async (method, what, body) => {
		const res = await fetch(`${url}/__sandbox/${what}`, {
			method,
			headers: body !== undefined ? { 'content-type': 'application/json' } : {},
			body: body !== undefined ? JSON.stringify(body) : undefined,
		});
		const text = await res.text();
		if (!res.ok) throw new Error(`sandbox ${method} ${what}: HTTP ${res.status} ${text.slice(0, 300)}`);
		return text ? JSON.parse(text) : undefined;
	};
	return {
		requests: () => call('GET', 'requests'),
		state: () => call('GET', 'state'),
		reset: () => call('POST', 'reset', {}),
		fail: (spec) => call('POST', 'fail', spec),
		deliver: (body) => call('POST', 'deliver', body),
		info: () => call('GET', 'info'),
		templateStatus: (id, status) => call('POST', 'template-status', { id, status }),
		latency: (ms) => (ms === undefined ? call('GET', 'latency') : call('POST', 'latency', { ms })),
		statuses: (settings) => (settings === undefined ? call('GET', 'statuses') : call('POST', 'statuses', settings)),
		// The network's limits on sending: { perSecond, pairIntervalMs, mode?, retryAfterSeconds? } (0 or absent: off);
		// without settings, { settings, counts } (test/sandbox/throughput.ts).
		throughput: (settings) => (settings === undefined ? call('GET', 'throughput') : call('POST', 'throughput', settings)),
	};
}

module.exports = { startSandbox, controlClient, SANDBOX_CLI, DEFAULT_PORT };
