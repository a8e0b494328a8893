/**
 * Small field checkers shared by the request validators. Each one throws a 400 that names the field by its path in
 * the body (for example `interactive.action.buttons[3]`), so a refusal tells the node's author exactly what is wrong.
 */
import { invalid } from './errors';

export type JsonObject = Record<string, unknown>;

export function isObject(value: unknown): value is JsonObject {
	return typeof value === 'object' && value !== null && !Array.isArray(value);
}

export function describe(value: unknown): string {
	if (value === null) return 'null';
	if (Array.isArray(value)) return 'an array';
	return typeof value === 'string' ? `the string ${JSON.stringify(value)}` : `a ${typeof value}`;
}

export function object(value: unknown, field: string): JsonObject {
	if (!isObject(value)) throw invalid(field, `must be an object, got ${describe(value)}`);
	return value;
}

export function array(value: unknown, field: string, options: { min?: number; max?: number } = {}): unknown[] {
	if (!Array.isArray(value)) throw invalid(field, `must be an array, got ${describe(value)}`);
	if (options.min !== undefined && value.length < options.min) {
		throw invalid(field, `must have at least ${options.min} element(s), got ${value.length}`);
	}
	if (options.max !== undefined && value.length > options.max) {
		throw invalid(field, `must have at most ${options.max} element(s), got ${value.length}`);
	}
	return value;
}

export function string(value: unknown, field: string, options: { allowEmpty?: boolean; maxLength?: number } = {}): string {
	if (typeof value !== 'string') throw invalid(field, `must be a string, got ${describe(value)}`);
	if (!options.allowEmpty && value.trim() === '') throw invalid(field, 'must be a non-empty string');
	// What a client sends when it turned an object into text: never a value anyone meant (issue 10).
	if (value.trim() === '[object Object]') throw invalid(field, 'is "[object Object]": an object was sent as text');
	// Lengths count characters as a person sees them (code points), not UTF-16 units.
	if (options.maxLength !== undefined && [...value].length > options.maxLength) {
		throw invalid(field, `must be at most ${options.maxLength} characters, got ${[...value].length}`);
	}
	return value;
}

export function optionalString(value: unknown, field: string, options: { allowEmpty?: boolean } = {}): string | undefined {
	return value === undefined ? undefined : string(value, field, options);
}

export function oneOf<T extends string>(value: unknown, field: string, allowed: readonly T[]): T {
	if (typeof value !== 'string' || !(allowed as readonly string[]).includes(value)) {
		throw invalid(field, `must be one of ${allowed.map((v) => `'${v}'`).join(', ')}, got ${describe(value)}`);
	}
	return value as T;
}

export function matching(value: unknown, field: string, pattern: RegExp, what: string): string {
	const text = string(value, field);
	if (!pattern.test(text)) throw invalid(field, `must be ${what}, got ${JSON.stringify(text)}`);
	return text;
}

/** Refuses keys the spec does not list: a misspelt field would otherwise be silently ignored. */
export function onlyKeys(value: JsonObject, field: string, allowed: readonly string[]): void {
	for (const key of Object.keys(value)) {
		if (!allowed.includes(key)) {
			const where = field === '' ? key : `${field}.${key}`;
			throw invalid(where, `is not a field of ${field === '' ? 'the body' : field} (allowed: ${allowed.join(', ')})`);
		}
	}
}

export function required(value: JsonObject, field: string, keys: readonly string[]): void {
	for (const key of keys) {
		if (value[key] === undefined) throw invalid(field === '' ? key : `${field}.${key}`, 'is required');
	}
}

/** `xx_XX`, the locale form of the spec (sections 2.2 and 2.5). */
export const LOCALE_PATTERN = /^[a-z]{2}_[A-Z]{2}$/;
