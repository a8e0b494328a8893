/**
 * Numbered placeholders (`{{1}}`, `{{2}}`, ...) of template texts (spec section 2.5). Pure logic, no n8n imports.
 */

/** Anything between double braces; what is inside decides whether it is a valid numbered placeholder. */
const PLACEHOLDER_PATTERN = /\{\{([^{}]*)\}\}/g;

export interface PlaceholderScan {
	/** The distinct placeholder numbers, ascending. */
	numbers: number[];
	/** Placeholders that are not a positive whole number, as written (for example `{{name}}` or `{{0}}`). */
	invalid: string[];
}

export function scanPlaceholders(text: string): PlaceholderScan {
	const numbers = new Set<number>();
	const invalid: string[] = [];
	for (const match of text.matchAll(PLACEHOLDER_PATTERN)) {
		const inside = match[1].trim();
		if (/^[1-9]\d*$/.test(inside)) numbers.add(Number(inside));
		else invalid.push(match[0]);
	}
	return { numbers: [...numbers].sort((a, b) => a - b), invalid };
}

/** The numbers from 1 to the highest one used that the text skips (`{{1}} {{3}}` → [2]). */
export function missingPlaceholderNumbers(numbers: number[]): number[] {
	const used = new Set(numbers);
	const highest = numbers.length ? Math.max(...numbers) : 0;
	const missing: number[] = [];
	for (let n = 1; n <= highest; n++) if (!used.has(n)) missing.push(n);
	return missing;
}

export function placeholder(n: number): string {
	return `{{${n}}}`;
}

/**
 * The numbers {{1}} to the highest placeholder of a text, gaps included: one example field each, in order (a gap is
 * refused later by the template check, which names it).
 */
export function placeholderSlots(text: string): number[] {
	const { numbers } = scanPlaceholders(text);
	const highest = numbers.length ? numbers[numbers.length - 1] : 0;
	return Array.from({ length: highest }, (_, i) => i + 1);
}

/**
 * Numbered placeholders that n8n reads as numbers because the text is an expression: `=Hi {{1}}` gives "Hi 1". The
 * editor makes a text an expression when one holding {{ }} is pasted into an empty field. A placeholder written
 * inside an expression block as text (`{{ "Hi {{1}" + "}" }}`) stays a placeholder and is not reported.
 */
export function placeholdersReadAsNumbers(raw: unknown): string[] {
	if (typeof raw !== 'string' || !raw.startsWith('=')) return [];
	const found: string[] = [];
	let depth = 0;
	for (let i = 1; i < raw.length; i++) {
		if (raw.startsWith('{{', i)) {
			const bare = depth === 0 ? /^\{\{\s*\d+\s*\}\}/.exec(raw.slice(i)) : null;
			if (bare) {
				found.push(bare[0]);
				i += bare[0].length - 1;
				continue;
			}
			depth++;
			i++;
		} else if (depth > 0 && raw.startsWith('}}', i)) {
			depth--;
			i++;
		}
	}
	return found;
}
