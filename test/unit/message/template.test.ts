import { build, normalizeLanguageCode } from '../../../nodes/MessagingGateway/actions/message/types/template';
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
			/spaces/,
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
