/**
 * The README's Compatibility line says exactly which n8n versions CI runs: the oldest (`npm run test:compat`,
 * scripts/compat.js), the newest (`npm test` on the devDependencies, the end-to-end suite on scripts/lib/install.js's
 * n8n). Changing one without the others fails here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';

const root = join(__dirname, '../..');
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as {
	peerDependencies: Record<string, string>;
	devDependencies: Record<string, string>;
};
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { OLDEST } = require('../../scripts/compat.js') as { OLDEST: { n8n: string; workflow: string; core: string } };
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { N8N_VERSION } = require('../../scripts/lib/install.js') as { N8N_VERSION: string };
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const compatibility = readme.slice(readme.indexOf('## Compatibility'), readme.indexOf('\n## ', readme.indexOf('## Compatibility') + 1));

it('claims the range from the oldest n8n the compat run loads to the n8n the end-to-end suite runs', () => {
	expect(compatibility).toContain(`**n8n ${OLDEST.n8n} to ${N8N_VERSION}**`);
	expect(compatibility).toContain(`the n8n-workflow and n8n-core of **n8n ${OLDEST.n8n}** (\`npm run test:compat\`)`);
	expect(compatibility).toContain(`of **n8n ${N8N_VERSION}** (\`npm test\`)`);
	expect(compatibility).toContain(`in a real **n8n ${N8N_VERSION}**`);
});

it('npm test runs on the n8n-core of the newest n8n claimed, and the compat run on n8n 2.0.0 own packages', () => {
	expect(pkg.devDependencies['n8n-core']).toBe(N8N_VERSION);
	// n8n 2.41.1 depends on n8n-workflow 2.41.0; n8n 2.0.0 on n8n-workflow and n8n-core 2.0.0.
	expect(pkg.devDependencies['n8n-workflow']).toBe('2.41.0');
	expect(OLDEST).toEqual({ n8n: '2.0.0', workflow: '2.0.0', core: '2.0.0' });
});

it("peerDependencies says n8n-workflow: * as n8n's rules for community packages require", () => {
	expect(pkg.peerDependencies).toEqual({ 'n8n-workflow': '*' });
});
