/**
 * `npm run test:heavy`: the checks that move 100 MB or measure memory (`*.heavy.test.ts`), left out of `npm test`
 * because they take minutes on a busy 2-core machine. CI runs them after `npm test`, one file at a time so that no
 * other worker's garbage or CPU load counts in a memory or time reading.
 */
const base = require('./jest.config');

module.exports = {
	...base,
	testMatch: ['**/*.heavy.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	// Minutes on a busy machine (the 100 MB upload took 226 s at load 13): slow is not wrong here; the bounds are on memory.
	testTimeout: 900_000,
};
