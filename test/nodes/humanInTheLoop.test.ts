/**
 * Send and Wait for Response as n8n offers it to an AI Agent: the "Human in the Loop" review tool n8n makes of the
 * node. n8n fills the tool's Message with the tool call to review and hides the response type, by n8n's parameter
 * names; the approver must receive that text, and the answer must resume in the shape the agent reads.
 */
import type { INodeParameters, INodeProperties } from 'n8n-workflow';
import * as n8nWorkflow from 'n8n-workflow';
import { NodeHelpers } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';
import { runNode, runWebhook } from '../harness';
import { asHitlTool } from '../harness/tools';
import { sandboxCredentials } from '../sandbox';
import { useSandbox } from './support';

const gateway = useSandbox();
const tool = asHitlTool(new MessagingGateway());

/** What the user sets on the review tool: the approver's number. Everything else is n8n's or a default. */
const parameters: INodeParameters = { recipientPhoneNumber: '+55 11 98888-7777' };

/** The item n8n runs the review tool with: the agent's input, the gated tool call and its id. */
const toolCall = {
	chatInput: 'Please refund order 12345',
	tool: 'refund_order',
	toolParameters: { order: '12345', amount: 120 },
	toolCallId: 'call_7',
};

/** The fields the review tool's panel shows with the values n8n gives it. */
function shownFields(): INodeProperties[] {
	const { description } = tool;
	const values = NodeHelpers.getNodeParameters(description.properties, parameters, true, false, { typeVersion: 1 }, description)!;
	return description.properties.filter(
		(property) => property.type !== 'hidden' && NodeHelpers.displayParameter(values, property, { typeVersion: 1 }, description),
	);
}

// Human in the Loop tools need an n8n-workflow that knows them (`isHitlToolType`) and fills `$tool` in their message:
// n8n-workflow 2.0.0, of the oldest n8n the package claims (`npm run test:compat`), has neither.
const describeWhereN8nHasHitlTools = 'isHitlToolType' in n8nWorkflow ? describe : describe.skip;

describeWhereN8nHasHitlTools('Send and Wait as the Human in the Loop tool of an AI Agent', () => {
	it("shows one Message field, n8n's, and the approval settings", () => {
		const shown = shownFields();
		expect(shown.filter((field) => field.displayName === 'Message')).toHaveLength(1);
		expect(shown.find((field) => field.name === 'message')?.default).toMatch(/\$tool\.name/);
		expect(shown.map((field) => field.name)).toEqual(
			expect.arrayContaining(['recipientPhoneNumber', 'approvalOptions', 'options']),
		);
		// The response type is n8n's (approval): the free-text settings do not show.
		const options = shown.find((field) => field.name === 'options')?.options ?? [];
		expect(options.map((option) => option.name)).not.toContain('messageButtonLabel');
	});

	it('sends the approver the tool call to review, with its approve link', async () => {
		const { waitTill } = await runNode({
			node: tool,
			parameters,
			credentials: sandboxCredentials(gateway.sandbox),
			items: [{ json: toolCall }],
		});

		expect(gateway.sandbox.requests).toHaveLength(1);
		const body = gateway.sandbox.requests[0].body as { to: string; type: string; text: { body: string } };
		expect(body.to).toBe('5511988887777');
		expect(body.type).toBe('text');
		const [question, input, approve] = body.text.body.split('\n\n');
		expect(question).toBe('The agent wants to run this tool: refund_order');
		// n8n's text goes on with the tool's input; how n8n renders that object is n8n's expression engine's business.
		expect(input).toMatch(/^Input:\n\S/);
		expect(approve).toMatch(/^\*Approve:\*\n\S+\?approved=true&signature=[0-9a-f]{64}$/);
		expect(waitTill).toBeInstanceOf(Date);
	});

	it('resumes with data.approved, which the agent reads to run or refuse the tool', async () => {
		const open = (approved: string) =>
			runWebhook({
				node: tool,
				parameters,
				credentials: sandboxCredentials(gateway.sandbox),
				request: { method: 'GET', query: { approved, signature: 'x' } },
			});
		expect((await open('true')).result.workflowData).toEqual([[{ json: { data: { approved: true } } }]]);
		expect((await open('false')).result.workflowData).toEqual([[{ json: { data: { approved: false } } }]]);
	});
});
