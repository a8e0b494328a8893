/**
 * The per-run parameter reader: a parameter without an expression is read from n8n once per node run and is the
 * same (an independent copy) for every item; a parameter with an expression is read for each item.
 */
import type { IExecuteFunctions, INode } from 'n8n-workflow';

import { nodeOf, readParameter } from '../../../nodes/MessagingGateway/actions/parameters';

function fakeContext(parameters: INode['parameters']) {
	const reads: string[] = [];
	let copies = 0;
	const node = { name: 'Send', type: 'x', typeVersion: 1, position: [0, 0], parameters } as INode;
	const context = {
		getNode: () => {
			copies++;
			return structuredClone(node);
		},
		getNodeParameter: (name: string, itemIndex: number, fallback?: unknown) => {
			reads.push(`${name}@${itemIndex}`);
			const raw = parameters[name];
			if (raw === undefined) return fallback;
			return typeof raw === 'string' && raw.startsWith('=') ? `${raw.slice(1)} for item ${itemIndex}` : structuredClone(raw);
		},
	} as unknown as IExecuteFunctions;
	return { context, reads, copies: () => copies };
}

describe('readParameter (per node run)', () => {
	it('reads a value without an expression once and gives every item its own copy', () => {
		const { context, reads } = fakeContext({ messageType: 'text', options: { previewUrl: true } });
		const first = readParameter.call(context, 'options', 0, {}) as { previewUrl: boolean };
		first.previewUrl = false; // an item changing its copy
		expect(readParameter.call(context, 'options', 1, {})).toEqual({ previewUrl: true });
		expect([0, 1, 2].map((item) => readParameter.call(context, 'messageType', item))).toEqual(['text', 'text', 'text']);
		expect(reads).toEqual(['options@0', 'messageType@0']);
	});

	it('reads a value with an expression, also nested, for every item', () => {
		const { context, reads } = fakeContext({ textBody: '={{ $json.text }}', options: { replyTo: '={{ $json.id }}' } });
		expect(readParameter.call(context, 'textBody', 0, '')).toBe('{{ $json.text }} for item 0');
		expect(readParameter.call(context, 'textBody', 1, '')).toBe('{{ $json.text }} for item 1');
		readParameter.call(context, 'options', 0, {});
		readParameter.call(context, 'options', 1, {});
		expect(reads).toEqual(['textBody@0', 'textBody@1', 'options@0', 'options@1']);
	});

	it('a hidden parameter takes the fallback of each call', () => {
		const { context } = fakeContext({});
		expect(readParameter.call(context, 'defaultCountry', 0, '')).toBe('');
		expect(readParameter.call(context, 'defaultCountry', 1, 'BR')).toBe('BR');
	});

	it('copies the node once per run; another run (context) reads afresh', () => {
		const one = fakeContext({ messageType: 'text' });
		expect(nodeOf.call(one.context)).toBe(nodeOf.call(one.context));
		expect(one.copies()).toBe(1);
		const other = fakeContext({ messageType: 'image' });
		expect(readParameter.call(other.context, 'messageType', 0)).toBe('image');
	});
});
