/** The queue-mode suite: one file at a time (each starts its own n8n main, workers and webhook processors). */
const path = require('node:path');

module.exports = {
	rootDir: path.resolve(__dirname, '..', '..'),
	roots: ['<rootDir>/test/queue'],
	testMatch: ['**/*.queue.ts'],
	testEnvironment: 'node',
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: { isolatedModules: true } }] },
	testTimeout: 300000,
	maxWorkers: 1,
	verbose: true,
	testSequencer: '<rootDir>/test/e2e/support/sequencer.js',
};
