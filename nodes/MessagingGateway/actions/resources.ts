/**
 * The node's resources, each with its operations. The order here is the order in the editor and in the node
 * creator's action list: by how often people use them, Message first (not alphabetical, on purpose).
 */
import type { IDataObject, IExecuteFunctions, INodeExecutionData, INodeProperties } from 'n8n-workflow';

import * as message from './message';
import * as template from './template';
import * as media from './media';
import * as webhook from './webhook';
import * as personData from './personData';
import * as profile from './profile';

/** An operation that runs once per input item: the router loops, pairs items and handles Continue On Fail. */
export interface ItemOperation {
	description: INodeProperties[];
	execute(this: IExecuteFunctions, itemIndex: number): Promise<IDataObject | IDataObject[]>;
}

/** An operation that takes the whole input: the message operations (parallel, paced sends), one person file of many rows. */
export interface AllItemsOperation {
	description: INodeProperties[];
	executeAll(this: IExecuteFunctions, items: INodeExecutionData[]): Promise<INodeExecutionData[]>;
}

export type Operation = ItemOperation | AllItemsOperation;

export interface Resource {
	operationField: INodeProperties;
	operations: Record<string, Operation>;
	description: INodeProperties[];
}

export const resources = { message, template, media, webhook, personData, profile } satisfies Record<string, Resource>;

export type ResourceName = keyof typeof resources;

const RESOURCE_NAMES: Record<ResourceName, string> = {
	message: 'Message',
	template: 'Template',
	media: 'Media',
	webhook: 'Webhook',
	personData: 'Person Data',
	profile: 'Business Profile',
};

export const resourceField: INodeProperties = {
	displayName: 'Resource',
	name: 'resource',
	type: 'options',
	noDataExpression: true,
	options: (Object.keys(resources) as ResourceName[]).map((value) => ({ name: RESOURCE_NAMES[value], value })),
	default: 'message',
};

/** Every field of the node after the resource selector, resource by resource. */
export const resourceFields: INodeProperties[] = Object.values(resources).flatMap((resource) => resource.description);

/** Each operation's action label ("Send a message") by `resource:operation`. */
const ACTION_LABELS: Record<string, string> = Object.fromEntries(
	Object.entries(resources).flatMap(([resource, { operationField }]) =>
		(operationField.options ?? []).map((option) => {
			const { value, name, action } = option as { value: string; name: string; action?: string };
			return [`${resource}:${value}`, action ?? name];
		}),
	),
);

/** The canvas subtitle: the chosen operation in words ("Send a message"), not its raw values. */
export const subtitle = `={{ ${JSON.stringify(ACTION_LABELS)}[$parameter["resource"] + ":" + $parameter["operation"]] }}`;
