/** Unit and in-process node tests. The real-n8n suite (test/e2e) runs with `npm run test:e2e`. */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	// tsconfig.json is the shipped build (no Jest types); tests compile with tsconfig.test.json.
	transform: { '^.+\\.ts$': ['ts-jest', { tsconfig: 'tsconfig.test.json' }] },
	testTimeout: 30000,
};
