/** The real-n8n suite: one file at a time (each starts its own n8n), run by scripts/e2e.js under Node 24. */
const path = require('node:path');

module.exports = {
	rootDir: path.resolve(__dirname, '..', '..'),
	roots: ['<rootDir>/test/e2e'],
	testMatch: ['**/*.e2e.ts'],
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
	testTimeout: 300000,
	maxWorkers: 1,
	verbose: true,
	// Keep the order stable: the cheapest proof first, the browser last.
	testSequencer: '<rootDir>/test/e2e/support/sequencer.js',
};
