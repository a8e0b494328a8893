/**
 * Template > Create, Get, Edit and the template-parameter methods, through the real node in n8n's execution
 * context against the sandbox gateway: what the gateway receives, what the node outputs, and every refusal made
 * before anything is sent.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeApiError, NodeOperationError } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { runLoadOptions } from '../harness';
import { sandboxCredentials } from '../sandbox';
import { bodyExamples, jsonItems, outputJson, rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const credentials = () => sandboxCredentials(gateway.sandbox);

const run = (parameters: INodeParameters, options: { items?: IDataObject[]; continueOnFail?: boolean } = {}) =>
	runGateway(gateway.sandbox, { resource: 'template', ...parameters }, { ...options, items: jsonItems(options.items ?? [{}]) });

const json = outputJson;

const orderShipped: INodeParameters = {
	operation: 'create',
	name: 'order_shipped',
	language: 'en_US',
	category: 'UTILITY',
	bodyText: 'Hi {{1}}, order {{2}} has shipped',
	...bodyExamples({ 1: 'Ana', 2: '#42' }),
	header: { header: { format: 'LOCATION' } },
	footerText: 'Reply STOP to opt out',
	urlButtons: { button: [{ text: 'Track', url: 'https://shop.example/t/{{1}}', example: 'https://shop.example/t/42' }] },
};

const orderShippedComponents = [
	{ type: 'HEADER', format: 'LOCATION' },
	{ type: 'BODY', format: 'TEXT', text: 'Hi {{1}}, order {{2}} has shipped', example: { body_text: [['Ana', '#42']] } },
	{ type: 'FOOTER', text: 'Reply STOP to opt out' },
	{
		type: 'BUTTONS',
		buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.example/t/{{1}}', example: ['https://shop.example/t/42'] }],
	},
];

async function createTemplate(parameters: INodeParameters = orderShipped): Promise<string> {
	const [created] = json(await run(parameters));
	return created.id as string;
}

/** The error a run throws, with what the sandbox received meanwhile. */
const failure = (parameters: INodeParameters) => rejectionOf(run(parameters));

describe('Template > Create', () => {
	it('sends POST /api/Templates (version 5.0, apikey) with the built components and says it was created', async () => {
		const result = await run(orderShipped);

		expect(gateway.sandbox.requests).toHaveLength(1);
		const [request] = gateway.sandbox.requests;
		expect(request.method).toBe('POST');
		expect(request.path).toBe('/api/Templates');
		expect(request.query).toEqual({});
		expect(request.headers.version).toBe('5.0');
		expect(request.headers.apikey).toBe(gateway.sandbox.apiKey);
		expect(request.headers['content-type']).toMatch(/^application\/json/);
		expect(request.body).toEqual({
			name: 'order_shipped',
			language: 'en_US',
			category: 'UTILITY',
			components: orderShippedComponents,
		});
		expect(request.status).toBe(201);
		expect(json(result)).toEqual([
			{
				name: 'order_shipped',
				language: 'en_US',
				id: expect.stringMatching(/^\d+$/),
				status: 'APPROVED',
				category: 'UTILITY',
				created: true,
				unchanged: false,
			},
		]);
	});

	it('says so when the template already existed and the gateway left it unchanged (200)', async () => {
		const first = json(await run(orderShipped))[0];
		const second = json(await run({ ...orderShipped, footerText: 'Another footer' }))[0];

		expect(gateway.sandbox.requests.map((request) => request.status)).toEqual([201, 200]);
		expect(second).toMatchObject({ id: first.id, created: false, unchanged: true, status: 'APPROVED' });
	});

	it('takes components as JSON, a category given by expression, and the phone id query parameter', async () => {
		const components = [{ type: 'BODY', text: 'Ticket {{1}} updated', example: { body_text: [['T-1']] } }];
		await run({
			operation: 'create',
			name: 'ticket_update',
			language: 'pt_BR',
			category: '={{ "TICKET_UPDATE" }}',
			componentsInput: 'json',
			componentsJson: JSON.stringify(components),
			options: { phoneId: '123456789' },
		});

		const [request] = gateway.sandbox.requests;
		expect(request.query).toEqual({ phoneId: '123456789' });
		expect(request.body).toEqual({ name: 'ticket_update', language: 'pt_BR', category: 'TICKET_UPDATE', components });
	});

	it.each([
		[
			'a gap in the placeholders',
			{ bodyText: 'Hi {{1}} and {{3}}', ...bodyExamples({ 1: 'a', 2: 'b', 3: 'c' }) },
			'Body Text (item 0): The body text uses {{1}}, {{3}} but not {{2}}: placeholders are numbered from {{1}} without gaps',
		],
		[
			'a placeholder without example',
			{ bodyText: 'Hi {{1}}, order {{2}}', ...bodyExamples({ 1: 'Ana' }) },
			'Body Examples (item 0): The body text: {{2}} has no example value; give one per placeholder, in order (the network reviews the template with them)',
		],
		[
			'a placeholder whose example field was left empty',
			{ bodyText: 'Hi {{1}}, order {{2}}', ...bodyExamples({ 1: null, 2: '#42' }) },
			'Body Examples (item 0): The body text: {{1}} has no example value; give one per placeholder, in order (the network reviews the template with them)',
		],
		[
			'an example that is an object',
			{ bodyText: 'Hi {{1}}', ...bodyExamples({ 1: '={{ { name: "Ana" } }}' }) },
			/^Body Examples › Example for \{\{1\}\} \(item 0\): /,
		],
		['an empty body', { bodyText: '' }, 'Body Text (item 0): The template needs a body: a BODY component with text'],
		[
			'a URL button without example',
			{ urlButtons: { button: [{ text: 'Go', url: 'https://shop.example/{{1}}' }] } },
			'URL Buttons (item 0): The URL of button 1: {{1}} has no example value; give one per placeholder, in order (the network reviews the template with them)',
		],
		['a hyphenated language', { language: 'en-US' }, 'Language (item 0): "en-US" uses a hyphen: the gateway expects an underscore, as in en_US'],
		['an empty name', { name: ' ' }, /^Name \(item 0\): is empty; enter a name of lowercase letters/],
		['invalid JSON components', { componentsInput: 'json', componentsJson: '[{"type": "BODY",' }, /^Components \(JSON\) \(item 0\): is not valid JSON/],
		[
			'JSON components without a body',
			{ componentsInput: 'json', componentsJson: '[{"type": "FOOTER", "text": "x"}]' },
			'Components (JSON) (item 0): The template needs a body: a BODY component with text',
		],
	])('refuses %s, naming the field, and sends nothing', async (_case, change, message) => {
		const error = await failure({ ...orderShipped, ...(change as INodeParameters) });

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toEqual(typeof message === 'string' ? message : expect.stringMatching(message));
		expect(error.context.itemIndex).toBe(0);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('with Continue On Fail, reports the refused item and still creates the others', async () => {
		const result = await run(
			{ ...orderShipped, name: '={{ $json.name }}', bodyText: '={{ $json.text }}', ...bodyExamples({ 1: 'Ana' }) },
			{
				continueOnFail: true,
				items: [
					{ name: 'good_one', text: 'Hello {{1}}' },
					{ name: 'bad_one', text: 'Hello {{2}}' },
				],
			},
		);

		expect(gateway.sandbox.requests).toHaveLength(1);
		expect(gateway.sandbox.requests[0].body).toMatchObject({ name: 'good_one' });
		const [good, bad] = result.output[0];
		expect(good.json).toMatchObject({ created: true });
		expect(bad.json.error).toMatch(/^Body Text \(item 1\): The body text uses \{\{2\}\} but not \{\{1\}\}/);
		expect(bad.pairedItem).toEqual({ item: 1 });
	});
});

describe('Template > Get', () => {
	it('sends GET /api/Templates/{id} and outputs the template as returned', async () => {
		const id = await createTemplate();
		gateway.sandbox.requests.length = 0;

		const result = await run({ operation: 'get', templateId: id });

		expect(gateway.sandbox.requests.map((r) => [r.method, r.path, r.headers.version, r.body])).toEqual([
			['GET', `/api/Templates/${id}`, '5.0', null],
		]);
		expect(json(result)).toEqual([
			{
				id,
				name: 'order_shipped',
				language: 'en_US',
				category: 'UTILITY',
				status: 'APPROVED',
				components: orderShippedComponents,
			},
		]);
	});

	it('passes on the gateway refusal of an unknown id as a NodeApiError', async () => {
		const error = await failure({ operation: 'get', templateId: '404404' });
		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toContain('Template 404404 not found');
	});

	it('refuses an ID that would change the path, before sending', async () => {
		const error = await failure({ operation: 'get', templateId: '12/../../Webhooks' });
		expect(error.message).toBe('Template ID (item 0): "12/../../Webhooks" is not an ID: it holds a slash, space, ? or #');
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});

describe('Template > Edit', () => {
	const edit = (id: string, parameters: INodeParameters = {}) =>
		run({ operation: 'edit', templateId: id, ...parameters });

	it('starting from the current template, reads it and replaces only what was set', async () => {
		const id = await createTemplate();
		gateway.sandbox.requests.length = 0;

		const result = await edit(id, { footerText: 'New footer' });

		expect(gateway.sandbox.requests.map((r) => [r.method, r.path, r.headers.version])).toEqual([
			['GET', `/api/Templates/${id}`, '5.0'],
			['PUT', `/api/Templates/${id}`, '5.0'],
		]);
		const expectedBody = {
			name: 'order_shipped',
			language: 'en_US',
			category: 'UTILITY',
			components: [orderShippedComponents[0], orderShippedComponents[1], { type: 'FOOTER', text: 'New footer' }, orderShippedComponents[3]],
		};
		expect(gateway.sandbox.requests[1].body).toEqual(expectedBody);
		expect(json(result)).toEqual([{ success: true, id, ...expectedBody }]);
	});

	it('without starting from the current template, sends the components set as the whole content', async () => {
		const id = await createTemplate();
		gateway.sandbox.requests.length = 0;

		await edit(id, { startFromCurrent: false, bodyText: 'Your order has shipped' });

		expect(gateway.sandbox.requests[1].body).toEqual({
			name: 'order_shipped',
			language: 'en_US',
			category: 'UTILITY',
			components: [{ type: 'BODY', format: 'TEXT', text: 'Your order has shipped' }],
		});
	});

	it('offers no Category on Edit (an edit cannot change it) and sends the current one', async () => {
		const updateFields = new MessagingGateway().description.properties.find(
			(property) => property.name === 'updateFields' && property.displayOptions?.show?.operation?.includes('edit'),
		);
		expect((updateFields?.options ?? []).map((option) => option.name)).not.toContain('category');

		const id = await createTemplate();
		gateway.sandbox.setTemplateStatus(id, 'APPROVED');
		gateway.sandbox.requests.length = 0;
		await edit(id, { footerText: 'Thanks' });
		expect(gateway.sandbox.requests[1].body).toMatchObject({ name: 'order_shipped', category: 'UTILITY' });
	});

	it.each(['PENDING', 'DISABLED'])('refuses to edit a %s template, naming the editable states', async (status) => {
		const id = await createTemplate();
		gateway.sandbox.setTemplateStatus(id, status);
		gateway.sandbox.requests.length = 0;

		const error = await failure({ operation: 'edit', templateId: id, footerText: 'x' });

		expect(error.message).toBe(
			`Template ID (item 0): template ${id} cannot be edited: The template's status is ${status}: only templates whose status is APPROVED, REJECTED, PAUSED can be edited`,
		);
		expect(error.description).toContain('at most 10 edits in 30 days, or 1 edit in 24 hours');
		expect(gateway.sandbox.requests.map((r) => r.method)).toEqual(['GET']);
	});

	it('explains the edit rules when the gateway refuses an edit (quota of an approved template)', async () => {
		const id = await createTemplate();
		await edit(id, { footerText: 'First edit' });

		const error = await failure({ operation: 'edit', templateId: id, footerText: 'Second edit' });

		expect(error).toBeInstanceOf(NodeApiError);
		expect(error.message).toMatch(/Template edit quota exceeded/);
		expect(error.description).toContain(
			'Edit rules: Only templates whose status is APPROVED, REJECTED, PAUSED can be edited. An approved template allows at most 10 edits in 30 days, or 1 edit in 24 hours',
		);
	});

	it('lets a paused template be edited again and again', async () => {
		const id = await createTemplate();
		gateway.sandbox.setTemplateStatus(id, 'PAUSED');
		await edit(id, { footerText: 'One' });
		await edit(id, { footerText: 'Two' });
		expect(gateway.sandbox.requests.filter((r) => r.method === 'PUT').map((r) => r.status)).toEqual([200, 200]);
	});

	it('refuses an edit that sets nothing, and one with broken placeholders, before sending anything', async () => {
		const id = await createTemplate();
		gateway.sandbox.requests.length = 0;

		expect((await failure({ operation: 'edit', templateId: id })).message).toBe(
			'Update Fields (item 0): nothing to change: set a field or a component to edit',
		);
		expect((await failure({ operation: 'edit', templateId: id, bodyText: 'Hi {{2}}' })).message).toMatch(
			/^Body Text \(item 0\): The body text uses \{\{2\}\} but not \{\{1\}\}/,
		);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});

describe('template parameters for template messages', () => {
	// The message resource's template ID field is the message engineer's; the template ID of Template > Get is the
	// same parameter name, so the methods are called from there.
	it('lists the placeholders of a template read by its ID, with examples', async () => {
		const id = await createTemplate();

		const options = await runLoadOptions({
			node: new MessagingGateway(),
			parameters: { resource: 'template', operation: 'get', templateId: id },
			credentials: credentials(),
			method: 'getTemplateParameters',
		});

		expect(options).toEqual([
			{ name: 'Body {{1}}', value: 'body_1', description: 'Example: Ana' },
			{ name: 'Body {{2}}', value: 'body_2', description: 'Example: #42' },
			{ name: 'Button 1 "Track" URL {{1}}', value: 'button_0_1', description: 'Example: https://shop.example/t/42' },
		]);
		expect(gateway.sandbox.requests.at(-1)).toMatchObject({ method: 'GET', path: `/api/Templates/${id}` });
	});

	it('offers them as required resource-mapper fields, and a notice without a template ID', async () => {
		const id = await createTemplate();
		const node = new MessagingGateway();

		const fields = (await runLoadOptions({
			node,
			parameters: { resource: 'template', operation: 'get', templateId: id },
			credentials: credentials(),
			kind: 'resourceMapping',
			method: 'getTemplateParameterFields',
		})) as { fields: IDataObject[] };
		expect(fields.fields.map((field) => [field.id, field.displayName, field.required])).toEqual([
			['body_1', 'Body {{1}} (e.g. Ana)', true],
			['body_2', 'Body {{2}} (e.g. #42)', true],
			['button_0_1', 'Button 1 "Track" URL {{1}}', true],
		]);

		const requestsBefore = gateway.sandbox.requests.length;
		const empty = await runLoadOptions({
			node,
			parameters: { resource: 'template', operation: 'get', templateId: '' },
			credentials: credentials(),
			kind: 'resourceMapping',
			method: 'getTemplateParameterFields',
		});
		expect(empty).toEqual({ fields: [], emptyFieldsNotice: 'Enter a fixed Template ID above to list the template’s parameters' });
		expect(gateway.sandbox.requests).toHaveLength(requestsBefore);
	});
});
