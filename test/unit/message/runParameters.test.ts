/**
 * The message run's parameter reader (run.ts, param): a parameter without an expression is read from n8n once per node
 * run and is the same (an independent copy) for every item; a parameter with an expression is read for each item.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { MessageRun } from '../../../nodes/MessagingGateway/actions/message/run';

async function fakeRun(parameters: INode['parameters']) {
	const reads: string[] = [];
	const node = { name: 'Send', type: 'x', typeVersion: 1, position: [0, 0], parameters } as INode;
	const context = {
		getNode: () => structuredClone(node),
		getCredentials: async () => ({ baseUrl: 'https://gateway.example.com', apiKey: 'k', phoneId: '1' }),
		getExecutionCancelSignal: () => undefined,
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
			reads.push(`${name}@${itemIndex}`);
			const raw = parameters[name];
			if (raw === undefined) return fallback;
			return typeof raw === 'string' && raw.startsWith('=') ? `${raw.slice(1)} for item ${itemIndex}` : structuredClone(raw);
		},
	} as unknown as IExecuteFunctions;
	const run = await MessageRun.open(context);
	reads.length = 0; // the Sending options, read once when the run opens
	return { run, reads };
}

describe('MessageRun.param (per node run)', () => {
	it('reads a value without an expression once and gives every item its own copy', async () => {
		const { run, reads } = await fakeRun({ messageType: 'text', options: { previewUrl: true } });
		const first = run.param('options', 0, {}) as { previewUrl: boolean };
		first.previewUrl = false; // an item changing its copy
		expect(run.param('options', 1, {})).toEqual({ previewUrl: true });
		expect([0, 1, 2].map((item) => run.param('messageType', item))).toEqual(['text', 'text', 'text']);
		expect(reads).toEqual(['options@0', 'messageType@0']);
	});

	it('reads a value with an expression, also nested, for every item', async () => {
		const { run, reads } = await fakeRun({ textBody: '={{ $json.text }}', options: { replyTo: '={{ $json.id }}' } });
		expect(run.param('textBody', 0, '')).toBe('{{ $json.text }} for item 0');
		expect(run.param('textBody', 1, '')).toBe('{{ $json.text }} for item 1');
		run.param('options', 0, {});
		run.param('options', 1, {});
		expect(reads).toEqual(['textBody@0', 'textBody@1', 'options@0', 'options@1']);
	});

	it('a hidden parameter takes the fallback of each call', async () => {
		const { run } = await fakeRun({});
		expect(run.param('defaultCountry', 0, '')).toBe('');
		expect(run.param('defaultCountry', 1, 'BR')).toBe('BR');
	});
});
