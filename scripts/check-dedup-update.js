#!/usr/bin/env node
/**
 * What n8n's own deduplication store does when a row is deleted between a call's read and its UPDATE (the fact
 * test/harness/deduplication.ts reproduces): runs n8n 2.41.1's DeduplicationHelper (the cached e2e install,
 * n8n/dist/deduplication/deduplication-helper.js) on its real ProcessedData entity and repository (TypeORM), on SQLite
 * in memory and on a private Postgres (scripts/lib/services.js; skipped when its binaries are absent), deletes the row
 * right after the helper's findOne, and prints what the helper's UPDATE changed and what the call answered.
 *
 * `node scripts/check-dedup-update.js` (re-runs itself under Node 24, which n8n 2.41 needs).
 * Seen on 2026-11-28, both databases: the UPDATE reports 0 affected rows and no error, the call returns its values as
 * `new`, the row stays absent, and the next call INSERTs a new row (entries and latestIncrementalKey alike).
 */
const path = require('path');
const { spawnSync } = require('child_process');

const install = require('./lib/install');
const services = require('./lib/services');

async function check(base, dbType, options) {
	const { DataSource } = require(path.join(base, '@n8n/typeorm'));
	const { Container } = require(path.join(base, '@n8n/di'));
	const db = require(path.join(base, '@n8n/db'));
	const { DeduplicationHelper } = require(path.join(base, 'n8n/dist/deduplication/deduplication-helper.js'));
	const ds = new DataSource({ ...options, entities: [db.ProcessedData], synchronize: true });
	await ds.initialize();
	try {
		const repo = new db.ProcessedDataRepository(ds);
		Container.set(db.ProcessedDataRepository, repo);
		const helper = new DeduplicationHelper();
		const context = { workflow: { id: 'w1', active: false }, node: { id: 'n1' } };
		const findOne = repo.findOne.bind(repo);
		const update = repo.update.bind(repo);
		let affected = [];
		repo.update = async (...args) => {
			const result = await update(...args);
			affected.push(result.affected);
			return result;
		};
		/** The next findOne deletes the row it read, before the helper changes and UPDATEs it. */
		const deleteAfterRead = (where) => {
			repo.findOne = async (...args) => {
				repo.findOne = findOne;
				const row = await findOne(...args);
				await repo.delete(where);
				return row;
			};
		};
		for (const [mode, first, second, where, scope] of [
			['entries', ['a'], ['b'], { workflowId: 'w1', context: 'n:n1' }, 'node'],
			['latestIncrementalKey', [5], [7], { workflowId: 'w1', context: '' }, 'workflow'],
		]) {
			affected = [];
			await helper.checkProcessedAndRecord(first, scope, context, { mode });
			deleteAfterRead(where);
			const answer = await helper.checkProcessedAndRecord(second, scope, context, { mode });
			const rowAfter = await repo.findOne({ where });
			const next = await helper.checkProcessedAndRecord([...first, ...second], scope, context, { mode });
			const rowNext = await repo.findOne({ where });
			console.log(
				`${dbType}, ${mode}: UPDATE of the deleted row: affected ${JSON.stringify(affected[0])}; the call answered ${JSON.stringify(answer)}; ` +
					`row after it: ${rowAfter ? JSON.stringify(rowAfter.value) : 'absent'}; the next call answered ${JSON.stringify(next)} ` +
					`and left ${rowNext ? JSON.stringify(rowNext.value) : 'no row'}`,
			);
		}
	} finally {
		await ds.destroy();
	}
}

async function main() {
	const runtime = await install.ensureRuntime();
	if (Number(process.versions.node.split('.')[0]) < 24) {
		const result = spawnSync(runtime.node24.node, [__filename], { stdio: 'inherit' });
		process.exit(result.status ?? 1);
	}
	const base = path.resolve(runtime.n8n.bin, '..', '..', '..');
	// n8n's entities pick their column types from DB_TYPE when they load: one process per database.
	if (!process.env.DB_TYPE) {
		for (const dbType of ['sqlite', 'postgresdb']) {
			const result = spawnSync(process.execPath, [__filename], { stdio: 'inherit', env: { ...process.env, DB_TYPE: dbType } });
			if (result.status !== 0) process.exit(result.status ?? 1);
		}
		return;
	}
	require(path.join(base, 'reflect-metadata'));
	if (process.env.DB_TYPE === 'sqlite') return await check(base, 'SQLite', { type: 'sqlite', database: ':memory:' });
	if (!services.postgresBinDir()) return console.log('Postgres: skipped (no binaries under /usr/lib/postgresql)');
	const pg = await services.startPostgres({ logDir: require('os').tmpdir() });
	try {
		await check(base, 'Postgres', { type: 'postgres', host: pg.host, port: pg.port, username: pg.user, password: pg.password, database: 'postgres' });
	} finally {
		await pg.stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
