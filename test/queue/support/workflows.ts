/**
 * Workflows that run as production executions in queue mode: n8n's Webhook node (served by a webhook processor)
 * → an optional Code node → Messaging Gateway nodes in a chain. A call to the webhook enqueues the execution and a
 * worker runs it.
 */
import { createHash } from 'node:crypto';

import { ACTION, type Workflow } from './cluster';

export interface GatewayStep {
	name: string;
	parameters: Record<string, unknown>;
	/** n8n's node settings, e.g. { retryOnFail: true, maxTries: 3, waitBetweenTries: 0 }. */
	settings?: Record<string, unknown>;
}

/** A stable webhook path per workflow name. */
export function webhookPath(name: string): string {
	return `mg-queue-${createHash('sha256').update(name).digest('hex').slice(0, 12)}`;
}

/** Webhook (POST, answers at once) → Code (when given) → the steps in order. */
export function webhookChain(name: string, steps: GatewayStep[], code?: string, webhookOptions: Record<string, unknown> = {}): Workflow {
	const path = webhookPath(name);
	const nodes: any[] = [
		{
			name: 'Webhook',
			type: 'n8n-nodes-base.webhook',
			typeVersion: 2,
			position: [0, 0],
			webhookId: path,
			parameters: { httpMethod: 'POST', path, responseMode: 'onReceived', options: webhookOptions },
		},
	];
	if (code) nodes.push({ name: 'Input', type: 'n8n-nodes-base.code', typeVersion: 2, position: [220, 0], parameters: { jsCode: code } });
	steps.forEach((s, i) =>
		nodes.push({ name: s.name, type: ACTION, typeVersion: 1, position: [440 + 220 * i, 0], parameters: s.parameters, ...(s.settings ?? {}) }),
	);
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < nodes.length - 1; i++) connections[nodes[i].name] = { main: [[{ node: nodes[i + 1].name, type: 'main', index: 0 }]] };
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** JavaScript for a Code node that returns these items. */
export function itemsCode(items: unknown[]): string {
	return `return ${JSON.stringify(items.map((json) => ({ json })))};`;
}

/** A 1x1 PNG. */
export const PNG = Buffer.from('iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==', 'base64');
