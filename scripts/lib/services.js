'use strict';
/**
 * Private Postgres and Redis for the queue-mode suite: Debian's `postgresql` and `redis-server` (installed with
 * apt-get when missing), each started on a free loopback port with its data in a temp folder, never as a system
 * service, and stopped by its PID. Postgres refuses to run as root, so as root its cluster belongs to the `postgres`
 * user the Debian package creates and is started through `setpriv`, which execs: the PID we hold is the postmaster's.
 */
const fs = require('node:fs');
const net = require('node:net');
const os = require('node:os');
const path = require('node:path');
const { log, run, startProcess, stopProcess, waitFor, freePort, tail } = require('./util');

const REDIS_SERVER = '/usr/bin/redis-server';
const PG_ROOT = '/usr/lib/postgresql';
/** The database superuser of the private cluster (trust authentication on loopback: it is a throwaway cluster). */
const PG_USER = 'n8n';

/** The newest Debian Postgres binaries folder, or null. */
function postgresBinDir() {
	if (!fs.existsSync(PG_ROOT)) return null;
	const versions = fs
		.readdirSync(PG_ROOT)
		.filter((v) => fs.existsSync(path.join(PG_ROOT, v, 'bin', 'postgres')))
		.sort((a, b) => Number(b) - Number(a));
	return versions.length ? path.join(PG_ROOT, versions[0], 'bin') : null;
}

/** apt-get install what is missing (as root); fails with a clear message otherwise. */
async function ensureServicePackages() {
	const missing = [];
	if (!postgresBinDir()) missing.push('postgresql');
	if (!fs.existsSync(REDIS_SERVER)) missing.push('redis-server');
	if (!missing.length) return;
	const isRoot = process.getuid && process.getuid() === 0;
	if (!isRoot || !fs.existsSync('/usr/bin/apt-get')) {
		throw new Error(`${missing.join(' and ')} missing: install the Debian package(s) ${missing.join(' ')} (needs root)`);
	}
	log(`Installing Debian ${missing.join(' and ')} with apt-get (first run only)...`);
	const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
	const install = () => run('apt-get', ['install', '-y', '-q', '--no-install-recommends', ...missing], { env, quiet: true });
	await install().catch(async () => {
		await run('apt-get', ['update', '-q'], { env, quiet: true });
		await install();
	});
	if (!postgresBinDir() || !fs.existsSync(REDIS_SERVER)) throw new Error(`apt-get install ${missing.join(' ')} did not provide them`);
}

/** Temp folders to remove when this process exits however it ends (Ctrl-C included): the services are killed first. */
const tempDirs = new Set();
process.on('exit', () => {
	for (const dir of tempDirs) fs.rmSync(dir, { recursive: true, force: true });
});
function tempDir(prefix) {
	const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
	tempDirs.add(dir);
	return dir;
}

function isRoot() {
	return Boolean(process.getuid && process.getuid() === 0);
}

/** As root: run a Postgres binary as the `postgres` user (setpriv execs, so the PID is the program's own). */
function asPostgres(bin, args) {
	if (!isRoot()) return { cmd: bin, args };
	return { cmd: 'setpriv', args: ['--reuid=postgres', '--regid=postgres', '--init-groups', '--reset-env', bin, ...args] };
}

/**
 * initdb + postgres on a free port, data under a fresh temp folder. Returns {host, port, user, password, dataDir,
 * proc, stop()}; `stop` shuts it down fast (SIGINT to the postmaster) and removes the folder.
 */
async function startPostgres({ logDir }) {
	const bin = postgresBinDir();
	if (!bin) throw new Error('Postgres binaries not found under /usr/lib/postgresql');
	const base = tempDir('mg-queue-pg-');
	const dataDir = path.join(base, 'data');
	fs.mkdirSync(dataDir, { mode: 0o700 });
	if (isRoot()) {
		fs.chmodSync(base, 0o755);
		await run('chown', ['-R', 'postgres:postgres', base]);
	}
	const initdb = asPostgres(path.join(bin, 'initdb'), ['-D', dataDir, '-U', PG_USER, '--auth=trust', '-E', 'UTF8', '--no-locale', '--no-sync']);
	await run(initdb.cmd, initdb.args, { cwd: base, quiet: true });
	const port = await freePort();
	// A test cluster: no durability needed, so no fsync; room for main, workers, webhook processors and CLI commands.
	const settings = ['listen_addresses=127.0.0.1', `unix_socket_directories=${base}`, 'fsync=off', 'synchronous_commit=off', 'full_page_writes=off', 'max_connections=300', 'shared_buffers=64MB'];
	const pg = asPostgres(path.join(bin, 'postgres'), ['-D', dataDir, '-p', String(port), ...settings.flatMap((s) => ['-c', s])]);
	const logFile = path.join(logDir, 'postgres.log');
	const proc = startProcess('postgres', pg.cmd, pg.args, { cwd: base, logFile });
	const service = { host: '127.0.0.1', port, user: PG_USER, password: 'not-checked', dataDir, proc, logFile };
	service.stop = async () => {
		if (!proc.exited) {
			try {
				process.kill(proc.child.pid, 'SIGINT'); // fast shutdown: ends the sessions, writes nothing more
			} catch {
				/* gone */
			}
			let timer;
			await Promise.race([proc.exitPromise, new Promise((r) => (timer = setTimeout(r, 15000)))]);
			clearTimeout(timer);
			await stopProcess(proc, 5000);
		}
		fs.rmSync(base, { recursive: true, force: true });
	};
	try {
		await waitFor(
			'Postgres to accept connections',
			async () => {
				if (proc.exited) throw Object.assign(new Error(`postgres exited (${proc.exitCode})`), { fatal: true });
				await run(path.join(bin, 'pg_isready'), ['-q', '-h', '127.0.0.1', '-p', String(port)]);
				return true;
			},
			{ timeoutMs: 60000, intervalMs: 300 },
		);
	} catch (e) {
		await service.stop();
		throw new Error(`${e.message}\n--- ${logFile} ---\n${tail(logFile)}`);
	}
	log(`Started Postgres (${path.basename(path.dirname(bin))}) on port ${port}, data in ${dataDir}`);
	return service;
}

/** One Redis command over a raw socket (enough for PING and FLUSHDB). */
function redisCommand(port, ...words) {
	return new Promise((resolve, reject) => {
		const socket = net.connect(port, '127.0.0.1');
		let out = '';
		socket.setTimeout(3000, () => socket.destroy(new Error('redis timeout')));
		socket.on('error', reject);
		socket.on('data', (d) => {
			out += d;
			if (out.endsWith('\r\n')) {
				socket.end();
				resolve(out.trim());
			}
		});
		socket.write(`*${words.length}\r\n${words.map((w) => `$${Buffer.byteLength(w)}\r\n${w}\r\n`).join('')}`);
	});
}

/** redis-server on a free port, no persistence, working folder in a fresh temp folder. */
async function startRedis({ logDir }) {
	const dir = tempDir('mg-queue-redis-');
	const port = await freePort();
	const logFile = path.join(logDir, 'redis.log');
	const args = ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', '--daemonize', 'no', '--databases', '32'];
	const proc = startProcess('redis', REDIS_SERVER, args, { cwd: dir, logFile });
	const service = { host: '127.0.0.1', port, proc, logFile };
	service.stop = async () => {
		await stopProcess(proc, 5000);
		fs.rmSync(dir, { recursive: true, force: true });
	};
	try {
		await waitFor(
			'Redis to answer PING',
			async () => {
				if (proc.exited) throw Object.assign(new Error(`redis-server exited (${proc.exitCode})`), { fatal: true });
				return (await redisCommand(port, 'PING')) === '+PONG';
			},
			{ timeoutMs: 30000, intervalMs: 200 },
		);
	} catch (e) {
		await service.stop();
		throw new Error(`${e.message}\n--- ${logFile} ---\n${tail(logFile)}`);
	}
	log(`Started Redis on port ${port}`);
	return service;
}

module.exports = { ensureServicePackages, startPostgres, startRedis, redisCommand, postgresBinDir, PG_USER };
