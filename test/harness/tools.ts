/**
 * The tool variants n8n makes of a node when it loads it, for nodes tests that run a node the way an AI Agent does.
 * n8n's code is in its server package (packages/cli/src/tool-generation/), which is not a dependency of this
 * repository; what follows is n8n 2.41.1's `convertNodeToHitlTool` for the parts a node's run depends on (its type
 * name, its parameters). The e2e editor check (test/e2e/06-editor) proves the same panel in the real n8n.
 */
import type { INodeProperties, INodeType, INodeTypeDescription } from 'n8n-workflow';
import { SEND_AND_WAIT_OPERATION, deepCopy } from 'n8n-workflow';

/** n8n's own Message field of a "Human in the Loop" tool: the tool call the approver is asked to allow. */
export const HITL_MESSAGE_DEFAULT =
	'=The agent wants to run this tool: {{ $tool.name }}\n\nInput:\n{{ $tool.parameters }}';

function sendAndWaitResourceOf(properties: INodeProperties[]): string | undefined {
	for (const property of properties) {
		if (property.name !== 'operation' || !Array.isArray(property.options)) continue;
		const hasSendAndWait = property.options.some((option) => 'value' in option && option.value === SEND_AND_WAIT_OPERATION);
		const resources = property.displayOptions?.show?.resource;
		if (hasSendAndWait && Array.isArray(resources) && resources.length > 0) return String(resources[0]);
	}
	return undefined;
}

/** The parameters of the review tool: n8n's Message first; resource, operation and response type fixed and hidden. */
function hitlProperties(properties: INodeProperties[]): INodeProperties[] {
	const resource = sendAndWaitResourceOf(properties);
	const filtered: INodeProperties[] = [
		{
			displayName: 'Message',
			name: 'message',
			type: 'string',
			default: HITL_MESSAGE_DEFAULT,
			required: true,
			typeOptions: { rows: 3 },
		},
	];
	for (const property of properties) {
		if (property.name === 'resource') {
			if (resource) filtered.push({ displayName: 'Resource', name: 'resource', type: 'hidden', default: resource });
		} else if (property.name === 'operation') {
			filtered.push({ displayName: 'Operation', name: 'operation', type: 'hidden', default: SEND_AND_WAIT_OPERATION });
		} else if (property.name === 'responseType') {
			filtered.push({ displayName: 'Response Type', name: 'responseType', type: 'hidden', default: 'approval' });
		} else if (property.name !== 'message') {
			filtered.push(deepCopy(property));
		}
	}
	return filtered;
}

/** The "Human in the Loop" tool n8n makes of a node with a send-and-wait operation (type name `<name>HitlTool`). */
export function asHitlTool(nodeType: INodeType): INodeType {
	const description: INodeTypeDescription = {
		...nodeType.description,
		name: `${nodeType.description.name}HitlTool`,
		subtitle: 'Send and wait',
		properties: hitlProperties(nodeType.description.properties),
	};
	// The node's methods (execute, webhook, ...) stay those of the original node, as in n8n.
	return Object.assign(Object.create(nodeType) as INodeType, { description });
}
