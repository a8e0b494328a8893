import { build, identityOfTemplate, normalizeLanguageCode } from '../../../nodes/MessagingGateway/actions/message/types/template';
import { inputError } from './inputError';

describe('template message', () => {
	it('builds name, deterministic language, a body component and URL button components', () => {
		expect(
			build({
				templateName: 'order_shipped',
				templateLanguage: 'pt_BR',
				templateBodyParameters: { parameter: [{ text: 'Maria' }, { text: '#12345' }] },
				templateButtonParameters: { button: [{ index: 1, text: 'orders/12345' }, { index: 0, text: 'help' }] },
			}),
		).toEqual({
			type: 'template',
			template: {
				name: 'order_shipped',
				language: { policy: 'deterministic', code: 'pt_BR' },
				components: [
					{
						type: 'body',
						parameters: [
							{ type: 'text', text: 'Maria' },
							{ type: 'text', text: '#12345' },
						],
					},
					{ type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'orders/12345' }] },
					{ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'help' }] },
				],
			},
		});
	});

	it('sends an empty component list for a template without placeholders', () => {
		expect(build({ templateName: 'welcome', templateLanguage: 'en_US' }).template.components).toEqual([]);
	});

	it('takes the body parameters as a plain list from an expression, and numbers as text', () => {
		const payload = build({
			templateName: 'x',
			templateLanguage: 'en_US',
			templateBodyParameters: [{ text: 12 }],
			templateButtonParameters: [{ index: '2', text: 7 }],
		});
		expect(payload.template.components).toEqual([
			{ type: 'body', parameters: [{ type: 'text', text: '12' }] },
			{ type: 'button', sub_type: 'url', index: '2', parameters: [{ type: 'text', text: '7' }] },
		]);
	});

	it.each([
		['pt_BR', 'pt_BR'],
		['pt-BR', 'pt_BR'],
		[' PT_br ', 'pt_BR'],
		['en_us', 'en_US'],
	])('reads the language %p as %p', (input, expected) => {
		expect(normalizeLanguageCode(input)).toBe(expected);
	});

	it.each(['pt', 'portuguese', 'pt_BRA', ''])('refuses the language %p, saying the form xx_XX', (templateLanguage) => {
		const error = inputError(() => build({ templateName: 'x', templateLanguage }));
		expect(error.field).toBe('Language Code');
		expect(error.reason).toMatch(/xx_XX/);
	});

	it('refuses a missing name and a name with spaces', () => {
		expect(inputError(() => build({ templateName: ' ', templateLanguage: 'pt_BR' })).field).toBe('Template Name');
		expect(inputError(() => build({ templateName: 'order shipped', templateLanguage: 'pt_BR' })).reason).toMatch(
			/lowercase letters, digits and underscores/,
		);
	});

	it('names the empty body placeholder', () => {
		const error = inputError(() =>
			build({
				templateName: 'x',
				templateLanguage: 'pt_BR',
				templateBodyParameters: { parameter: [{ text: 'Maria' }, { text: ' ' }] },
			}),
		);
		expect(error.field).toBe('Body Parameters › {{2}}');
	});

	it('refuses a button given twice, a negative or fractional index, and an empty button text', () => {
		const withButtons = (button: unknown[]) => () =>
			build({ templateName: 'x', templateLanguage: 'pt_BR', templateButtonParameters: { button } });
		expect(inputError(withButtons([{ index: 0, text: 'a' }, { index: 0, text: 'b' }])).reason).toMatch(/twice/);
		expect(inputError(withButtons([{ index: -1, text: 'a' }])).field).toBe('URL Button Parameters › entry 1 › Button Index');
		expect(inputError(withButtons([{ index: 1.5, text: 'a' }])).field).toMatch(/Button Index/);
		expect(inputError(withButtons([{ index: 0, text: '' }])).field).toBe('URL Button Parameters › entry 1 › Text');
	});
});

describe('template message with parameters from the template (resource mapper)', () => {
	/** The value the editor stores for the mapper: the listed fields (schema) and what was entered for each. */
	const mapped = (ids: string[], value: Record<string, unknown> | null) => ({
		mappingMode: 'defineBelow',
		value,
		matchingColumns: [],
		schema: ids.map((id) => ({ id, displayName: id, required: true, display: true, type: 'string' })),
	});
	const fromTemplate = (templateParameters: unknown) =>
		build({ templateName: 'order_shipped', templateLanguage: 'en_US', templateParameterSource: 'fromTemplate', templateParameters });

	it('builds the body parameters in placeholder order and one URL button component per button, index as text', () => {
		const payload = fromTemplate(
			mapped(['button_2_1', 'body_2', 'body_1', 'button_0_1'], {
				body_2: '#42',
				body_1: 'Ana',
				button_2_1: 'orders/42',
				button_0_1: 7,
			}),
		);
		expect(payload).toEqual({
			type: 'template',
			template: {
				name: 'order_shipped',
				language: { policy: 'deterministic', code: 'en_US' },
				components: [
					{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }, { type: 'text', text: '#42' }] },
					{ type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: '7' }] },
					{ type: 'button', sub_type: 'url', index: '2', parameters: [{ type: 'text', text: 'orders/42' }] },
				],
			},
		});
	});

	it('orders body placeholders by number, not as text (body_10 after body_9)', () => {
		const ids = Array.from({ length: 10 }, (_, i) => `body_${10 - i}`);
		const value = Object.fromEntries(ids.map((id) => [id, id]));
		const [body] = fromTemplate(mapped(ids, value)).template.components;
		expect(body.parameters.map((p) => p.text)).toEqual(Array.from({ length: 10 }, (_, i) => `body_${i + 1}`));
	});

	it('sends no components for a template without placeholders, and ignores values of placeholders it no longer has', () => {
		expect(fromTemplate(mapped([], null)).template.components).toEqual([]);
		expect(fromTemplate(mapped(['body_1'], { body_1: 'Ana', body_2: 'stale' })).template.components).toEqual([
			{ type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
		]);
	});

	it('ignores the hand-entered parameters, and By Hand ignores the mapper', () => {
		const both = {
			templateName: 'x',
			templateLanguage: 'en_US',
			templateBodyParameters: { parameter: [{ text: 'by hand' }] },
			templateParameters: mapped(['body_1'], { body_1: 'mapped' }),
		};
		expect(build({ ...both, templateParameterSource: 'fromTemplate' }).template.components).toEqual([
			{ type: 'body', parameters: [{ type: 'text', text: 'mapped' }] },
		]);
		expect(build({ ...both, templateParameterSource: 'manual' }).template.components).toEqual([
			{ type: 'body', parameters: [{ type: 'text', text: 'by hand' }] },
		]);
		// Saved before the choice existed: by hand.
		expect(build(both).template.components).toEqual([{ type: 'body', parameters: [{ type: 'text', text: 'by hand' }] }]);
	});

	it('names the first empty placeholder and lists the others', () => {
		const error = inputError(() =>
			fromTemplate(mapped(['body_1', 'body_2', 'button_0_1'], { body_1: 'Ana', body_2: '  ', button_0_1: null })),
		);
		expect(error.field).toBe('Template Parameters › Body {{2}}');
		expect(error.reason).toBe('is empty; every placeholder of the template needs a value (also empty: Button 1 URL {{1}})');
	});

	it('counts a placeholder without any value (field removed, value never set) as empty', () => {
		expect(inputError(() => fromTemplate(mapped(['body_1'], null))).field).toBe('Template Parameters › Body {{1}}');
		expect(inputError(() => fromTemplate(mapped(['body_1'], {}))).field).toBe('Template Parameters › Body {{1}}');
	});

	it('refuses a template with a header placeholder: spec 2.2 has no header component to fill it', () => {
		const error = inputError(() => fromTemplate(mapped(['header_1', 'body_1'], { header_1: 'x', body_1: 'y' })));
		expect(error.field).toBe('Template Parameters › Header {{1}}');
		expect(error.reason).toMatch(/^the template has a placeholder in its header, which a message cannot fill/);
	});

	it('refuses a mapper whose placeholders were never listed, and an object as a value', () => {
		const never = inputError(() => fromTemplate({ mappingMode: 'defineBelow', value: null }));
		expect(never.field).toBe('Template Parameters');
		expect(never.reason).toMatch(/never listed; enter a fixed Template ID/);
		expect(inputError(() => fromTemplate(undefined)).field).toBe('Template Parameters');
		expect(inputError(() => fromTemplate(mapped(['body_1'], { body_1: { a: 1 } }))).reason).toMatch(/^must be text, got an object/);
	});

	it('refuses an unknown Template Details choice', () => {
		const error = inputError(() =>
			build({ templateName: 'x', templateLanguage: 'en_US', templateParameterSource: 'guess' }),
		);
		expect(error.field).toBe('Template Details');
	});
});

describe('From Template: the name and language of the template read by its ID', () => {
	const read = { id: '77', name: 'order_update', language: 'en_US', status: 'APPROVED', components: [] };

	it('takes them from the template', () => {
		expect(identityOfTemplate(read, '77')).toEqual({ templateName: 'order_update', templateLanguage: 'en_US' });
		expect(identityOfTemplate(read, '77', { templateName: '', templateLanguage: '' })).toEqual({
			templateName: 'order_update',
			templateLanguage: 'en_US',
		});
	});

	it('accepts typed values that are the template’s own (language in any spelling)', () => {
		expect(identityOfTemplate(read, '77', { templateName: 'order_update', templateLanguage: 'en-us' }).templateLanguage).toBe('en_US');
	});

	it('refuses a typed name or language that is not the template’s, naming both', () => {
		const name = inputError(() => identityOfTemplate(read, '77', { templateName: 'order_shipped' }));
		expect([name.field, name.reason]).toEqual(['Template Name', '"order_shipped" is not the name of template 77, which is "order_update"']);
		const language = inputError(() => identityOfTemplate(read, '77', { templateLanguage: 'pt_BR' }));
		expect([language.field, language.reason]).toEqual(['Language Code', '"pt_BR" is not the language of template 77, which is "en_US"']);
	});

	it('refuses an answer without a name or language, naming the Template ID', () => {
		expect(inputError(() => identityOfTemplate({ language: 'en_US' }, '77')).reason).toMatch(/template 77 has no usable name/);
		expect(inputError(() => identityOfTemplate({ name: 'x' }, '77')).reason).toMatch(/template 77 has no usable language/);
		expect(inputError(() => identityOfTemplate('not json', '77')).field).toBe('Template ID');
	});

	it('sends the template’s own language as the network has it', () => {
		const payload = build({ templateName: 'welcome', templateLanguage: 'en', templateParameterSource: 'fromTemplate', templateParameters: { schema: [] } });
		expect(payload.template.language).toEqual({ policy: 'deterministic', code: 'en' });
	});
});
