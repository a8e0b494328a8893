/** Unit and in-process node tests. The real-n8n suite (test/e2e) runs with `npm run test:e2e`. */
module.exports = {
	preset: 'ts-jest',
	testEnvironment: 'node',
	roots: ['<rootDir>/test'],
	testMatch: ['**/*.test.ts'],
	testPathIgnorePatterns: ['/node_modules/', '<rootDir>/test/e2e/'],
	transform: { '^.+\\.ts$': 'ts-jest' },
	testTimeout: 30000,
};
