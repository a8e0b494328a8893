/**
 * The pipeline itself: the packed package is installed as a user would, the credential is imported and stored
 * encrypted, n8n starts, loads the package's node and credential types, and the owner account can be set up.
 */
import { query } from './support/db';
import { setup, n8n, type Env, ACTION, TRIGGER } from './support/env';

let env: Env;

beforeAll(async () => {
	env = await setup('pipeline');
});

afterAll(async () => {
	await env?.teardown();
});

test('the credential is imported (encrypted) with the sandbox address', async () => {
	const [row] = query(env.db, 'SELECT id, name, type, data FROM credentials_entity WHERE id = ?', n8n.CREDENTIAL_ID);
	expect(row).toBeDefined();
	expect(row.type).toBe('messagingGatewayApi');
	// Stored encrypted: the API key must not appear in clear.
	expect(String(row.data)).not.toContain(env.sandbox.apiKey);
	const out = await env.cli(['export:credentials', `--id=${n8n.CREDENTIAL_ID}`, '--decrypted']);
	const json = JSON.parse(out.slice(out.indexOf('[')));
	expect(json[0].data).toEqual({ apiKey: env.sandbox.apiKey, phoneId: env.sandbox.phoneId, baseUrl: env.sandbox.url });
});

test('n8n starts, the owner account is set up, and the credential type is loaded', async () => {
	await env.start();
	const owner = await n8n.ensureOwner(env.inst);
	expect(owner.email).toBe(n8n.OWNER.email);
	const session = await n8n.login(env.inst);
	const creds = await session.request('GET', '/types/credentials.json');
	expect((creds as Array<{ name: string }>).map((c) => c.name)).toContain('messagingGatewayApi');
});

test('n8n loads both node types of the package', async () => {
	const session = await n8n.login(env.inst);
	const types = await session.request('GET', '/types/nodes.json');
	const names = (types as Array<{ name: string }>).map((t) => t.name);
	expect(names).toContain(ACTION);
	expect(names).toContain(TRIGGER);
});
