'use strict';
/**
 * What the real-n8n suites (test:e2e, test:queue) share once they are prepared: Jest run under Node 24 with the
 * suite's context file, and the closing summary whose last line CI reads.
 */
const fs = require('node:fs');
const path = require('node:path');
const { REPO_ROOT, startProcess } = require('./util');

/**
 * Runs Jest under Node 24 over one suite; resolves Jest's exit code. `contextEnv` names the variable through which the
 * tests find `contextFile`; `pidDir` is where the n8n and sandbox processes they start record their PIDs.
 */
async function runJest({ node24, config, contextEnv, contextFile, pidDir, resultsFile, args }) {
	fs.rmSync(resultsFile, { force: true });
	const jest = startProcess(
		'jest',
		node24,
		[path.join(REPO_ROOT, 'node_modules', 'jest', 'bin', 'jest.js'), '--config', config, '--runInBand', '--json', `--outputFile=${resultsFile}`, ...args],
		{
			env: {
				...process.env,
				[contextEnv]: contextFile,
				MG_PID_DIR: pidDir,
				NODE_NO_WARNINGS: '1',
				PATH: `${path.dirname(node24)}${path.delimiter}${process.env.PATH}`,
			},
		},
	);
	return jest.exitPromise;
}

/**
 * Prints one line per test file (failed tests under it), the verdict with `title` and the artifacts folder, and last,
 * alone on its line, `label: N passed, N failed, N skipped` for CI. Returns whether the suite passed.
 */
function printSummary({ title, label, resultsFile, code, t0, prepSecs, artifacts }) {
	const secs = Math.round((Date.now() - t0) / 1000);
	let r = null;
	try {
		r = JSON.parse(fs.readFileSync(resultsFile, 'utf8'));
	} catch {
		/* Jest did not get far enough to write it */
	}
	const ok = Boolean(code === 0 && r && r.success);
	const lines = ['', '='.repeat(72)];
	for (const file of r ? r.testResults : []) {
		const counts = { passed: 0, failed: 0, pending: 0 };
		for (const a of file.assertionResults) counts[a.status] = (counts[a.status] || 0) + 1;
		// Jest calls a file with skipped tests and no failure "focused": it passed.
		const passed = file.status === 'passed' || file.status === 'focused';
		lines.push(`${passed ? 'PASS' : 'FAIL'}  ${path.relative(REPO_ROOT, file.name)}  (${counts.passed} passed, ${counts.failed} failed, ${counts.pending} skipped)`);
		for (const a of file.assertionResults.filter((x) => x.status === 'failed')) lines.push(`      x ${a.fullName}`);
		if (!passed && !file.assertionResults.length && file.message) lines.push(`      ${file.message.split('\n')[0]}`);
	}
	lines.push(`${title} ${ok ? 'PASSED' : 'FAILED'} in ${secs} s (preparation ${prepSecs} s). Artifacts: ${path.relative(REPO_ROOT, artifacts)}/`);
	lines.push('='.repeat(72));
	if (r) lines.push(`${label}: ${r.numPassedTests} passed, ${r.numFailedTests} failed, ${r.numPendingTests} skipped`);
	console.log(lines.join('\n'));
	return ok;
}

module.exports = { runJest, printSummary };
