/**
 * Template Body Examples, one field per placeholder of the Body Text (node version 1.1): the fields the editor
 * lists as the text is typed, the examples the sandbox gateway receives in placeholder order, the refusals that
 * name the item and the placeholder, and version 1 nodes whose examples are still a list.
 */
import type { IDataObject, INodeParameters } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { runLoadOptions } from '../harness';
import { sandboxCredentials } from '../sandbox';
import { bodyExamples, jsonItems, outputJson, rejectionOf, runGateway, useSandbox } from './support';

const gateway = useSandbox();

const create = (parameters: INodeParameters, options: { items?: IDataObject[]; continueOnFail?: boolean; typeVersion?: number } = {}) =>
	runGateway(
		gateway.sandbox,
		{ resource: 'template', operation: 'create', name: 'order_shipped', language: 'en_US', category: 'UTILITY', ...parameters },
		{ ...options, items: jsonItems(options.items ?? [{}]) },
	);

/** The body component of the template the sandbox received last. */
const sentBody = () =>
	(gateway.sandbox.requests.at(-1)?.body as { components: IDataObject[] }).components.find((c) => c.type === 'BODY');

describe('Body Examples fields, as the editor lists them', () => {
	const fieldsFor = async (bodyText: string) =>
		(await runLoadOptions({
			node: new MessagingGateway(),
			parameters: { resource: 'template', operation: 'create', bodyText },
			credentials: sandboxCredentials(gateway.sandbox),
			kind: 'resourceMapping',
			method: 'getBodyExampleFields',
		})) as { fields: IDataObject[]; emptyFieldsNotice?: string };

	it('gives one field per placeholder of the Body Text, {{1}} first, without asking the gateway', async () => {
		const { fields } = await fieldsFor('Hi {{2}}, {{1}} here: order {{2}} has shipped');
		expect(fields.map((field) => [field.id, field.displayName, field.type])).toEqual([
			['1', 'Example for {{1}}', 'string'],
			['2', 'Example for {{2}}', 'string'],
		]);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('lists a skipped number too, so that each field stays at its place', async () => {
		const { fields } = await fieldsFor('Hi {{1}} and {{3}}');
		expect(fields.map((field) => field.id)).toEqual(['1', '2', '3']);
	});

	it('says so when the Body Text became an expression that reads {{1}} as a number', async () => {
		expect(await fieldsFor('=Hi {{1}}, order {{2}}')).toEqual({
			fields: [],
			emptyFieldsNotice: 'The Body Text is an expression, so n8n reads {{1}}, {{2}} as numbers: switch it to Fixed to get one example field per placeholder',
		});
	});

	it('says what the run-time error says when the editor sends a pasted {{1}} text resolved ("Hi 1, ...")', async () => {
		// n8n turns a pasted text with {{ }} into an expression and resolves it before asking for the fields.
		const { fields, emptyFieldsNotice } = await fieldsFor('Hi 1, your order 2 is ready for pickup.');
		expect(fields).toEqual([]);
		expect(emptyFieldsNotice).toBe(
			'The Body Text reads the numbers 1, 2 where {{1}}, {{2}} may have been: a text with {{ }} pasted into an empty field becomes an expression, and n8n reads {{1}}, {{2}} as numbers. If the field shows Expression, switch it to Fixed to get one example field per placeholder (Execute refuses the expression for the same reason).',
		);
		expect(emptyFieldsNotice).not.toMatch(/no examples are needed/);
	});

	it('a text whose numbers are no placeholders keeps the plain notice', async () => {
		for (const text of ['Your order ships in 3 days', 'Open 10 to 18h', 'Version 1.5 is out']) {
			expect((await fieldsFor(text)).emptyFieldsNotice).toBe('The Body Text has no placeholders {{1}}, {{2}}: no examples are needed');
		}
	});

	it('says why there is nothing to fill', async () => {
		expect(await fieldsFor('Hello there')).toEqual({ fields: [], emptyFieldsNotice: expect.stringMatching(/no placeholders/) });
		expect((await fieldsFor('={{ $json.text }}')).emptyFieldsNotice).toMatch(/expression/);
	});
});

describe('Template > Create with one Body Examples field per placeholder', () => {
	it('sends the examples in placeholder order', async () => {
		await create({ bodyText: 'Hi {{1}}, order {{2}} ships {{3}}', ...bodyExamples({ 3: 'today', 1: 'Ana', 2: '#42' }) });

		expect(gateway.sandbox.requests).toHaveLength(1);
		expect(sentBody()).toEqual({
			type: 'BODY',
			format: 'TEXT',
			text: 'Hi {{1}}, order {{2}} ships {{3}}',
			example: { body_text: [['Ana', '#42', 'today']] },
		});
	});

	it('fills examples from expressions per item', async () => {
		await create(
			{ name: '={{ $json.name }}', bodyText: 'Hi {{1}}', ...bodyExamples({ 1: '={{ $json.person }}' }) },
			{ items: [{ name: 'first_one', person: 'Ana' }, { name: 'second_one', person: 'Bruno' }] },
		);

		expect(gateway.sandbox.requests.map((r) => [(r.body as IDataObject).name, (r.body as any).components[0].example]))
			.toEqual([
				['first_one', { body_text: [['Ana']] }],
				['second_one', { body_text: [['Bruno']] }],
			]);
	});

	it('leaves out the value of a placeholder the Body Text no longer has (its field is gone from the panel)', async () => {
		await create({ bodyText: 'Hi {{1}}', ...bodyExamples({ 1: 'Ana', 2: 'an old example' }) });
		expect(sentBody()?.example).toEqual({ body_text: [['Ana']] });
	});

	it('sends no example for a body without placeholders', async () => {
		await create({ bodyText: 'Your order has shipped', ...bodyExamples({}) });
		expect(sentBody()).toEqual({ type: 'BODY', format: 'TEXT', text: 'Your order has shipped' });
	});

	it('refuses a body whose placeholder has no example, naming the item and the placeholder, and sends nothing', async () => {
		const error = await rejectionOf(create({ bodyText: 'Hi {{1}}, order {{2}}', ...bodyExamples({ 1: 'Ana', 2: '' }) }));

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			'Body Examples (item 0): The body text: {{2}} has no example value; give one per placeholder, in order (the network reviews the template with them)',
		);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('names the placeholder in the middle whose example is missing, not the last one', async () => {
		const error = await rejectionOf(create({ bodyText: 'Hi {{1}}, order {{2}} ships {{3}}', ...bodyExamples({ 1: 'Ana', 3: 'today' }) }));
		expect(error.message).toMatch(/^Body Examples \(item 0\): The body text: \{\{2\}\} has no example value/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it.each([
		['Body Text', { bodyText: '=Hi {{1}}, order {{2}}', ...bodyExamples({ 1: 'Ana', 2: '#42' }) }, '{{1}}, {{2}} as numbers, not as placeholders'],
		['Header › Text', { bodyText: 'Hi', header: { header: { format: 'TEXT', text: '=Order {{1}}', example: '#42' } } }, '{{1}} as a number, not as a placeholder'],
		[
			'URL Buttons › button 1 › URL',
			{ bodyText: 'Hi', urlButtons: { button: [{ text: 'Track', url: '=https://shop.example/t/{{1}}', example: 'https://shop.example/t/42' }] } },
			'{{1}} as a number, not as a placeholder',
		],
	])('refuses a %s that became an expression reading placeholders as numbers, and sends nothing', async (field, parameters, reads) => {
		const error = await rejectionOf(create(parameters as INodeParameters));

		expect(error).toBeInstanceOf(NodeOperationError);
		expect(error.message).toBe(
			`${field} (item 0): is an expression, so n8n reads ${reads}: switch the field to Fixed (a text with {{ }} pasted into an empty field becomes an expression), or take the text from data, e.g. {{ $json.text }}`,
		);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});

	it('takes placeholders built as text inside an expression block', async () => {
		await create({ bodyText: '={{ "Hi {{1}" + "}" }}', ...bodyExamples({ 1: 'Ana' }) });
		expect(sentBody()).toMatchObject({ text: 'Hi {{1}}', example: { body_text: [['Ana']] } });
	});

	it('with Continue On Fail, reports the item without examples and creates the other', async () => {
		const result = await create(
			{ name: '={{ $json.name }}', bodyText: '={{ $json.text }}', ...bodyExamples({ 1: 'Ana' }) },
			{
				continueOnFail: true,
				items: [
					{ name: 'good_one', text: 'Hello {{1}}' },
					{ name: 'bad_one', text: 'Hello {{1}}, order {{2}}' },
				],
			},
		);

		expect(gateway.sandbox.requests).toHaveLength(1);
		expect(gateway.sandbox.requests[0].body).toMatchObject({ name: 'good_one' });
		const [good, bad] = outputJson(result);
		expect(good.name).toBe('good_one');
		expect(bad.error).toMatch(/^Body Examples \(item 1\): The body text: \{\{2\}\} has no example value/);
		expect(result.output[0][1].pairedItem).toEqual({ item: 1 });
	});
});

describe('Template > Create in a version 1 node (workflows saved before Body Examples had a field per placeholder)', () => {
	it('still sends the examples of its list, in the list order', async () => {
		await create(
			{ bodyText: 'Hi {{1}}, order {{2}}', bodyExamples: { example: [{ value: 'Ana' }, { value: '#42' }] } },
			{ typeVersion: 1 },
		);
		expect(sentBody()?.example).toEqual({ body_text: [['Ana', '#42']] });
	});

	it('still refuses a list with more examples than placeholders', async () => {
		const error = await rejectionOf(
			create({ bodyText: 'Hi {{1}}', bodyExamples: { example: [{ value: 'Ana' }, { value: 'extra' }] } }, { typeVersion: 1 }),
		);
		expect(error.message).toMatch(/^Body Examples \(item 0\): The body text has 2 example values for 1 placeholder/);
		expect(gateway.sandbox.requests).toHaveLength(0);
	});
});
