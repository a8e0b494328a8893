/**
 * ESLint 9 (flat config), run by `npm run lint` and by n8n's `n8n-node lint` (which runs `eslint .` with this file).
 * Two configurations:
 * - What ships (nodes/, credentials/, index.ts, package.json): n8n's rules for community packages, the same set
 *   `@n8n/node-cli` uses (`@n8n/eslint-plugin-community-nodes` plus the credential and node rules of
 *   `eslint-plugin-n8n-nodes-base`).
 * - What does not ship (test/, bench/, scripts/, the build files): JavaScript and TypeScript recommended rules only;
 *   n8n's package rules are about code that runs inside n8n.
 */
import js from '@eslint/js';
import { n8nCommunityNodesPlugin } from '@n8n/eslint-plugin-community-nodes';
import n8nNodesBase from 'eslint-plugin-n8n-nodes-base';
import { defineConfig, globalIgnores } from 'eslint/config';
import tseslint from 'typescript-eslint';

// A leading underscore marks a value that is unused on purpose (a skipped tuple member, a rest sibling).
const UNUSED = { argsIgnorePattern: '^_', varsIgnorePattern: '^_', destructuredArrayIgnorePattern: '^_', ignoreRestSiblings: true };
const SHIPPED_TS = ['nodes/**/*.ts', 'credentials/**/*.ts', 'index.ts'];
const NOT_SHIPPED = ['test/**/*.{ts,js}', 'bench/**/*.{ts,js}', 'scripts/**/*.js', '*.{js,mjs}'];

// Node's globals for the CommonJS scripts, taken from the Node that runs ESLint.
const nodeGlobals = Object.fromEntries(
	[...Object.getOwnPropertyNames(globalThis), 'require', 'module', 'exports', '__dirname', '__filename'].map((name) => [
		name,
		'readonly',
	]),
);

/*
 * n8n Cloud's rules included (no imports but n8n-workflow and a few others, no Node globals such as setTimeout): the
 * package is meant to be verified by n8n and installable on n8n Cloud.
 */
const community = n8nCommunityNodesPlugin.configs.recommended;

export default defineConfig(
	globalIgnores(['dist/', 'node_modules/', 'coverage/', 'test-artifacts/', '**/*.d.ts']),
	{
		files: SHIPPED_TS,
		extends: [js.configs.recommended, tseslint.configs.recommended, community],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		rules: {
			'prefer-spread': 'off',
			'no-console': 'error',
			'@typescript-eslint/no-unused-vars': ['error', UNUSED],
		},
	},
	{
		// Pure modules import nothing from n8n (they cannot build its errors); the operation that calls them turns their
		// errors into NodeOperationError (checkInput in actions/message/execution.ts, the person upload's error reading).
		files: ['nodes/gateway/csv.ts', 'nodes/MessagingGateway/actions/message/types/**/*.ts'],
		rules: { '@n8n/community-nodes/require-node-api-error': 'off' },
	},
	{
		// A credential test gets only `helpers.request` from n8n (ICredentialTestFunctions has no httpRequest).
		files: ['nodes/gateway/credentialTest.ts'],
		rules: { '@n8n/community-nodes/no-deprecated-workflow-functions': 'off' },
	},
	{
		files: ['package.json'],
		extends: [community],
		plugins: { 'n8n-nodes-base': n8nNodesBase },
		languageOptions: { parser: tseslint.parser, parserOptions: { extraFileExtensions: ['.json'] } },
		rules: n8nNodesBase.configs.community.rules,
	},
	{
		files: ['credentials/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.credentials.rules,
			'n8n-nodes-base/cred-class-field-documentation-url-miscased': 'off',
		},
	},
	{
		files: ['nodes/**/*.ts'],
		rules: {
			...n8nNodesBase.configs.nodes.rules,
			// The router owns Continue On Fail for every operation (actions/router.ts).
			'n8n-nodes-base/node-execute-block-missing-continue-on-fail': 'off',
			// This plugin predates NodeConnectionTypes, which n8n's own nodes now use for inputs and outputs.
			'n8n-nodes-base/node-class-description-inputs-wrong-regular-node': 'off',
			'n8n-nodes-base/node-class-description-outputs-wrong': 'off',
			'n8n-nodes-base/node-resource-description-filename-against-convention': 'off',
			'n8n-nodes-base/node-param-type-options-max-value-present': 'off',
		},
	},
	{
		files: NOT_SHIPPED,
		extends: [js.configs.recommended, tseslint.configs.recommended],
		languageOptions: { globals: nodeGlobals },
		// Disable comments written for ESLint 8's rule names (no-var-requires) are harmless.
		linterOptions: { reportUnusedDisableDirectives: 'off' },
		rules: {
			// Scripts and the Jest configs are CommonJS.
			'@typescript-eslint/no-require-imports': 'off',
			// Tests read n8n's untyped execution data and database rows, and stub functions of any shape.
			'@typescript-eslint/no-explicit-any': 'off',
			'@typescript-eslint/no-unsafe-function-type': 'off',
			'@typescript-eslint/no-this-alias': 'off',
			'@typescript-eslint/no-unused-vars': ['error', UNUSED],
		},
	},
);
