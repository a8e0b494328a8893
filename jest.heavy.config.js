/**
 * `npm run test:heavy`: the checks that move 100 MB or measure memory, which `npm test` leaves out (jest.config.js)
 * because they take minutes on a busy 2-core machine: `*.heavy.test.ts` (media, sandbox uploads, person items, the
 * harness's 50 MB input) and test/unit/cancelSignal.test.ts (100,000 requests). CI runs them after `npm test`. Each
 * worker is a process of its own: another worker's garbage never counts in a memory reading (memory is per process).
 */
const base = require('./jest.config');

module.exports = {
	...base,
	testMatch: ['**/*.heavy.test.ts', '**/test/unit/cancelSignal.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	// Minutes on a busy machine (the 100 MB upload took 226 s at load 13): slow is not wrong here; the bounds are on memory.
	testTimeout: 900_000,
};
