#!/usr/bin/env node
// Runs the benchmarks under bench/ one after another (each in its own process, so that memory figures are its own).
// Each prints its figures and ratios against a baseline measured in the same run; `npm run bench -- media` runs the
// ones whose file name contains "media".
const { spawnSync } = require('child_process');
const { readdirSync } = require('fs');
const path = require('path');

const filter = process.argv[2] ?? '';
const benches = readdirSync(__dirname)
	.filter((file) => file.endsWith('.bench.ts') && file.includes(filter))
	.sort();
if (benches.length === 0) {
	console.error(`no benchmark matches "${filter}"`);
	process.exit(1);
}
let failed = 0;
for (const bench of benches) {
	console.log(`\n=== ${bench}`);
	const result = spawnSync(
		process.execPath,
		['--expose-gc', '-r', 'ts-node/register/transpile-only', path.join(__dirname, bench)],
		// Prefer .ts: otherwise `…/MessagingGateway.node` resolves to the codex file MessagingGateway.node.json.
		{ stdio: 'inherit', env: { ...process.env, TS_NODE_PREFER_TS_EXTS: 'true' } },
	);
	if (result.status !== 0) failed++;
}
process.exit(failed ? 1 : 0);
