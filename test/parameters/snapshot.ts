/**
 * The frozen surface of a node version: every parameter a saved workflow can hold, by a key that says where it is
 * (`<resource>.<operation>: <path>`), with its type, its default (n8n saves only values that differ from it, so a
 * changed default changes what saved workflows do) and its option values. Read from the node description with
 * n8n-workflow's own display rules for `@version`, so a parameter shown only in some versions is in those only.
 */
import type { INodeProperties, INodePropertyCollection, INodePropertyOptions, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

export interface ParameterEntry {
	types: string[];
	defaults: unknown[];
	/** Values of options / multiOptions parameters; group names of a fixedCollection. */
	options?: Array<string | number | boolean>;
}

export type ParameterSnapshot = Record<string, ParameterEntry>;

/** Whether the `@version` conditions of a parameter's display options let it exist in this version. */
function existsInVersion(
	parameter: INodeProperties | INodePropertyCollection | INodePropertyOptions,
	typeVersion: number,
	description: INodeTypeDescription,
): boolean {
	const { show, hide } = ('displayOptions' in parameter ? parameter.displayOptions : undefined) ?? {};
	const onlyVersion = (conditions?: Record<string, unknown>) =>
		conditions && '@version' in conditions ? { '@version': conditions['@version'] } : undefined;
	const displayOptions = { show: onlyVersion(show), hide: onlyVersion(hide) } as INodeProperties['displayOptions'];
	if (!displayOptions?.show && !displayOptions?.hide) return true;
	return NodeHelpers.displayParameter({}, { ...parameter, displayOptions } as INodeProperties, { typeVersion }, description);
}

function contextOf(parameter: INodeProperties): string {
	const show = parameter.displayOptions?.show ?? {};
	const list = (key: string) => (Array.isArray(show[key]) ? (show[key] as unknown[]).map(String).join('|') : '');
	const where = [list('resource'), list('operation')].filter((part) => part !== '').join('.');
	return where === '' ? '' : `${where}: `;
}

const isCollectionGroup = (option: unknown): option is INodePropertyCollection =>
	typeof option === 'object' && option !== null && 'values' in option;

const isProperty = (option: unknown): option is INodeProperties =>
	typeof option === 'object' && option !== null && 'type' in option && 'name' in option;

function addEntry(snapshot: ParameterSnapshot, key: string, type: string, defaultValue: unknown, options?: Array<string | number | boolean>) {
	const entry = (snapshot[key] ??= { types: [], defaults: [] });
	if (!entry.types.includes(type)) entry.types.push(type);
	const json = JSON.stringify(defaultValue ?? null);
	if (!entry.defaults.some((value) => JSON.stringify(value) === json)) entry.defaults.push(JSON.parse(json));
	if (options) entry.options = [...new Set([...(entry.options ?? []), ...options])];
}

const UI_ONLY_TYPES: string[] = ['notice', 'callout', 'button'];

function walk(
	snapshot: ParameterSnapshot,
	properties: INodeProperties[],
	prefix: string,
	typeVersion: number,
	description: INodeTypeDescription,
) {
	for (const property of properties) {
		// Notices and callouts are text of the panel: a workflow saves no value for them.
		if (UI_ONLY_TYPES.includes(property.type)) continue;
		if (!existsInVersion(property, typeVersion, description)) continue;
		const key = prefix === '' ? `${contextOf(property)}${property.name}` : `${prefix} › ${property.name}`;
		const options = property.options ?? [];
		if (property.type === 'options' || property.type === 'multiOptions') {
			const values = (options as INodePropertyOptions[])
				.filter((option) => existsInVersion(option, typeVersion, description))
				.map((option) => option.value as string | number | boolean);
			addEntry(snapshot, key, property.type, property.default, values);
		} else if (property.type === 'fixedCollection') {
			const groups = options.filter(isCollectionGroup).filter((group) => existsInVersion(group, typeVersion, description));
			addEntry(snapshot, key, property.type, property.default, groups.map((group) => group.name));
			for (const group of groups) walk(snapshot, group.values, `${key} › ${group.name}`, typeVersion, description);
		} else if (property.type === 'collection') {
			addEntry(snapshot, key, property.type, property.default);
			walk(snapshot, options.filter(isProperty), key, typeVersion, description);
		} else {
			addEntry(snapshot, key, property.type, property.default);
		}
	}
}

/** The snapshot of one version of a node, keys sorted so that a diff of the file reads well. */
export function parameterSnapshot(description: INodeTypeDescription, typeVersion: number): ParameterSnapshot {
	const snapshot: ParameterSnapshot = {};
	walk(snapshot, description.properties, '', typeVersion, description);
	return Object.fromEntries(Object.keys(snapshot).sort().map((key) => [key, snapshot[key]]));
}

/** The versions a node description declares. */
export function versionsOf(description: INodeTypeDescription): number[] {
	return Array.isArray(description.version) ? [...description.version] : [description.version];
}

/**
 * What a saved workflow of this version would lose or see change: parameters removed or renamed, types changed,
 * option values removed, defaults changed. Additions are not breaking and are listed apart.
 */
export function compareSnapshots(saved: ParameterSnapshot, current: ParameterSnapshot): { breaking: string[]; added: string[] } {
	const breaking: string[] = [];
	for (const [key, before] of Object.entries(saved)) {
		const now = current[key];
		if (!now) {
			breaking.push(`"${key}" was removed or renamed`);
			continue;
		}
		if (JSON.stringify([...before.types].sort()) !== JSON.stringify([...now.types].sort())) {
			breaking.push(`"${key}" changed type from ${before.types.join('/')} to ${now.types.join('/')}`);
		}
		const lostOptions = (before.options ?? []).filter((value) => !(now.options ?? []).includes(value));
		if (lostOptions.length > 0) breaking.push(`"${key}" lost the option value(s) ${lostOptions.map((value) => JSON.stringify(value)).join(', ')}`);
		const defaultsBefore = before.defaults.map((value) => JSON.stringify(value)).sort();
		const defaultsNow = now.defaults.map((value) => JSON.stringify(value)).sort();
		if (JSON.stringify(defaultsBefore) !== JSON.stringify(defaultsNow)) {
			breaking.push(`"${key}" changed its default from ${defaultsBefore.join(' / ')} to ${defaultsNow.join(' / ')}`);
		}
	}
	const added: string[] = [];
	for (const [key, now] of Object.entries(current)) {
		if (!saved[key]) {
			added.push(`"${key}" is new`);
			continue;
		}
		const newOptions = (now.options ?? []).filter((value) => !(saved[key].options ?? []).includes(value));
		if (newOptions.length > 0) added.push(`"${key}" has the new option value(s) ${newOptions.map((value) => JSON.stringify(value)).join(', ')}`);
	}
	return { breaking, added };
}
