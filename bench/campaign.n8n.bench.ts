/**
 * The campaign record's cost in a real n8n 2.41.1 (the e2e install under ~/.cache) on Postgres (DB_TYPE=postgresdb,
 * a private cluster from scripts/lib/services.js): per size in CAMPAIGN_SIZES (default 10000,100000;
 * `CAMPAIGN_SIZES=10000` skips the 100,000, an hour), a workflow whose Code node makes N items with distinct phones
 * into Message > Send text, Parallel Requests 20 and Messages per Second 1000 (20 parallel at 100 ms latency reach at
 * most 200/s, so the rate cap never decides), run with `n8n execute` without and with a Campaign Name, each run a
 * workflow of its own (a fresh, empty record). Sizes under 100,000 run CAMPAIGN_PAIRS pairs (default 3, alternating
 * which of the two runs first) and report the median; 100,000 and more run one pair.
 *
 * Each run is timed at the sandbox gateway (another process, 100 ms latency), from the first request's arrival to
 * the last one's answer, as bench/messages.n8n.bench.ts does; the whole `n8n execute` is printed beside it (it adds
 * n8n's start-up, the record's first claim before the first request and its last marks after the last answer, and
 * the execution's save). Printed per pair and per size: both times and their ratio (target <= 1.05x up to 10,000,
 * <= 1.10x above, on the median: exit 1 above it), the workflow's processed_data rows at the end (every context, so a
 * record split over scopes counts whole), the largest row written (target <= 128 KiB), and the write volume of each
 * run:
 * - rows inserted, updated and deleted in processed_data (pg_stat_user_tables, read after `n8n execute` exited);
 * - bytes written to processed_data's `value`: the size of every row version written, counted by a trigger this
 *   bench adds to the table (one small insert per write; the n8n under test is otherwise as installed), and the
 *   largest of them;
 * - WAL bytes of the whole run (pg_current_wal_lsn before and after): the database's own write volume, compression
 *   of large values included; the difference with and without is the record's.
 * Every run must send exactly N requests to N distinct recipients, all accepted, and end as a successful execution.
 *
 * `CAMPAIGN_OPTIONS='{"…": …}'`: more options of the Campaign group beside the Campaign Name (an option that selects
 * how the record remembers keys, say); default none, the node's defaults. The workflow sets the node's parameters only
 * by their names; the bench reads only n8n's execution, the gateway's requests and the processed_data table.
 * `MG_TARBALL=path.tgz` to use an already packed package instead of building.
 */
import fs from 'node:fs';
import path from 'node:path';

import { ENDPOINTS } from '../nodes/gateway/spec';
import { openDb, type Db } from '../test/queue/support/db';
import { control, install, n8n, pkg, sandboxLib, services, util, type N8nInstance, type Recorded, type SandboxProcess } from './n8nScripts';

const SIZES = (process.env.CAMPAIGN_SIZES ?? '10000,100000')
	.split(',')
	.filter((s) => s.trim() !== '')
	.map(Number);
const PAIRS = Number(process.env.CAMPAIGN_PAIRS ?? 3);
/** Sizes from this one on run one pair (100,000 messages take about an hour with today's record). */
const ONE_PAIR_FROM = 100_000;
const CAMPAIGN_OPTIONS = JSON.parse(process.env.CAMPAIGN_OPTIONS ?? '{}') as Record<string, unknown>;
const LATENCY_MS = 100;
const PARALLEL_REQUESTS = 20;
const MESSAGES_PER_SECOND = 1000;
/** Issue 34: 10,000 messages within 1.05x, 100,000 within 1.10x; the row never over about 128 KiB. */
const targetRatio = (count: number) => (count <= 10_000 ? 1.05 : 1.1);
const ROW_TARGET = 128 * 1024;
const DATABASE = 'n8n_campaign_bench';
const REPO = path.join(__dirname, '..');

process.once('exit', () => util.killAllSync());

function workflow(count: number, campaign: string | undefined, tag: string) {
	const phones = `return Array.from({ length: ${count} }, (_, i) => ({ json: { phone: '+55 11 9' + String(30000000 + i) } }));`;
	return {
		name: `bench ${tag}: ${count} texts ${campaign ? 'with' : 'without'} the campaign record`,
		nodes: [
			{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
			{ name: 'Phones', type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0], parameters: { jsCode: phones } },
			{
				name: 'Send',
				type: 'n8n-nodes-messaging-gateway.messagingGateway',
				typeVersion: 1,
				position: [440, 0],
				parameters: {
					resource: 'message',
					operation: 'send',
					messageType: 'text',
					recipientPhoneNumber: '={{ $json.phone }}',
					textBody: 'Black Friday: 20% off today only',
					sending: { parallelRequests: PARALLEL_REQUESTS, messagesPerSecond: MESSAGES_PER_SECOND },
					...(campaign ? { campaign: { ...CAMPAIGN_OPTIONS, name: campaign } } : {}),
				},
			},
		],
		connections: {
			Start: { main: [[{ node: 'Phones', type: 'main', index: 0 }]] },
			Phones: { main: [[{ node: 'Send', type: 'main', index: 0 }]] },
		},
	};
}

/** Every write to processed_data, with the size of the value written (the table n8n's deduplication helpers use). */
async function countWrites(db: Db): Promise<void> {
	await db.query('CREATE TABLE IF NOT EXISTS bench_processed_writes (op text, context text, bytes bigint)');
	await db.query(`CREATE OR REPLACE FUNCTION bench_count_processed_write() RETURNS trigger AS $$
		BEGIN
			INSERT INTO bench_processed_writes VALUES (TG_OP, NEW.context, octet_length(NEW.value::text));
			RETURN NEW;
		END $$ LANGUAGE plpgsql`);
	await db.query('DROP TRIGGER IF EXISTS bench_count_processed_write ON processed_data');
	await db.query(
		'CREATE TRIGGER bench_count_processed_write AFTER INSERT OR UPDATE ON processed_data FOR EACH ROW EXECUTE FUNCTION bench_count_processed_write()',
	);
}

/** CPU seconds from /proc/<pid>/stat: utime + stime, and with `reaped`, cutime + cstime (children waited for). */
function cpuSeconds(pid: number | 'self', reaped: boolean): number {
	try {
		const stat = fs.readFileSync(`/proc/${pid}/stat`, 'utf8');
		const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ').map(Number);
		// fields[0] is field 3 (state): utime, stime, cutime, cstime are fields 14 to 17.
		const own = fields[11] + fields[12];
		return (reaped ? own + fields[13] + fields[14] : own) / 100;
	} catch {
		return 0; // gone
	}
}

/** Postgres's CPU so far: the postmaster, its live processes, and the sessions that ended (reaped by it). */
function postgresCpu(postmaster: number): number {
	let total = cpuSeconds(postmaster, true);
	for (const entry of fs.readdirSync('/proc')) {
		if (!/^\d+$/.test(entry)) continue;
		try {
			const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
			const ppid = Number(stat.slice(stat.lastIndexOf(')') + 2).split(' ')[1]);
			if (ppid === postmaster) total += cpuSeconds(Number(entry), false);
		} catch {
			/* gone */
		}
	}
	return total;
}

interface TableCounters {
	inserted: number;
	updated: number;
	deleted: number;
	wal: string;
}

async function counters(db: Db): Promise<TableCounters> {
	const [row] = await db.query(
		`SELECT n_tup_ins, n_tup_upd, n_tup_del, pg_current_wal_lsn()::text AS wal FROM pg_stat_user_tables WHERE relname = 'processed_data'`,
	);
	return { inserted: Number(row.n_tup_ins), updated: Number(row.n_tup_upd), deleted: Number(row.n_tup_del), wal: String(row.wal) };
}

interface RunFigures {
	gatewayMs: number;
	executeMs: number;
	n8nCpu: number;
	postgresCpu: number;
	inserted: number;
	updated: number;
	deleted: number;
	bytesWritten: number;
	largestWrite: number;
	/** Writes to the node's rows (context 'n:…': the record, not the workflow row of its hold). */
	recordWrites: number;
	walBytes: number;
	record: Array<{ context: string; chars: number; stored: number }>;
}

/** Runs a workflow with `n8n execute`; its time at the gateway (first arrival to last answer) and its writes. */
async function measure(sandbox: SandboxProcess, inst: N8nInstance, db: Db, postmaster: number, wf: { id: string; name: string }, count: number): Promise<RunFigures> {
	await control(sandbox, 'POST', 'reset', {});
	await control(sandbox, 'POST', 'latency', { ms: LATENCY_MS });
	await db.query('TRUNCATE bench_processed_writes');
	const before = await counters(db);
	// `n8n execute` is this process's child: once it has ended, its CPU (its task runner's too) is in our cutime.
	const n8nCpuBefore = cpuSeconds('self', true) - cpuSeconds('self', false);
	const postgresCpuBefore = postgresCpu(postmaster);
	const started = Date.now();
	try {
		await n8n.cli(inst, ['execute', `--id=${wf.id}`]);
	} catch (error) {
		throw new Error(`"${wf.name}" failed: ${String((error as Error).message).slice(-2000)}`);
	}
	const executeMs = Date.now() - started;
	// The CLI's database sessions report their statistics as they end; give the last one a moment.
	await new Promise((resolve) => setTimeout(resolve, 2000));
	const n8nCpu = cpuSeconds('self', true) - cpuSeconds('self', false) - n8nCpuBefore;
	const postgresCpuUsed = postgresCpu(postmaster) - postgresCpuBefore;
	const after = await counters(db);
	const [wal] = await db.query('SELECT pg_wal_lsn_diff($1::pg_lsn, $2::pg_lsn) AS bytes', [after.wal, before.wal]);
	const [written] = await db.query(
		`SELECT coalesce(sum(bytes), 0) AS bytes, coalesce(max(bytes), 0) AS largest, count(*) FILTER (WHERE context LIKE 'n:%') AS record FROM bench_processed_writes`,
	);
	const record = await db.query(
		'SELECT context, length(value::text) AS chars, pg_column_size(value) AS stored FROM processed_data WHERE "workflowId" = $1 ORDER BY context',
		[wf.id],
	);
	const executions = await db.query('SELECT id, status FROM execution_entity WHERE "workflowId" = $1 ORDER BY id', [wf.id]);
	if (executions.length !== 1 || executions[0].status !== 'success') {
		throw new Error(`"${wf.name}": expected one successful execution, found ${JSON.stringify(executions)}`);
	}

	const requests = ((await control(sandbox, 'GET', 'requests')) as Recorded[]).filter((r) => r.path === ENDPOINTS.messages.path);
	const accepted = new Set(requests.filter((r) => r.status === 200).map((r) => r.body.to));
	if (requests.length !== count || accepted.size !== count) {
		throw new Error(`"${wf.name}": ${requests.length} requests and ${accepted.size} distinct recipients accepted, expected ${count} of each`);
	}
	let first = Infinity;
	let last = -Infinity;
	for (const r of requests) {
		first = Math.min(first, r.receivedAt);
		last = Math.max(last, r.receivedAt);
	}
	return {
		gatewayMs: last - first + LATENCY_MS,
		executeMs,
		n8nCpu,
		postgresCpu: postgresCpuUsed,
		inserted: after.inserted - before.inserted,
		updated: after.updated - before.updated,
		deleted: after.deleted - before.deleted,
		bytesWritten: Number(written.bytes),
		largestWrite: Number(written.largest),
		recordWrites: Number(written.record),
		walBytes: Number(wal.bytes),
		record: record.map((r) => ({ context: String(r.context), chars: Number(r.chars), stored: Number(r.stored) })),
	};
}

const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
const size = (bytes: number) =>
	bytes >= 1024 * 1024 * 1024
		? `${(bytes / 1024 / 1024 / 1024).toFixed(2)} GB`
		: bytes >= 1024 * 1024
			? `${(bytes / 1024 / 1024).toFixed(1)} MB`
			: `${(bytes / 1024).toFixed(1)} kB`;
const perMessage = (bytes: number, count: number) => `${bytes / count >= 1024 ? `${(bytes / count / 1024).toFixed(1)} kB` : `${(bytes / count).toFixed(0)} B`} per message`;

function describe(label: string, run: RunFigures, count: number): string {
	const writes = run.inserted + run.updated + run.deleted;
	return (
		`  ${label}: ${seconds(run.gatewayMs)} at the gateway (${((count / run.gatewayMs) * 1000).toFixed(0)} messages/s; n8n execute ${seconds(run.executeMs)}, CPU: n8n ${seconds(run.n8nCpu * 1000)}, Postgres ${seconds(run.postgresCpu * 1000)}); ` +
		`processed_data: ${run.inserted} inserts, ${run.updated} updates, ${run.deleted} deletes (${(writes / count).toFixed(3)} per message; ${run.recordWrites} to the node's rows), ` +
		`${size(run.bytesWritten)} of values written (${perMessage(run.bytesWritten, count)}), largest ${size(run.largestWrite)}; WAL ${size(run.walBytes)}`
	);
}

async function main() {
	const runtime = await install.ensureRuntime();
	const bin = services.postgresBinDir();
	if (!bin) throw new Error('Postgres binaries not found under /usr/lib/postgresql (npm run test:queue installs them)');
	const base = path.join(REPO, 'test-artifacts', 'bench', `n8n-campaign-${Date.now()}`);
	const userFolder = path.join(base, 'n8n');
	const logDir = path.join(base, 'logs');
	fs.mkdirSync(userFolder, { recursive: true });
	fs.mkdirSync(logDir, { recursive: true });
	const tarball = process.env.MG_TARBALL ? path.resolve(process.env.MG_TARBALL) : await pkg.buildAndPack(path.join(base, 'pack'));
	await pkg.installIntoN8n(tarball, userFolder);

	const pg = await services.startPostgres({ logDir });
	let sandbox: SandboxProcess | undefined;
	let db: Db | undefined;
	try {
		await util.run(path.join(bin, 'psql'), ['-q', '-h', pg.host, '-p', String(pg.port), '-U', pg.user, '-d', 'postgres', '-c', `CREATE DATABASE ${DATABASE}`], { quiet: true });
		const [pgVersion] = (await util.run(path.join(bin, 'postgres'), ['--version'], { capture: true })).trim().split('\n');
		sandbox = await sandboxLib.startSandbox({ port: await util.freePort(), logDir, node: runtime.node24.node });
		const inst = n8n.createInstance({ runtime, userFolder, port: await util.freePort(), brokerPort: await util.freePort(), logDir });
		inst.env = {
			DB_TYPE: 'postgresdb',
			DB_POSTGRESDB_HOST: pg.host,
			DB_POSTGRESDB_PORT: String(pg.port),
			DB_POSTGRESDB_DATABASE: DATABASE,
			DB_POSTGRESDB_USER: pg.user,
			DB_POSTGRESDB_PASSWORD: pg.password,
		};
		// The first CLI command creates n8n's tables.
		await n8n.importCredential(inst, { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url });
		db = openDb(runtime.n8n.bin, { host: pg.host, port: pg.port, user: pg.user, password: pg.password, database: DATABASE });
		await countWrites(db);

		const tag = new Date().toISOString();
		console.log(
			`Campaign record cost in n8n ${runtime.n8n.version} (n8n execute, DB_TYPE=postgresdb, ${pgVersion}), gateway latency ${LATENCY_MS} ms, ` +
				`Parallel Requests ${PARALLEL_REQUESTS}, Messages per Second ${MESSAGES_PER_SECOND}; timed at the gateway, first request to last answer`,
		);
		console.log(`Campaign options beside the Campaign Name: ${Object.keys(CAMPAIGN_OPTIONS).length ? JSON.stringify(CAMPAIGN_OPTIONS) : "none (the node's defaults)"}`);
		let failed = false;
		for (const count of SIZES) {
			const pairs = count >= ONE_PAIR_FROM ? 1 : Math.max(1, PAIRS);
			const target = targetRatio(count);
			// Each run's line as soon as it is measured: a long run stopped half-way still leaves its figures.
			console.log(`${count} messages, each to a distinct recipient, all accepted (checked per run); ${pairs} pair(s) of runs:`);
			const measured: Array<{ off: RunFigures; on: RunFigures; ratio: number }> = [];
			for (let pair = 1; pair <= pairs; pair++) {
				const [without, withRecord] = await n8n.importWorkflows(inst, [
					workflow(count, undefined, `${tag} #${pair}`),
					workflow(count, `black-friday-${count}`, `${tag} #${pair}`),
				]);
				// Alternate which runs first, so that a drift of the shared machine favours neither.
				const withFirst = pair % 2 === 0;
				let off: RunFigures | undefined;
				let on: RunFigures | undefined;
				for (const recordOn of withFirst ? [true, false] : [false, true]) {
					if (recordOn) {
						on = await measure(sandbox, inst, db, pg.proc.child.pid, withRecord, count);
						console.log(describe(`pair ${pair}, with the record   `, on, count));
					} else {
						off = await measure(sandbox, inst, db, pg.proc.child.pid, without, count);
						console.log(describe(`pair ${pair}, without the record`, off, count));
					}
				}
				const ratio = on!.gatewayMs / off!.gatewayMs;
				measured.push({ off: off!, on: on!, ratio });
				const recordChars = on!.record.reduce((sum, row) => sum + row.chars, 0);
				const rows = on!.record.map((row) => `context ${JSON.stringify(row.context)} ${size(row.chars)} (stored ${size(row.stored)})`).join(', ') || 'no row';
				console.log(
					`  pair ${pair}: ratio with / without ${ratio.toFixed(2)}x at the gateway, ${(on!.executeMs / off!.executeMs).toFixed(2)}x for the whole n8n execute; ` +
						`record at the end: ${rows}; ${size(recordChars)} in all (${perMessage(recordChars, count)}); ` +
						`the record's WAL (with minus without): ${size(on!.walBytes - off!.walBytes)} (${perMessage(on!.walBytes - off!.walBytes, count)})`,
				);
			}
			const median = (values: number[]) => {
				const sorted = [...values].sort((a, b) => a - b);
				const middle = Math.floor(sorted.length / 2);
				return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
			};
			const ratio = median(measured.map((m) => m.ratio));
			const largest = Math.max(...measured.map((m) => m.on.largestWrite));
			const writes = median(measured.map((m) => m.on.inserted + m.on.updated + m.on.deleted));
			const recordWrites = median(measured.map((m) => m.on.recordWrites));
			const bytes = median(measured.map((m) => m.on.bytesWritten));
			failed ||= ratio > target || largest > ROW_TARGET;
			console.log(
				`${count} messages, ${pairs === 1 ? 'one pair' : `median of ${pairs} pairs`}: without ${seconds(median(measured.map((m) => m.off.gatewayMs)))}, ` +
					`with the record ${seconds(median(measured.map((m) => m.on.gatewayMs)))}, ratio ${ratio.toFixed(2)}x (target <= ${target.toFixed(2)}x: ${ratio <= target ? 'met' : 'NOT met'}; ` +
					`pairs ${measured.map((m) => `${m.ratio.toFixed(2)}x`).join(', ')}); largest row written ${size(largest)} (target <= ${size(ROW_TARGET)}: ${largest <= ROW_TARGET ? 'met' : 'NOT met'}); ` +
					`${writes} writes to processed_data (${(writes / count).toFixed(3)} per message; ${recordWrites} to the node's rows, the record), ${size(bytes)} of values written (${perMessage(bytes, count)})`,
			);
		}
		process.exitCode = failed ? 1 : 0;
	} finally {
		await db?.close();
		if (sandbox) await util.stopProcess(sandbox.proc);
		await pg.stop();
	}
}

main().catch((error) => {
	console.error(error);
	process.exit(1);
});
