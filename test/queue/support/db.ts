/**
 * Reads a queue-mode cluster's executions from its Postgres database with the `pg` module of the installed n8n
 * (this package does not depend on it). Execution data is stored in the `flatted` format, as in SQLite.
 */
export interface ExecutionRow {
	id: number;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	waitTill: Date | null;
}

export interface NodeRun {
	items: Array<{ json: Record<string, any>; binary?: Record<string, any> }>;
	error?: { message?: string; [k: string]: unknown };
}

export interface Execution extends ExecutionRow {
	data: any;
	/** Every run of a node (Retry On Fail adds runs only when the node is retried as a whole: n8n keeps the last). */
	runs(name: string): NodeRun[];
	node(name: string): NodeRun | undefined;
}

interface PgPool {
	query(sql: string, params?: unknown[]): Promise<{ rows: Array<Record<string, any>> }>;
	end(): Promise<void>;
}

export interface Db {
	executions(workflowId: string): Promise<ExecutionRow[]>;
	execution(id: number): Promise<Execution>;
	query(sql: string, params?: unknown[]): Promise<Array<Record<string, any>>>;
	close(): Promise<void>;
}

const COLUMNS = 'id, "workflowId", status, mode, finished, "waitTill"';

function toRow(r: Record<string, any>): ExecutionRow {
	return {
		id: Number(r.id),
		workflowId: String(r.workflowId),
		status: String(r.status),
		mode: String(r.mode),
		finished: Boolean(r.finished),
		waitTill: r.waitTill ?? null,
	};
}

/** `n8nBin` locates the installed n8n, whose `pg` and `flatted` are used. */
export function openDb(n8nBin: string, connection: { host: string; port: number; user: string; password: string; database: string }): Db {
	/* eslint-disable @typescript-eslint/no-var-requires */
	const { Pool } = require(require.resolve('pg', { paths: [n8nBin] })) as { Pool: new (o: object) => PgPool };
	const { parse } = require(require.resolve('flatted', { paths: [n8nBin] })) as { parse: (t: string) => any };
	/* eslint-enable @typescript-eslint/no-var-requires */
	const pool = new Pool({ ...connection, max: 2 });
	const query = async (sql: string, params?: unknown[]) => (await pool.query(sql, params)).rows;
	return {
		query,
		async executions(workflowId) {
			return (await query(`SELECT ${COLUMNS} FROM execution_entity WHERE "workflowId" = $1 ORDER BY id`, [workflowId])).map(toRow);
		},
		async execution(id) {
			const [r] = await query(`SELECT ${COLUMNS} FROM execution_entity WHERE id = $1`, [id]);
			if (!r) throw new Error(`No execution ${id}`);
			const [d] = await query('SELECT data FROM execution_data WHERE "executionId" = $1', [id]);
			const data = d ? parse(String(d.data)) : {};
			const runData = data?.resultData?.runData ?? {};
			const runs = (name: string): NodeRun[] =>
				(runData[name] ?? []).map((run: any) => ({ items: run.data?.main?.[0] ?? [], error: run.error }));
			return { ...toRow(r), data, runs, node: (name: string) => runs(name).at(-1) };
		},
		close: () => pool.end(),
	};
}
