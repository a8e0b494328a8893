/**
 * Small builders of test workflows: Manual Trigger → optional Code node (input items / binaries) → one or more
 * Messaging Gateway nodes in a chain. Node types are those of the installed package.
 */
import { ACTION, type Workflow } from './env';

export interface GatewayStep {
	name: string;
	parameters: Record<string, unknown>;
	continueOnFail?: boolean;
	/** The node's version (default 1). */
	typeVersion?: number;
}

/** JavaScript for a Code node that returns items; `binaryOf` adds a file (base64) as `binary.data`. */
export function itemsCode(items: unknown[]): string {
	return `return ${JSON.stringify(items.map((json) => ({ json })))};`;
}

export function binaryCode(file: { base64: string; mimeType: string; fileName: string }, json: object = {}): string {
	return `return [{ json: ${JSON.stringify(json)}, binary: { data: { data: ${JSON.stringify(file.base64)}, mimeType: ${JSON.stringify(
		file.mimeType,
	)}, fileName: ${JSON.stringify(file.fileName)} } } }];`;
}

export function chain(name: string, steps: GatewayStep[], inputCode?: string): Workflow {
	const nodes: any[] = [
		{ name: 'Start', type: 'n8n-nodes-base.manualTrigger', typeVersion: 1, position: [0, 0], parameters: {} },
	];
	const order = ['Start'];
	if (inputCode) {
		nodes.push({
			name: 'Input',
			type: 'n8n-nodes-base.code',
			typeVersion: 2,
			position: [220, 0],
			parameters: { jsCode: inputCode },
		});
		order.push('Input');
	}
	steps.forEach((step, i) => {
		nodes.push({
			name: step.name,
			type: ACTION,
			typeVersion: step.typeVersion ?? 1,
			position: [440 + i * 220, 0],
			parameters: step.parameters,
			...(step.continueOnFail ? { onError: 'continueRegularOutput' } : {}),
		});
		order.push(step.name);
	});
	const connections: Record<string, unknown> = {};
	for (let i = 0; i < order.length - 1; i++) {
		connections[order[i]] = { main: [[{ node: order[i + 1], type: 'main', index: 0 }]] };
	}
	return { name, nodes, connections, settings: { executionOrder: 'v1' } };
}

/** A one-node workflow. */
export function single(name: string, parameters: Record<string, unknown>, inputCode?: string): Workflow {
	return chain(name, [{ name: 'Gateway', parameters }], inputCode);
}

/** Tiny valid files of each media kind (the sandbox checks parts and sizes, not codecs). */
export const FILES = {
	png: {
		base64:
			'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg==',
		mimeType: 'image/png',
		fileName: 'pixel.png',
	},
	pdf: {
		base64: Buffer.from('%PDF-1.4\n1 0 obj<<>>endobj\ntrailer<<>>\n%%EOF\n').toString('base64'),
		mimeType: 'application/pdf',
		fileName: 'invoice.pdf',
	},
	mp3: { base64: Buffer.from('ID3\u0003\u0000\u0000\u0000\u0000\u0000\u0000fake-audio').toString('base64'), mimeType: 'audio/mpeg', fileName: 'note.mp3' },
	mp4: { base64: Buffer.from('\u0000\u0000\u0000\u0018ftypmp42fake-video').toString('base64'), mimeType: 'video/mp4', fileName: 'clip.mp4' },
	webp: { base64: Buffer.from('RIFF\u0010\u0000\u0000\u0000WEBPVP8 fake').toString('base64'), mimeType: 'image/webp', fileName: 'sticker.webp' },
};
