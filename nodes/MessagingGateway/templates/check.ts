/**
 * Checks of a template's content made before anything is sent (spec sections 2.5 and 4.4): the network reviews a
 * template with an example value for each numbered placeholder, so a gap or a missing example would only come back
 * later as a rejection. Pure logic, no n8n imports.
 */
import { componentType, missingPlaceholderNumbers, placeholder, scanPlaceholders, type TemplateComponent } from './components';

/** Where a problem is: the component type (BODY, HEADER, FOOTER, BUTTONS) or `components` for the list itself. */
export type ProblemPlace = 'BODY' | 'HEADER' | 'FOOTER' | 'BUTTONS' | 'components';

export interface TemplateProblem {
	place: ProblemPlace;
	/** Set when the problem is in the examples rather than in the text. */
	aspect?: 'examples';
	message: string;
}

export interface CheckOptions {
	/** Whether the components must contain the body (false when an edit keeps the current body). */
	requireBody: boolean;
}

export function checkTemplateComponents(components: TemplateComponent[], options: CheckOptions): TemplateProblem[] {
	const problems: TemplateProblem[] = [];
	const bodies = components.filter((component) => componentType(component) === 'BODY');

	if (bodies.length > 1) problems.push({ place: 'BODY', message: 'A template has one body, not ' + bodies.length });
	if (options.requireBody && bodies.length === 0) {
		problems.push({ place: 'BODY', message: 'The template needs a body: a BODY component with text' });
	}
	for (const body of bodies) {
		if (typeof body.text !== 'string' || !body.text.trim()) {
			problems.push({ place: 'BODY', message: 'The body has no text' });
			continue;
		}
		const examples = Array.isArray(body.example?.body_text) ? body.example?.body_text?.[0] : undefined;
		problems.push(...checkPlaceholders('BODY', 'The body text', body.text, examples));
	}

	for (const header of components.filter((component) => componentType(component) === 'HEADER')) {
		if (String(header.format ?? '').toUpperCase() !== 'TEXT') continue;
		if (typeof header.text !== 'string' || !header.text.trim()) {
			problems.push({ place: 'HEADER', message: 'A text header needs text' });
			continue;
		}
		problems.push(...checkPlaceholders('HEADER', 'The header text', header.text, header.example?.header_text));
	}

	for (const group of components.filter((component) => componentType(component) === 'BUTTONS')) {
		if (!Array.isArray(group.buttons) || group.buttons.length === 0) {
			problems.push({ place: 'BUTTONS', message: 'A BUTTONS component needs at least one button' });
			continue;
		}
		group.buttons.forEach((button, index) => {
			if (String(button.type ?? '').toUpperCase() !== 'URL') return;
			const label = `The URL of button ${index + 1}`;
			if (typeof button.url !== 'string' || !button.url.trim()) {
				problems.push({ place: 'BUTTONS', message: `Button ${index + 1} is a URL button without a URL` });
				return;
			}
			const other = scanPlaceholders(button.url).numbers.filter((n) => n !== 1);
			if (other.length) {
				problems.push({
					place: 'BUTTONS',
					message: `${label} has ${other.map(placeholder).join(', ')}: a URL button takes only the placeholder {{1}}`,
				});
				return;
			}
			problems.push(...checkPlaceholders('BUTTONS', label, button.url, button.example));
		});
	}
	return problems;
}

/** Placeholders of one text: valid numbers, numbered from 1 without gaps, each with a non-empty example. */
function checkPlaceholders(
	place: ProblemPlace,
	label: string,
	text: string,
	examples: unknown[] | undefined,
): TemplateProblem[] {
	const problems: TemplateProblem[] = [];
	const { numbers, invalid } = scanPlaceholders(text);
	if (invalid.length) {
		problems.push({
			place,
			message: `${label} has ${invalid.join(', ')}: placeholders are numbered, written {{1}}, {{2}} and so on`,
		});
	}
	const gaps = missingPlaceholderNumbers(numbers);
	if (gaps.length) {
		problems.push({
			place,
			message: `${label} uses ${numbers.map(placeholder).join(', ')} but not ${gaps.map(placeholder).join(', ')}: placeholders are numbered from {{1}} without gaps`,
		});
	}
	const withoutExample = numbers.filter((n) => {
		const example = examples?.[n - 1];
		return typeof example !== 'string' || !example.trim();
	});
	if (withoutExample.length) {
		problems.push({
			place,
			aspect: 'examples',
			message: `${label}: ${withoutExample.map(placeholder).join(', ')} ${withoutExample.length === 1 ? 'has' : 'have'} no example value; give one per placeholder, in order (the network reviews the template with them)`,
		});
	}
	const highest = numbers.length ? numbers[numbers.length - 1] : 0;
	if (Array.isArray(examples) && examples.length > highest) {
		problems.push({
			place,
			aspect: 'examples',
			message: `${label} has ${examples.length} example value${examples.length === 1 ? '' : 's'} for ${highest} placeholder${highest === 1 ? '' : 's'}: give exactly one per placeholder`,
		});
	}
	return problems;
}

/**
 * The language code the template is written in (spec: form `xx_XX`). Codes without a region (`en`) exist on the
 * network, so only the common mistake of a hyphen and an empty value are refused.
 */
export function checkLanguage(language: string): string | undefined {
	if (!language.trim()) return 'is empty: give a locale code such as en_US or pt_BR';
	if (/^[a-z]{2,3}-[A-Za-z]{2}$/i.test(language.trim())) {
		return `"${language}" uses a hyphen: the gateway expects an underscore, as in ${language.trim().replace('-', '_')}`;
	}
	return undefined;
}
