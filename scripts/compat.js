#!/usr/bin/env node
'use strict';
/**
 * `npm run test:compat`: `npm test` (and the contract tests in test/contract, which it includes) a second time, against
 * the n8n-workflow and n8n-core of the oldest n8n the package claims (README "Compatibility"; n8n's rules for community
 * packages want `peerDependencies` to say `"n8n-workflow": "*"`, so the README holds the range, and
 * test/unit/compatibility.test.ts holds it to what CI runs). Installs them once into the cache folder (`<cache>/compat-n8n-<version>-<hash>`, MG_N8N_CACHE moves it),
 * then runs Jest with jest.compat.config.js, which makes every `require` of those packages (from the tests, the
 * nodes and n8n-core itself) load that folder's copy. Extra arguments go to Jest (a file name, `-t name`).
 */
const { spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const { log } = require('./lib/util');
const { ensureN8nLibraries } = require('./lib/install');

/** n8n 2.0.0, the first 2.x release, and its own n8n-workflow and n8n-core (`npm view n8n@2.0.0 dependencies`). */
const OLDEST = { n8n: '2.0.0', workflow: '2.0.0', core: '2.0.0' };

async function main() {
	const modules = await ensureN8nLibraries(OLDEST);
	for (const name of ['n8n-workflow', 'n8n-core', '@n8n/di', '@n8n/config', '@n8n/backend-common']) {
		if (!fs.existsSync(path.join(modules, name, 'package.json'))) throw new Error(`${name} is not in ${modules}`);
	}
	const loaded = ['n8n-workflow', 'n8n-core'].map((name) => `${name} ${require(path.join(modules, name, 'package.json')).version}`);
	log(`Node tests against n8n ${OLDEST.n8n}: ${loaded.join(', ')} from ${modules}`);
	const jest = require.resolve('jest/bin/jest');
	// --forceExit: with n8n-core 2.0.0 a handle stays open after the last test (not one of the package's: `npm test`, on
	// 2.41.1, exits by itself), and Jest would wait for it for ever.
	const result = spawnSync(process.execPath, [jest, '--config', 'jest.compat.config.js', '--forceExit', ...process.argv.slice(2)], {
		cwd: path.resolve(__dirname, '..'),
		env: { ...process.env, MG_COMPAT_MODULES: modules, MG_COMPAT_N8N: OLDEST.n8n },
		stdio: 'inherit',
	});
	process.exit(result.status ?? 1);
}

module.exports = { OLDEST };

if (require.main === module) {
	main().catch((error) => {
		console.error(error.message);
		process.exit(1);
	});
}
