import {
	buildComponents,
	mergeComponents,
	parseComponentsJson,
	type TemplateComponent,
	placeholderSlots,
	placeholdersReadAsNumbers,
	scanPlaceholders,
} from '../../nodes/MessagingGateway/templates/components';
import { checkLanguage, checkTemplateComponents } from '../../nodes/MessagingGateway/templates/check';
import { editRefusal, TEMPLATE_EDIT_RULES } from '../../nodes/MessagingGateway/templates/editRules';


const body = (text: string, examples?: string[]): TemplateComponent => ({
	type: 'BODY',
	format: 'TEXT',
	text,
	...(examples ? { example: { body_text: [examples] } } : {}),
});

const messages = (components: TemplateComponent[], requireBody = true) =>
	checkTemplateComponents(components, { requireBody }).map((problem) => `${problem.place}: ${problem.message}`);

describe('scanPlaceholders', () => {
	it('finds distinct numbered placeholders in ascending order and reports the others', () => {
		expect(scanPlaceholders('Hi {{2}}, {{1}} and {{ 2 }}; {{name}} {{0}}')).toEqual({
			numbers: [1, 2],
			invalid: ['{{name}}', '{{0}}'],
		});
	});
});

describe('placeholderSlots (one Body Examples field each)', () => {
	it('numbers 1 to the highest placeholder, gaps and repeats included once', () => {
		expect(placeholderSlots('Hi {{2}}, {{1}} and {{ 2 }}')).toEqual([1, 2]);
		expect(placeholderSlots('{{1}} {{3}}')).toEqual([1, 2, 3]);
		expect(placeholderSlots('No placeholders, {{name}} is not one')).toEqual([]);
	});
});

describe('placeholdersReadAsNumbers (a text with placeholders that became an expression)', () => {
	it('reports the placeholders an expression reads as numbers', () => {
		expect(placeholdersReadAsNumbers('=Hi {{1}}, order {{ 2 }} has shipped')).toEqual(['{{1}}', '{{ 2 }}']);
	});

	it('keeps placeholders written as text inside an expression block, and fixed texts', () => {
		expect(placeholdersReadAsNumbers('={{ "Hi {{1}" + "}, order {{2}" + "}" }}')).toEqual([]);
		expect(placeholdersReadAsNumbers('=Hi {{ $json.name }}')).toEqual([]);
		expect(placeholdersReadAsNumbers('Hi {{1}}')).toEqual([]);
		expect(placeholdersReadAsNumbers(undefined)).toEqual([]);
	});
});

describe('checkTemplateComponents', () => {
	it('accepts a body whose placeholders run from 1 without gaps, each with an example', () => {
		expect(messages([body('Hello {{1}}, your order {{2}} shipped', ['Ana', '#42'])])).toEqual([]);
	});

	it('accepts a body without placeholders and without examples', () => {
		expect(messages([body('Thanks for your order')])).toEqual([]);
	});

	it('requires a body with text', () => {
		expect(messages([{ type: 'FOOTER', text: 'bye' }])).toEqual([
			'BODY: The template needs a body: a BODY component with text',
		]);
		expect(messages([body('   ')])).toEqual(['BODY: The body has no text']);
	});

	it('lets an edit that keeps the current body leave it out', () => {
		expect(messages([{ type: 'FOOTER', text: 'bye' }], false)).toEqual([]);
	});

	it('names the gap when placeholders skip a number', () => {
		expect(messages([body('{{1}} then {{3}}', ['a', 'b', 'c'])])).toEqual([
			'BODY: The body text uses {{1}}, {{3}} but not {{2}}: placeholders are numbered from {{1}} without gaps',
		]);
	});

	it('requires numbering to start at 1', () => {
		expect(messages([body('Only {{2}}', ['x', 'y'])])[0]).toContain('but not {{1}}');
	});

	it('names each placeholder that has no example, including blank examples', () => {
		expect(messages([body('{{1}} {{2}} {{3}}', ['a', ' '])])).toEqual([
			'BODY: The body text: {{2}}, {{3}} have no example value; give one per placeholder, in order (the network reviews the template with them)',
		]);
		expect(messages([body('Hi {{1}}')])[0]).toContain('{{1}} has no example value');
	});

	it('refuses more examples than placeholders, also on a body without placeholders', () => {
		expect(messages([body('Hi {{1}}', ['Ana', 'Bo'])])).toEqual([
			'BODY: The body text has 2 example values for 1 placeholder: give exactly one per placeholder',
		]);
		expect(messages([body('Hi', ['Ana'])])[0]).toContain('1 example value for 0 placeholders');
	});

	it('allows a URL button only the placeholder {{1}}', () => {
		const buttons: TemplateComponent = {
			type: 'BUTTONS',
			buttons: [{ type: 'URL', text: 'Go', url: 'https://x.test/{{1}}/{{2}}', example: ['a', 'b'] }],
		};
		expect(messages([body('ok'), buttons])).toEqual([
			'BUTTONS: The URL of button 1 has {{2}}: a URL button takes only the placeholder {{1}}',
		]);
	});

	it('refuses placeholders that are not numbers', () => {
		expect(messages([body('Hi {{name}}')])[0]).toBe(
			'BODY: The body text has {{name}}: placeholders are numbered, written {{1}}, {{2}} and so on',
		);
	});

	it('checks URL buttons and text headers the same way', () => {
		const components: TemplateComponent[] = [
			{ type: 'HEADER', format: 'TEXT', text: 'Order {{1}}' },
			body('ok'),
			{ type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://x.test/{{1}}' }] },
		];
		expect(messages(components)).toEqual([
			expect.stringMatching(/^HEADER: The header text: \{\{1\}\} has no example/),
			expect.stringMatching(/^BUTTONS: The URL of button 1: \{\{1\}\} has no example/),
		]);
		expect(messages([{ type: 'HEADER', format: 'LOCATION' }, body('ok')])).toEqual([]);
	});

	it('refuses two bodies and an empty button list', () => {
		expect(messages([body('a'), body('b'), { type: 'BUTTONS', buttons: [] }])).toEqual([
			'BODY: A template has one body, not 2',
			'BUTTONS: A BUTTONS component needs at least one button',
		]);
	});
});

describe('buildComponents', () => {
	it('builds header, body, footer and URL buttons in the network order, leaving out what is not set', () => {
		expect(
			buildComponents({
				bodyText: 'Hi {{1}}',
				bodyExamples: ['Ana'],
				header: { format: 'LOCATION' },
				footerText: 'Reply STOP to opt out',
				urlButtons: [{ text: 'Track', url: 'https://shop.test/t/{{1}}', example: 'https://shop.test/t/42' }],
			}),
		).toEqual([
			{ type: 'HEADER', format: 'LOCATION' },
			{ type: 'BODY', format: 'TEXT', text: 'Hi {{1}}', example: { body_text: [['Ana']] } },
			{ type: 'FOOTER', text: 'Reply STOP to opt out' },
			{
				type: 'BUTTONS',
				buttons: [{ type: 'URL', text: 'Track', url: 'https://shop.test/t/{{1}}', example: ['https://shop.test/t/42'] }],
			},
		]);
		expect(buildComponents({ bodyText: '', footerText: ' ', urlButtons: [] })).toEqual([]);
	});

	it('gives a text header its example as header_text and a media header as header_handle', () => {
		expect(buildComponents({ header: { format: 'TEXT', text: 'Hi {{1}}', example: 'Ana' } })).toEqual([
			{ type: 'HEADER', format: 'TEXT', text: 'Hi {{1}}', example: { header_text: ['Ana'] } },
		]);
		expect(buildComponents({ header: { format: 'IMAGE', example: '4::aGFuZGxl' } })).toEqual([
			{ type: 'HEADER', format: 'IMAGE', example: { header_handle: ['4::aGFuZGxl'] } },
		]);
	});
});

describe('parseComponentsJson', () => {
	it('accepts an array, a JSON string, or a whole template with components', () => {
		const components = [{ type: 'BODY', text: 'x' }];
		expect(parseComponentsJson(components)).toEqual({ components });
		expect(parseComponentsJson(JSON.stringify(components))).toEqual({ components });
		expect(parseComponentsJson({ name: 'n', components })).toEqual({ components });
	});

	it('says what is wrong with other values', () => {
		expect(parseComponentsJson('[{')).toEqual({ error: expect.stringMatching(/^is not valid JSON/) });
		expect(parseComponentsJson({ type: 'BODY' })).toEqual({ error: expect.stringMatching(/must be an array/) });
		expect(parseComponentsJson([{ text: 'x' }])).toEqual({ error: 'entry 1 has no "type" (BODY, HEADER, FOOTER or BUTTONS)' });
		expect(parseComponentsJson('')).toEqual({ error: expect.stringMatching(/^is empty/) });
	});
});

describe('mergeComponents', () => {
	it('replaces the current components of each changed type and keeps the others', () => {
		const current: TemplateComponent[] = [
			{ type: 'HEADER', format: 'LOCATION' },
			body('old'),
			{ type: 'FOOTER', text: 'old footer' },
		];
		expect(mergeComponents(current, [{ type: 'footer', text: 'new footer' }])).toEqual([
			{ type: 'HEADER', format: 'LOCATION' },
			body('old'),
			{ type: 'footer', text: 'new footer' },
		]);
		expect(mergeComponents(current, [body('new')])).toEqual([current[0], body('new'), current[2]]);
	});
});

describe('checkLanguage', () => {
	it('accepts locale codes and refuses empty or hyphenated ones with the fix', () => {
		expect(checkLanguage('pt_BR')).toBeUndefined();
		expect(checkLanguage('en')).toBeUndefined();
		expect(checkLanguage(' ')).toMatch(/^is empty/);
		expect(checkLanguage('en-US')).toBe('"en-US" uses a hyphen: the gateway expects an underscore, as in en_US');
	});
});

describe('editRefusal', () => {
	it('allows approved, rejected and paused templates in any letter case when the category is kept', () => {
		for (const status of ['APPROVED', 'rejected', 'Paused']) {
			expect(editRefusal({ status, category: 'MARKETING' }, 'marketing')).toBeUndefined();
		}
		expect(editRefusal({ status: 'APPROVED', category: 'MARKETING' }, undefined)).toBeUndefined();
	});

	it('refuses other statuses, naming the status and the editable ones', () => {
		expect(editRefusal({ status: 'PENDING', category: 'UTILITY' }, 'UTILITY')).toBe(
			"The template's status is PENDING: only templates whose status is APPROVED, REJECTED, PAUSED can be edited",
		);
	});

	it('refuses a category change with the reason', () => {
		expect(editRefusal({ status: 'APPROVED', category: 'UTILITY' }, 'MARKETING')).toMatch(
			/cannot be changed by an edit; create a new template .*\(current category UTILITY, requested MARKETING\)$/,
		);
	});

	it('explains the edit quota of approved templates', () => {
		expect(TEMPLATE_EDIT_RULES).toContain('at most 10 edits in 30 days, or 1 edit in 24 hours');
	});
});
