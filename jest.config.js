/**
 * `npm test`: unit and in-process node tests, the run a contributor makes often. The 100 MB and memory checks
 * (`*.heavy.test.ts`, and the 100,000-request leak test cancelSignal.test.ts, whose name nodes/gateway cites) run with
 * `npm run test:heavy` (jest.heavy.config.js); the real-n8n suite (test/e2e) with `npm run test:e2e`.
 */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/', '\\.heavy\\.test\\.ts$', '<rootDir>/test/unit/cancelSignal\\.test\\.ts$'],
	// tsconfig.json is the shipped build (no Jest types); tests compile with tsconfig.test.json.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	// Jest's default leaves a core to its main process (one worker on 2 cores); the files wait on I/O and n8n's module
	// loading, so a worker per core halves the run there (measured: 514 s with one worker at load 11-16, 228 s with two
	// at load 13-16).
	maxWorkers: '100%',
	// Generous: a test that waits on a busy machine (load 8 on 2 cores) is slow, not wrong; no assertion reads this.
	testTimeout: 120_000,
};
