/**
 * The parameters of every node version are frozen: a saved workflow keeps its node's typeVersion, and n8n drops
 * the value of a parameter that no longer exists under its name, silently. So for each node and each typeVersion,
 * test/parameters/<node>.v<version>.json holds every parameter name (where it is shown), type, default and option
 * value, and this test fails when one is removed, renamed, retyped, loses an option value or changes its default.
 * Such a change needs a new node version (add it to the description's `version` and show the old and the new
 * parameters by `@version`), never an edit of a released version.
 *
 * Regenerate the snapshot files after a reviewed change (new parameters, a new version, or before the first release):
 *
 *     UPDATE_PARAMETER_SNAPSHOT=1 npx jest test/parameters
 *
 * and review the diff of test/parameters/*.json as part of the change.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

import type { INodeTypeDescription } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { MessagingGatewayTrigger } from '../../nodes/MessagingGatewayTrigger/MessagingGatewayTrigger.node';
import { compareSnapshots, parameterSnapshot, versionsOf, type ParameterSnapshot } from './snapshot';

const UPDATE = process.env.UPDATE_PARAMETER_SNAPSHOT === '1';
const REGENERATE = 'UPDATE_PARAMETER_SNAPSHOT=1 npx jest test/parameters';

const nodes: INodeTypeDescription[] = [new MessagingGateway().description, new MessagingGatewayTrigger().description];

/** One line per parameter, so that a diff of the file names each parameter that changed. */
const serialise = (snapshot: ParameterSnapshot) =>
	`{\n${Object.entries(snapshot)
		.map(([key, entry]) => `\t${JSON.stringify(key)}: ${JSON.stringify(entry)}`)
		.join(',\n')}\n}\n`;

const fileOf = (name: string, version: number) => join(__dirname, `${name}.v${version}.json`);

describe.each(nodes.map((description) => [description.name, description] as const))('%s', (name, description) => {
	it.each(versionsOf(description))(`keeps the parameters of version %s`, (version) => {
		const file = fileOf(name, version);
		const current = parameterSnapshot(description, version);
		if (UPDATE) {
			writeFileSync(file, serialise(current));
			return;
		}
		if (!existsSync(file)) {
			throw new Error(`${name} v${version} has no parameter snapshot (${file}). Generate it with: ${REGENERATE}`);
		}
		const saved = JSON.parse(readFileSync(file, 'utf8')) as ParameterSnapshot;
		const { breaking, added } = compareSnapshots(saved, current);
		if (breaking.length > 0) {
			throw new Error(
				[
					`${description.displayName} v${version}: workflows saved with this version would lose values or change behaviour:`,
					...breaking.map((line) => `  - ${line}`),
					...(added.length > 0 ? ['New in the description (a rename shows up here):', ...added.map((line) => `  - ${line}`)] : []),
					`Add a node version instead: add it to the description's \`version\` (and \`defaultVersion\`), keep these`,
					`parameters for v${version} and show the new ones from the new version with displayOptions '@version',`,
					`then run ${REGENERATE}.`,
				].join('\n'),
			);
		}
		if (added.length > 0) {
			throw new Error(
				[
					`${description.displayName} v${version} has parameters the snapshot does not hold yet:`,
					...added.map((line) => `  - ${line}`),
					`Additions keep saved workflows working; review them and record them with: ${REGENERATE}`,
				].join('\n'),
			);
		}
	});
});

it('has no snapshot of a version that no node declares any more', () => {
	const expected = new Set(nodes.flatMap((description) => versionsOf(description).map((version) => `${description.name}.v${version}.json`)));
	const files = readdirSync(__dirname).filter((file) => file.endsWith('.json'));
	const orphans = files.filter((file) => !expected.has(file));
	expect(orphans).toEqual([]);
});
