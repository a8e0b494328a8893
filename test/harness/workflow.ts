/**
 * Builds what n8n builds before it runs a node: the INode as saved in workflow JSON, a one-node Workflow (which
 * applies the parameter defaults, as n8n does on load) and the IWorkflowExecuteAdditionalData that n8n's
 * contexts read their URLs, execution id and credentials from.
 */
import { Workflow } from 'n8n-workflow';
import type {
	ExecutionStatus,
	ICredentialDataDecryptedObject,
	ICredentialType,
	IDataObject,
	INode,
	INodeParameters,
	INodeType,
	INodeTypes,
	IVersionedNodeType,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { TestCredentialsHelper } from './credentials-helper';

/** Fixed identities, so URLs and binary-data paths are predictable in assertions. */
export const WORKFLOW_ID = 'harness-workflow';
export const EXECUTION_ID = '1001';
export const NODE_ID = '6f1a7a0e-0000-4000-8000-000000000001';
export const WEBHOOK_ID = '6f1a7a0e-0000-4000-8000-0000000000aa';
export const RESUME_TOKEN = 'harness-resume-token';
/** Where a local n8n would listen; nothing listens there, the URLs only have to look like n8n's. */
export const N8N_BASE_URL = 'http://127.0.0.1:5678';
/** The package prefix n8n gives a community node's type name. */
const NODE_TYPE_PREFIX = 'n8n-nodes-messaging-gateway';

export type AnyNodeType = INodeType | IVersionedNodeType;

export interface NodeSetup {
	node: AnyNodeType;
	parameters: INodeParameters;
	/** Decrypted credential data by credential type name. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	credentialTypes: ICredentialType[];
	typeVersion?: number;
	continueOnFail?: boolean;
	/** The node's slice of the workflow static data (`getWorkflowStaticData('node')`); mutated in place. */
	staticData?: IDataObject;
}

function typeAtVersion(nodeType: AnyNodeType, version?: number): INodeType {
	return 'nodeVersions' in nodeType ? nodeType.getNodeType(version) : nodeType;
}

function latestVersion(nodeType: AnyNodeType): number {
	if ('nodeVersions' in nodeType) return nodeType.currentVersion;
	const { version } = nodeType.description;
	return Array.isArray(version) ? Math.max(...version) : version;
}

/** n8n's node-type registry, holding just the node under test. */
export function nodeTypesOf(nodeType: AnyNodeType | undefined): INodeTypes {
	const typeName = nodeType ? `${NODE_TYPE_PREFIX}.${nodeType.description.name}` : undefined;
	return {
		getByName: (name) => (name === typeName ? nodeType : undefined) as AnyNodeType,
		getByNameAndVersion: (name, version) =>
			(name === typeName && nodeType ? typeAtVersion(nodeType, version) : undefined) as INodeType,
		getKnownTypes: () => ({}),
	};
}

export function buildWorkflow(setup: NodeSetup): { workflow: Workflow; node: INode } {
	const typeVersion = setup.typeVersion ?? latestVersion(setup.node);
	const { description } = typeAtVersion(setup.node, typeVersion);
	const node: INode = {
		id: NODE_ID,
		name: description.defaults.name ?? description.displayName,
		type: `${NODE_TYPE_PREFIX}.${setup.node.description.name}`,
		typeVersion,
		position: [0, 0],
		parameters: structuredClone(setup.parameters),
		...(description.webhooks?.length && { webhookId: WEBHOOK_ID }),
		...(setup.continueOnFail && { onError: 'continueRegularOutput' as const }),
		credentials: Object.fromEntries(
			Object.keys(setup.credentials ?? {}).map((type) => [type, { id: `harness-${type}`, name: type }]),
		),
	};
	const workflow = new Workflow({
		id: WORKFLOW_ID,
		name: 'Harness workflow',
		nodes: [node],
		connections: {},
		active: true,
		nodeTypes: nodeTypesOf(setup.node),
		// n8n keeps each node's static data under `node:<name>`; the test's object is used (and mutated) in place.
		staticData: setup.staticData ? { [`node:${node.name}`]: setup.staticData } : {},
		settings: { executionOrder: 'v1' },
	});
	// Workflow copies the node with its parameter defaults applied; hand back that one.
	return { workflow, node: workflow.nodes[node.name] };
}

export interface AdditionalDataResult {
	additionalData: IWorkflowExecuteAdditionalData;
	/** Statuses the execution was set to (e.g. 'waiting' after putExecutionToWait). */
	statuses: ExecutionStatus[];
}

export function buildAdditionalData(setup: NodeSetup): AdditionalDataResult {
	const statuses: ExecutionStatus[] = [];
	const unsupported = (what: string) => async () => {
		throw new Error(`Harness: ${what} is not supported in node tests`);
	};
	const additionalData = {
		credentialsHelper: new TestCredentialsHelper(setup.credentialTypes, { ...setup.credentials }),
		executionId: EXECUTION_ID,
		workflowId: WORKFLOW_ID,
		currentNodeExecutionIndex: 0,
		variables: {},
		restApiUrl: `${N8N_BASE_URL}/rest`,
		instanceBaseUrl: `${N8N_BASE_URL}/`,
		webhookBaseUrl: `${N8N_BASE_URL}/webhook`,
		webhookWaitingBaseUrl: `${N8N_BASE_URL}/webhook-waiting`,
		webhookTestBaseUrl: `${N8N_BASE_URL}/webhook-test`,
		formBaseUrl: `${N8N_BASE_URL}/form`,
		formWaitingBaseUrl: `${N8N_BASE_URL}/form-waiting`,
		formTestBaseUrl: `${N8N_BASE_URL}/form-test`,
		mcpBaseUrl: `${N8N_BASE_URL}/mcp`,
		mcpTestBaseUrl: `${N8N_BASE_URL}/mcp-test`,
		setExecutionStatus: (status: ExecutionStatus) => statuses.push(status),
		logAiEvent: () => {},
		getRunExecutionData: async () => undefined,
		getRuntimeCredential: async () => undefined,
		executeWorkflow: unsupported('executeWorkflow'),
		startRunnerTask: unsupported('startRunnerTask'),
	} as unknown as IWorkflowExecuteAdditionalData;
	return { additionalData, statuses };
}
