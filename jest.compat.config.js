/**
 * `npm run test:compat` (scripts/compat.js): the `npm test` files, with n8n's packages loaded from the folder that
 * MG_COMPAT_MODULES names (the n8n-workflow and n8n-core of the oldest n8n the package claims) instead of
 * node_modules. The mapping covers every `require` in the run, n8n-core's own included, so one copy of each is loaded
 * (one dependency-injection container, one n8n-workflow). Types still come from node_modules: the tests compile as in
 * `npm test` and only what runs differs.
 */
const base = require('./jest.config');

const modules = process.env.MG_COMPAT_MODULES;
if (!modules) throw new Error('MG_COMPAT_MODULES is not set: run `npm run test:compat`');

module.exports = {
	...base,
	moduleNameMapper: {
		'^(n8n-workflow|n8n-core|@n8n/di|@n8n/config|@n8n/backend-common)(/.*)?$': `${modules}/$1$2`,
	},
	// Kept apart from `npm test`'s cache: the same file maps to other modules here.
	cacheDirectory: `${require('node:os').tmpdir()}/jest-compat`,
};
