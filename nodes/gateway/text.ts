/**
 * Parameter values as text. An expression may give an object or a list where text belongs; `String()` would send
 * it as "[object Object]", so such values are refused by the one reader every operation uses. Pure: no n8n imports.
 */

/** The text of a value: strings as they are, numbers and booleans as their text, null and undefined as ''. */
export function textOf(value: unknown): { text: string } | { problem: string } {
	if (value === undefined || value === null) return { text: '' };
	if (typeof value === 'string') return { text: value };
	if (typeof value === 'number' || typeof value === 'boolean' || typeof value === 'bigint') return { text: String(value) };
	const kind = Array.isArray(value) ? 'a list' : typeof value === 'object' ? 'an object' : typeof value;
	return {
		problem: `must be text, got ${kind}${excerptOf(value)}; make the expression give text (for a field of an object, name the field)`,
	};
}

function excerptOf(value: unknown): string {
	let json: string | undefined;
	try {
		json = JSON.stringify(value);
	} catch {
		return '';
	}
	if (json === undefined) return '';
	return ` (${json.length > 40 ? `${json.slice(0, 39)}…` : json})`;
}
