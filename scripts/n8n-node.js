#!/usr/bin/env node
'use strict';
/**
 * `node scripts/n8n-node.js <command> [args]`: n8n's own tool for community packages (`@n8n/node-cli`, the
 * `n8n-node` command) run from a cached install under Node 24. It is not a dev dependency because one of its
 * dependencies builds only on Node 24, while this package builds and tests on Node 20.
 * `n8n-node build` and `lint` run the package's own TypeScript and ESLint (`npm exec`), so what they check is the
 * configuration in this repository (tsconfig.json, eslint.config.mjs).
 * Environment: MG_N8N_CACHE (the cache folder), N8N_NODE_CLI_VERSION (another version of the tool).
 */
const path = require('node:path');
const { spawn } = require('node:child_process');
const { ensureNode24, ensureTool } = require('./lib/install');

const NODE_CLI_VERSION = process.env.N8N_NODE_CLI_VERSION || '0.48.3';
const REPO_ROOT = path.resolve(__dirname, '..');

async function main() {
	const node24 = await ensureNode24();
	const modules = await ensureTool('@n8n/node-cli', NODE_CLI_VERSION);
	const bin = path.join(modules, '@n8n', 'node-cli', 'bin', 'n8n-node.mjs');
	// Node 24 first on PATH: the tool starts `npm exec -- tsc` / `eslint`, and npm runs under the first node it finds.
	const env = { ...process.env, PATH: `${path.dirname(node24.node)}${path.delimiter}${process.env.PATH}` };
	const child = spawn(node24.node, [bin, ...process.argv.slice(2)], { cwd: REPO_ROOT, env, stdio: 'inherit' });
	child.on('exit', (code, signal) => process.exit(code ?? (signal ? 1 : 0)));
}

main().catch((e) => {
	console.error(e.message);
	process.exit(1);
});
