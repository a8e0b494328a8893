/**
 * Node's Readable, named through n8n's binary helper (whose stream it is) rather than imported: n8n Cloud refuses
 * community nodes that import Node's stream module, type-only imports included.
 */
import type { IExecuteFunctions } from 'n8n-workflow';

export type NodeStream = Awaited<ReturnType<IExecuteFunctions['helpers']['getBinaryStream']>>;
