/**
 * The action node as the editor shows it: resources and operations by use (Message and Send first), the canvas
 * subtitle in words, Send and Wait options that apply to the chosen response type, and no Batching in the AI-tool
 * variant (where one call sends one message). Fields are judged with n8n-workflow's own display rules.
 */
import type { INodeParameters, INodeProperties, INodeTypeDescription } from 'n8n-workflow';
import { NodeHelpers, Workflow } from 'n8n-workflow';

import { MessagingGateway } from '../../nodes/MessagingGateway/MessagingGateway.node';

const { description } = new MessagingGateway();
const node = { typeVersion: 1 };

/** The top-level fields shown for these values, in the given variant of the node (a tool's name ends in Tool) and version. */
function shown(values: INodeParameters, variant: INodeTypeDescription = description, typeVersion = 1): INodeProperties[] {
	const versioned = { typeVersion };
	const all = NodeHelpers.getNodeParameters(variant.properties, values, true, false, versioned, variant)!;
	return variant.properties.filter((property) => NodeHelpers.displayParameter(all, property, versioned, variant));
}

const optionValues = (property: INodeProperties | undefined) =>
	(property?.options ?? []).map((option) => ('value' in option ? option.value : option.name));

/** The subtitle the canvas shows for these parameters. */
function subtitleFor(parameters: INodeParameters): unknown {
	const workflow = new Workflow({
		nodes: [{ id: '1', name: 'Gateway', type: 'gateway', typeVersion: 1, position: [0, 0], parameters }],
		connections: {},
		active: false,
		nodeTypes: {
			getByName: () => new MessagingGateway(),
			getByNameAndVersion: () => new MessagingGateway(),
			getKnownTypes: () => ({}),
		},
	});
	return workflow.expression.getSimpleParameterValue(workflow.getNode('Gateway')!, description.subtitle, 'manual', {});
}

describe('the action node in the editor', () => {
	it('lists Message first and Send first, with Send and Wait next to it', () => {
		const resource = description.properties.find((property) => property.name === 'resource');
		expect(optionValues(resource)[0]).toBe('message');
		expect(resource?.default).toBe('message');
		const messageOperations = description.properties.find(
			(property) => property.name === 'operation' && property.displayOptions?.show?.resource?.includes('message'),
		);
		expect(optionValues(messageOperations).slice(0, 2)).toEqual(['send', 'sendAndWait']);
	});

	it('describes what the action node does, not when a workflow starts', () => {
		expect(description.description).toMatch(/^Send WhatsApp messages/);
	});

	it('shows the chosen operation in words on the canvas', () => {
		expect(subtitleFor({ resource: 'message', operation: 'send' })).toBe('Send a message');
		expect(subtitleFor({ resource: 'message', operation: 'sendAndWait' })).toBe('Send a message and wait for response');
		expect(subtitleFor({ resource: 'template', operation: 'edit' })).toBe('Edit a template');
		// Defaults (a node just added): resource Message, operation Send.
		expect(subtitleFor({})).toBe('Send a message');
	});

	it('Send and Wait offers only the options of the chosen response type', () => {
		const optionsOf = (responseType: string) => {
			const fields = shown({ resource: 'message', operation: 'sendAndWait', responseType });
			const options = fields.filter((field) => field.name === 'options');
			expect(options).toHaveLength(1);
			return { names: fields.map((field) => field.name), options: optionValues(options[0]) };
		};
		const approval = optionsOf('approval');
		expect(approval.names).toContain('approvalOptions');
		expect(approval.options).toEqual(expect.arrayContaining(['confirmationPage', 'limitWaitTime']));
		expect(approval.options).not.toEqual(expect.arrayContaining(['messageButtonLabel']));
		expect(approval.options.filter((name) => String(name).startsWith('responseForm'))).toEqual([]);

		const freeText = optionsOf('freeText');
		expect(freeText.names).not.toContain('approvalOptions');
		expect(freeText.options).toEqual(
			expect.arrayContaining(['limitWaitTime', 'messageButtonLabel', 'responseFormTitle', 'responseFormButtonLabel']),
		);
		expect(freeText.options).not.toContain('confirmationPage');
	});

	it('has one options group for the pace of a run (Sending), none for batches of its own', () => {
		const send = { resource: 'message', operation: 'send' };
		const names = shown(send).map((field) => field.name);
		expect(names.filter((name) => ['sending', 'batching'].includes(name))).toEqual(['sending']);
		const tool = { ...description, name: `${description.name}Tool` };
		expect(shown(send, tool).map((field) => field.name)).toContain('recipientPhoneNumber');
	});

	it('offers the pacing options of Sending on the node; its AI-tool variant (one message per call) only Timeout', () => {
		const send = { resource: 'message', operation: 'send' };
		const tool = { ...description, name: `${description.name}Tool` };
		// The editor lists a collection's options through the same rule, with the node's values and type (as here).
		const sendingOptions = (variant: INodeTypeDescription) => {
			const sending = shown(send, variant).find((field) => field.name === 'sending');
			const values = NodeHelpers.getNodeParameters(variant.properties, send, true, false, node, variant)!;
			return (sending?.options as INodeProperties[]).filter((option) => NodeHelpers.displayParameter(values, option, node, variant)).map((option) => option.name);
		};
		expect(sendingOptions(description).sort()).toEqual(['batchInterval', 'batchSize', 'messagesPerSecond', 'parallelRequests', 'recipientIntervalMs', 'timeout']);
		expect(sendingOptions(tool)).toEqual(['timeout']);
	});

	it('says under Campaign Name that a campaign to people who have not written needs a template', () => {
		const campaign = shown({ resource: 'message', operation: 'send' }).find((field) => field.name === 'campaign');
		const name = (campaign?.options as INodeProperties[]).find((option) => option.name === 'name');
		expect(name?.hint).toMatch(/needs Message Type: Template.*131047/);
	});
});

describe('Template Body Examples by node version', () => {
	const create = { resource: 'template', operation: 'create', componentsInput: 'fields' };
	const names = (typeVersion: number) => shown(create, description, typeVersion).map((field) => field.name);

	it('a version 1 node keeps its list of examples', () => {
		expect(names(1)).toContain('bodyExamples');
		expect(names(1)).not.toContain('bodyExampleValues');
	});

	it('from version 1.1 there is one example field per placeholder, and no list', () => {
		expect(names(1.1)).toContain('bodyExampleValues');
		expect(names(1.1)).not.toContain('bodyExamples');
	});
});
