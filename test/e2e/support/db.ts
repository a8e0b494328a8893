/**
 * Reads executions from n8n's SQLite database with Node 24's built-in `node:sqlite` (the e2e suite runs under
 * Node 24). Execution data is stored in the `flatted` format. Opening read-only works while n8n runs.
 */
import { readFileSync } from 'node:fs';

// eslint-disable-next-line @typescript-eslint/no-var-requires
const { DatabaseSync } = require('node:sqlite') as {
	DatabaseSync: new (file: string, opts?: { readOnly?: boolean }) => {
		prepare(sql: string): { all(...args: unknown[]): Array<Record<string, unknown>>; get(...args: unknown[]): Record<string, unknown> | undefined };
		close(): void;
	};
};

export interface ExecutionRow {
	id: number;
	workflowId: string;
	status: string;
	mode: string;
	finished: boolean;
	waitTill: string | null;
}

export interface NodeRun {
	items: Array<{ json: Record<string, unknown>; binary?: Record<string, unknown> }>;
	/** Every output of the node's last run (`main[i]`), for nodes with several outputs. */
	outputs: Array<Array<{ json: Record<string, unknown> }>>;
	error?: { message?: string; description?: string; [k: string]: unknown };
}

export interface Execution extends ExecutionRow {
	data: any;
	/** The run error of the whole execution, if any. */
	error?: { message?: string; [k: string]: unknown };
	node(name: string): NodeRun | undefined;
}

/** flatted as n8n itself uses it: resolved from the installed n8n, not from this package's tree. */
let flattedParse: ((text: string) => any) | undefined;
function parse(text: string): any {
	if (!flattedParse) {
		const ctxFile = process.env.MG_E2E_CONTEXT;
		const n8nBin: string = ctxFile ? JSON.parse(readFileSync(ctxFile, 'utf8')).n8nBin : '';
		const resolved = require.resolve('flatted', { paths: [n8nBin, process.cwd()].filter(Boolean) });
		flattedParse = (require(resolved) as { parse: (t: string) => any }).parse;
	}
	return flattedParse(text);
}

function withDb<T>(dbFile: string, fn: (db: InstanceType<typeof DatabaseSync>) => T): T {
	const db = new DatabaseSync(dbFile, { readOnly: true });
	try {
		return fn(db);
	} finally {
		db.close();
	}
}

function toRow(r: Record<string, unknown>): ExecutionRow {
	return {
		id: Number(r.id),
		workflowId: String(r.workflowId),
		status: String(r.status),
		mode: String(r.mode),
		finished: Boolean(r.finished),
		waitTill: (r.waitTill as string | null) ?? null,
	};
}

export function listExecutions(dbFile: string, workflowId?: string): ExecutionRow[] {
	return withDb(dbFile, (db) => {
		const sql = 'SELECT id, workflowId, status, mode, finished, waitTill FROM execution_entity' + (workflowId ? ' WHERE workflowId = ?' : '') + ' ORDER BY id';
		const rows = workflowId ? db.prepare(sql).all(workflowId) : db.prepare(sql).all();
		return rows.map(toRow);
	});
}

export function getExecution(dbFile: string, id: number): Execution {
	return withDb(dbFile, (db) => {
		const r = db.prepare('SELECT id, workflowId, status, mode, finished, waitTill FROM execution_entity WHERE id = ?').get(id);
		if (!r) throw new Error(`No execution ${id}`);
		const d = db.prepare('SELECT data FROM execution_data WHERE executionId = ?').get(id);
		const data = d ? parse(String(d.data)) : {};
		const runData = data?.resultData?.runData ?? {};
		return {
			...toRow(r),
			data,
			error: data?.resultData?.error,
			node(name: string): NodeRun | undefined {
				const runs = runData[name];
				if (!runs || !runs.length) return undefined;
				const last = runs[runs.length - 1];
				const outputs = (last.data?.main ?? []).map((o: unknown) => (Array.isArray(o) ? o : []));
				return { items: outputs[0] ?? [], outputs, error: last.error };
			},
		};
	});
}

/** The newest execution of a workflow, or undefined. */
export function latestExecution(dbFile: string, workflowId: string): Execution | undefined {
	const rows = listExecutions(dbFile, workflowId);
	return rows.length ? getExecution(dbFile, rows[rows.length - 1].id) : undefined;
}

/** Any read-only query, for checks that need other tables. */
export function query(dbFile: string, sql: string, ...params: unknown[]): Array<Record<string, unknown>> {
	return withDb(dbFile, (db) => db.prepare(sql).all(...params));
}

/** Rows of `workflow_publication_outbox` (activation of published workflows in n8n 2.x). */
export function publicationOutbox(dbFile: string): Array<Record<string, unknown>> {
	return withDb(dbFile, (db) => {
		try {
			return db.prepare('SELECT * FROM workflow_publication_outbox').all();
		} catch {
			return [];
		}
	});
}
