/** Templates: creation (spec 4.4), reading (4.6), edits and their rules (3, 4.5, 8). */
import { ENDPOINTS } from '../../nodes/gateway/spec';
import { call } from './helpers';
import { startSandbox, type Sandbox } from './server';

const HOUR = 3600_000;
let clock = Date.UTC(2026, 0, 1);
let sandbox: Sandbox;
beforeAll(async () => {
	sandbox = await startSandbox({ now: () => clock });
});
afterAll(() => sandbox.close());
beforeEach(() => sandbox.reset());

const PATH = ENDPOINTS.templates.path;
const VALID_TEMPLATE = {
	name: 'pedido_enviado',
	language: 'pt_BR',
	category: 'UTILITY',
	components: [
		{
			type: 'BODY',
			format: 'TEXT',
			text: 'Olá {{1}}, seu pedido {{2}} foi enviado.',
			example: { body_text: [['Ana', '12345']] },
		},
		{ type: 'FOOTER', text: 'Loja Sandbox' },
		{
			type: 'BUTTONS',
			buttons: [{ type: 'URL', text: 'Rastrear', url: 'https://loja.example/pedido/{{1}}', example: ['https://loja.example/pedido/12345'] }],
		},
	],
};

const create = (body: unknown) => call(sandbox, 'POST', PATH, { endpoint: 'templates', body });
const edit = (id: string, body: unknown) => call(sandbox, 'PUT', `${PATH}/${id}`, { endpoint: 'templates', body });
const withBodyText = (text: string, example?: unknown) => ({
	...VALID_TEMPLATE,
	components: [{ type: 'BODY', text, ...(example === undefined ? {} : { example }) }],
});

describe('creation and reading', () => {
	it('creates a template: 201 with id, APPROVED and the category', async () => {
		const result = await create(VALID_TEMPLATE);
		expect(result.status).toBe(201);
		expect(result.json).toEqual({ id: expect.stringMatching(/^\d+$/), status: 'APPROVED', category: 'UTILITY' });
	});

	it('answers 200 with the existing template when the name and language exist, and changes nothing', async () => {
		const first = (await create(VALID_TEMPLATE)).json;
		const again = await create({ ...VALID_TEMPLATE, category: 'MARKETING', components: [{ type: 'BODY', text: 'Outro' }] });
		expect(again.status).toBe(200);
		expect(again.json).toEqual(first);
		const read = await call(sandbox, 'GET', `${PATH}/${first.id}`, { endpoint: 'templates' });
		expect(read.json.components).toEqual(VALID_TEMPLATE.components);
		expect(read.json.category).toBe('UTILITY');
	});

	it('creates another template for another language', async () => {
		const first = (await create(VALID_TEMPLATE)).json;
		const other = await create({ ...VALID_TEMPLATE, language: 'en_US' });
		expect(other.status).toBe(201);
		expect(other.json.id).not.toBe(first.id);
	});

	it('accepts the TICKET_UPDATE category of the spec example', async () => {
		expect((await create({ ...VALID_TEMPLATE, category: 'TICKET_UPDATE' })).status).toBe(201);
	});

	it('reads a template with the fields of spec 2.5, and answers 404 for an unknown id', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		const result = await call(sandbox, 'GET', `${PATH}/${id}`, { endpoint: 'templates' });
		expect(result.status).toBe(200);
		expect(result.json).toEqual({ ...VALID_TEMPLATE, status: 'APPROVED', id });
		expect((await call(sandbox, 'GET', `${PATH}/1`, { endpoint: 'templates' })).status).toBe(404);
	});
});

/** [case, body, the offending field the refusal names]. */
const REFUSED: Array<[string, unknown, string]> = [
	['gapped placeholders', withBodyText('Olá {{1}}, pedido {{3}}', { body_text: [['Ana', '1', '2']] }), 'components[0].text'],
	['placeholders that do not start at 1', withBodyText('Olá {{2}}', { body_text: [['Ana', 'x']] }), 'components[0].text'],
	['a named placeholder', withBodyText('Olá {{nome}}', { body_text: [['Ana']] }), 'components[0].text'],
	['placeholders without an example', withBodyText('Olá {{1}}'), 'components[0].example'],
	['an example with too few values', withBodyText('Olá {{1}} {{2}}', { body_text: [['Ana']] }), 'components[0].example.body_text[0][1]'],
	['no BODY component', { ...VALID_TEMPLATE, components: [{ type: 'FOOTER', text: 'x' }] }, 'components'],
	['a BODY without text', { ...VALID_TEMPLATE, components: [{ type: 'BODY', format: 'TEXT' }] }, 'components[0].text'],
	['an unknown category', { ...VALID_TEMPLATE, category: 'TRANSACTIONAL' }, 'category'],
	['a language not in xx_XX form', { ...VALID_TEMPLATE, language: 'pt' }, 'language'],
	['a lowercase component type', { ...VALID_TEMPLATE, components: [{ type: 'body', text: 'x' }] }, 'components[0].type'],
	[
		'a URL button with {{1}} and no example',
		{
			...VALID_TEMPLATE,
			components: [{ type: 'BODY', text: 'x' }, { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Ver', url: 'https://a.example/{{1}}' }] }],
		},
		'components[1].buttons[0].example',
	],
	['no name', { ...VALID_TEMPLATE, name: undefined }, 'name'],
	['a name with capitals', { ...VALID_TEMPLATE, name: 'Order_Shipped' }, 'name'],
	['a name with a space and a mark', { ...VALID_TEMPLATE, name: 'order shipped!' }, 'name'],
	['an object sent as text', { ...VALID_TEMPLATE, name: '[object Object]' }, 'name'],
	['a body that is an object sent as text', withBodyText('[object Object]'), 'components[0].text'],
];

describe('refused creations', () => {
	it.each(REFUSED)('refuses %s with 400 naming the field', async (_case, body, field) => {
		const result = await create(body);
		expect(result.status).toBe(400);
		expect(result.json.error.message).toContain(`Invalid parameter: ${field} `);
		expect(sandbox.state.templates.size).toBe(0);
	});
});

describe('edits', () => {
	const edited = {
		...VALID_TEMPLATE,
		components: [{ type: 'BODY', text: 'Oi {{1}}, o pedido {{2}} saiu para entrega.', example: { body_text: [['Ana', '12345']] } }],
	};

	it('replaces the content entirely and answers { success: true }', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		const result = await edit(id, edited);
		expect(result.status).toBe(200);
		expect(result.json).toEqual({ success: true });
		const read = await call(sandbox, 'GET', `${PATH}/${id}`, { endpoint: 'templates' });
		expect(read.json.components).toEqual(edited.components);
	});

	it('refuses a category change: it needs a new template', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		const result = await edit(id, { ...edited, category: 'MARKETING' });
		expect(result.status).toBe(400);
		expect(result.json.error.message).toContain('Invalid parameter: category ');
		expect(result.json.error.message).toMatch(/new template/);
	});

	it('refuses to edit a template whose status is not APPROVED, REJECTED or PAUSED', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		sandbox.setTemplateStatus(id, 'PENDING');
		const result = await edit(id, edited);
		expect(result.status).toBe(400);
		expect(result.json.error.message).toMatch(/PENDING/);
		expect(result.json.error.message).toMatch(/APPROVED, REJECTED, PAUSED/);
	});

	it('answers 404 when editing an unknown template', async () => {
		expect((await edit('123', edited)).status).toBe(404);
	});

	it('allows one edit of an approved template per 24 hours', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		expect((await edit(id, edited)).status).toBe(200);
		clock += 23 * HOUR;
		const refused = await edit(id, VALID_TEMPLATE);
		expect(refused.status).toBe(400);
		expect(refused.json.error.message).toMatch(/quota/i);
		expect(refused.json.error.message).toMatch(/24 hours/);
		const read = await call(sandbox, 'GET', `${PATH}/${id}`, { endpoint: 'templates' });
		expect(read.json.components).toEqual(edited.components);
		clock += 2 * HOUR;
		expect((await edit(id, VALID_TEMPLATE)).status).toBe(200);
	});

	it('allows 10 edits of an approved template per 30 days', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		for (let i = 0; i < 10; i++) {
			expect((await edit(id, i % 2 ? VALID_TEMPLATE : edited)).status).toBe(200);
			clock += 25 * HOUR;
		}
		const refused = await edit(id, VALID_TEMPLATE);
		expect(refused.status).toBe(400);
		expect(refused.json.error.message).toMatch(/10 times in 30 days/);
	});

	it('allows unlimited edits of rejected and paused templates', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		for (const status of ['REJECTED', 'PAUSED']) {
			sandbox.setTemplateStatus(id, status);
			for (let i = 0; i < 12; i++) expect((await edit(id, i % 2 ? VALID_TEMPLATE : edited)).status).toBe(200);
		}
	});

	it('sets a status through the control API', async () => {
		const { id } = (await create(VALID_TEMPLATE)).json;
		const response = await fetch(`${sandbox.url}/__sandbox/template-status`, {
			method: 'POST',
			body: JSON.stringify({ id, status: 'DISABLED' }),
		});
		expect(response.status).toBe(200);
		expect((await call(sandbox, 'GET', `${PATH}/${id}`, { endpoint: 'templates' })).json.status).toBe('DISABLED');
	});
});
