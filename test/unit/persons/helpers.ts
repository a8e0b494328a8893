import type { KeyConfiguration, PersonRow, PersonViolation } from '../../../nodes/MessagingGateway/persons/fields';
import { type AutoMappingOptions, planAutoMapping } from '../../../nodes/MessagingGateway/persons/mapping';
import { validatePersonRow } from '../../../nodes/MessagingGateway/persons/validation';

/** Auto-maps and validates items the way the operation does; one result per item. */
export function checkItems(
	items: Array<Record<string, unknown>>,
	keys: KeyConfiguration = [],
	options: AutoMappingOptions = {},
): Array<PersonRow | PersonViolation[]> {
	const mapping = planAutoMapping(items, options);
	return items.map((json, index) => validatePersonRow(mapping.map(json), index, keys));
}

/** The record of one item as a plain object of written values (field or `name:Type` → text), or its violations. */
export function written(result: PersonRow | PersonViolation[]): Record<string, string> | PersonViolation[] {
	if (Array.isArray(result)) return result;
	const out: Record<string, string> = {};
	result.columns.fields.forEach((field, i) => {
		if (result.fields[i] !== undefined) out[field] = result.fields[i]!;
	});
	result.columns.attributes.forEach(({ name, type }, i) => {
		if (result.attributes[i] !== undefined) out[`${name}:${type}`] = result.attributes[i]!;
	});
	return out;
}

/** The reasons of an item's violations as `field: reason` lines (empty when the record is valid). */
export function reasons(result: PersonRow | PersonViolation[]): string[] {
	return Array.isArray(result) ? result.map((v) => `${v.field}: ${v.reason}`) : [];
}
