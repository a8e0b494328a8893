/**
 * What `npm start` prints and the README's "Try it locally" tell a new user the same facts as the code: the sandbox's
 * preset templates, the login, and the ports (issue 30).
 */
import * as fs from 'fs';
import * as path from 'path';

import { PRESET_TEMPLATES } from '../sandbox/templates';

const root = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(root, file), 'utf8');

describe('README and npm start', () => {
	const readme = read('README.md');
	const start = read('scripts/start.js');
	const n8nLib = read('scripts/lib/n8n.js');

	it("name every template the sandbox account starts with, in its language", () => {
		for (const { name, language } of PRESET_TEMPLATES) {
			expect(start).toMatch(new RegExp(`${name}[^;]*\\(${language}\\)`));
			expect(readme).toMatch(new RegExp(`\`${name}\`[^;.]*\\(${language}\\)`));
		}
	});

	it('the README gives the login npm start creates, and its two commands stay first', () => {
		const owner = /email: '([^']+)', password: '([^']+)'/.exec(n8nLib)!;
		expect(readme).toContain(`\`${owner[1]}\` /\n   \`${owner[2]}\``);
		const firstBlock = /```sh\n([\s\S]*?)```/.exec(readme)![1].split('\n');
		expect(firstBlock[0]).toMatch(/^npm start\s+#/);
		expect(firstBlock[1]).toMatch(/^npm ci && npm test\s+#/);
	});

	it('says which ports are used and how to choose them', () => {
		expect(readme).toMatch(/N8N_PORT=\d+ SANDBOX_PORT=\d+ npm start/);
		expect(start).toMatch(/N8N_PORT/);
		expect(start).toMatch(/is in use/);
	});
});
