'use strict';
/** Small shared helpers: logging, paths, child processes that are always cleaned up, waiting. */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');

const REPO_ROOT = path.resolve(__dirname, '..', '..');
const PACKAGE_NAME = require(path.join(REPO_ROOT, 'package.json')).name;

const started = Date.now();
function log(...args) {
	const secs = ((Date.now() - started) / 1000).toFixed(1).padStart(6);
	// Plain write: under Jest, console.log would add a stack location to every line.
	process.stdout.write(`[${secs}s] ${args.join(' ')}\n`);
}

function cacheDir() {
	return path.resolve(
		process.env.MG_N8N_CACHE || path.join(os.homedir(), '.cache', 'n8n-nodes-messaging-gateway'),
	);
}

const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** Every long-lived child we start, so that exit / Ctrl-C can stop them all. */
const children = new Set();

/**
 * Start a process. `detached` puts it in its own process group so that stop() can end its helpers too
 * (n8n starts a task runner; npm/ts-node start node). Output goes to `logFile` when given, else is inherited.
 */
function startProcess(name, cmd, args, { env, cwd, logFile } = {}) {
	let stdio = 'inherit';
	let fd;
	if (logFile) {
		fs.mkdirSync(path.dirname(logFile), { recursive: true });
		fd = fs.openSync(logFile, 'a');
		stdio = ['ignore', fd, fd];
	}
	const child = spawn(cmd, args, { env, cwd: cwd || REPO_ROOT, stdio, detached: true });
	if (fd !== undefined) fs.closeSync(fd);
	const proc = { name, child, logFile, exited: false, exitCode: null };
	// MG_PID_DIR: a parent (scripts/e2e.js) that ends whatever its Jest child leaves behind.
	const pidFile = process.env.MG_PID_DIR && child.pid ? path.join(process.env.MG_PID_DIR, String(child.pid)) : null;
	if (pidFile) fs.writeFileSync(pidFile, name);
	proc.exitPromise = new Promise((resolve) => {
		child.on('exit', (code, signal) => {
			proc.exited = true;
			proc.exitCode = code ?? signal;
			children.delete(proc);
			if (pidFile) fs.rmSync(pidFile, { force: true });
			resolve(proc.exitCode);
		});
	});
	child.on('error', (err) => log(`${name}: ${err.message}`));
	children.add(proc);
	return proc;
}

/** Stop a started process (its whole group): SIGTERM, then SIGKILL after `graceMs`. */
async function stopProcess(proc, graceMs = 10000) {
	if (!proc || proc.exited) return;
	const kill = (sig) => {
		try {
			process.kill(-proc.child.pid, sig);
		} catch {
			try {
				proc.child.kill(sig);
			} catch {
				/* already gone */
			}
		}
	};
	kill('SIGTERM');
	const timer = setTimeout(() => kill('SIGKILL'), graceMs);
	await proc.exitPromise;
	clearTimeout(timer);
}

async function stopAll() {
	await Promise.all([...children].map((p) => stopProcess(p)));
}

/** Synchronous last resort for process 'exit': only the processes we started, by their group id. */
function killAllSync() {
	for (const p of children) {
		try {
			process.kill(-p.child.pid, 'SIGKILL');
		} catch {
			/* gone */
		}
	}
}

let cleanupInstalled = false;
/** Stop every started child on normal exit, Ctrl-C and SIGTERM. `onSignal` runs first (for a message). */
function installCleanup() {
	if (cleanupInstalled) return;
	cleanupInstalled = true;
	process.on('exit', killAllSync);
	const stopAndExit = async (why) => {
		log(`${why}: stopping everything started by this script...`);
		await stopAll();
		process.exit(130);
	};
	for (const sig of ['SIGINT', 'SIGTERM', 'SIGHUP']) process.on(sig, () => stopAndExit(sig));
	// Run through npm, a signal may reach npm alone: when our parent goes away, stop as well.
	const parent = process.ppid;
	setInterval(() => {
		if (process.ppid !== parent) stopAndExit('parent process ended');
	}, 2000).unref();
}

/** End the process groups recorded in a MG_PID_DIR folder (processes a child left running). */
function killRecorded(dir) {
	if (!dir || !fs.existsSync(dir)) return 0;
	let n = 0;
	for (const entry of fs.readdirSync(dir)) {
		const pid = Number(entry);
		if (!pid) continue;
		try {
			process.kill(-pid, 'SIGKILL');
			n++;
		} catch {
			/* already gone */
		}
		fs.rmSync(path.join(dir, entry), { force: true });
	}
	return n;
}

/** Run a command to completion; rejects on a non-zero exit. Returns captured stdout when `capture`. */
function run(cmd, args, { env, cwd, capture = false, quiet = false, input } = {}) {
	return new Promise((resolve, reject) => {
		const stdio = [input === undefined ? 'ignore' : 'pipe', capture || quiet ? 'pipe' : 'inherit', capture || quiet ? 'pipe' : 'inherit'];
		const child = spawn(cmd, args, { env, cwd: cwd || REPO_ROOT, stdio });
		let out = '';
		let err = '';
		if (child.stdout) child.stdout.on('data', (d) => (out += d));
		if (child.stderr) child.stderr.on('data', (d) => (err += d));
		if (input !== undefined) child.stdin.end(input);
		child.on('error', reject);
		child.on('exit', (code) => {
			if (code === 0) resolve(out);
			else {
				const e = new Error(`${path.basename(cmd)} ${args.join(' ')} exited with ${code}\n${(out + err).slice(-4000)}`);
				e.stdout = out;
				e.stderr = err;
				reject(e);
			}
		});
	});
}

/** Poll `fn` until it returns a truthy value, or fail after `timeoutMs` (at once if it throws an error marked `fatal`). */
async function waitFor(what, fn, { timeoutMs = 60000, intervalMs = 250 } = {}) {
	const deadline = Date.now() + timeoutMs;
	let lastErr;
	while (Date.now() < deadline) {
		try {
			const v = await fn();
			if (v) return v;
		} catch (e) {
			if (e && e.fatal) throw e;
			lastErr = e;
		}
		await sleep(intervalMs);
	}
	throw new Error(`Timed out after ${timeoutMs} ms waiting for ${what}${lastErr ? `: ${lastErr.message}` : ''}`);
}

/** Ask the OS for a free loopback port. */
function freePort() {
	return new Promise((resolve, reject) => {
		const srv = net.createServer();
		srv.unref();
		srv.on('error', reject);
		srv.listen(0, '127.0.0.1', () => {
			const { port } = srv.address();
			srv.close(() => resolve(port));
		});
	});
}

/** Last lines of a log file, for error messages. */
function tail(file, lines = 40) {
	try {
		return fs.readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
	} catch {
		return '(no log)';
	}
}

module.exports = {
	REPO_ROOT,
	PACKAGE_NAME,
	log,
	cacheDir,
	sleep,
	startProcess,
	stopProcess,
	stopAll,
	installCleanup,
	killAllSync,
	killRecorded,
	run,
	waitFor,
	freePort,
	tail,
};
