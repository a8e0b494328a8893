/**
 * The entry points node tests use. Each builds the node's workflow and additional data, then runs the node the
 * way n8n does: execute() through n8n-core's WorkflowExecute.runNode (which builds the real ExecuteContext),
 * webhook() in a WebhookContext, webhookMethods in a HookContext, load-options methods in a LoadOptionsContext
 * and credential tests in a CredentialTestContext.
 */
import {
	CredentialTestContext,
	HookContext,
	LoadOptionsContext,
	WebhookContext,
	WorkflowExecute,
	getAdditionalKeys,
} from 'n8n-core';
import { createRunExecutionData } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentialsDecrypted,
	IDataObject,
	IExecuteData,
	INodeCredentialTestResult,
	INodeExecutionData,
	INodeParameters,
	INodeType,
	IWebhookData,
	IWebhookDescription,
	IWebhookResponseData,
	NodeExecutionHint,
	WebhookType,
	WorkflowExecuteMode,
} from 'n8n-workflow';

import { MessagingGatewayApi } from '../../credentials/MessagingGatewayApi.credentials';
import { toExecutionItems } from './binary';
import type { InputItem } from './binary';
import { logPosition, logsSince, setUpN8n } from './container';
import { RecordedResponse, buildRequest } from './http-fakes';
import type { RequestInput, ResponseRecord } from './http-fakes';
import { RESUME_TOKEN, WEBHOOK_ID, WORKFLOW_ID, buildAdditionalData, buildWorkflow } from './workflow';
import type { AnyNodeType, NodeSetup } from './workflow';

interface CommonOptions {
	node: AnyNodeType;
	parameters: INodeParameters;
	/** Decrypted credential data by credential type name, e.g. `{ messagingGatewayApi: { apiKey, baseUrl } }`. */
	credentials?: Record<string, ICredentialDataDecryptedObject>;
	/** Credential types n8n knows about; default: the package's MessagingGatewayApi. */
	credentialTypes?: ICredentialType[];
	typeVersion?: number;
}

function setupOf(options: CommonOptions & Partial<NodeSetup>): NodeSetup {
	return { ...options, credentialTypes: options.credentialTypes ?? [new MessagingGatewayApi()] };
}

function typeOf(workflowNodeType: ReturnType<typeof buildWorkflow>['workflow'], type: string, version: number) {
	return workflowNodeType.nodeTypes.getByNameAndVersion(type, version);
}

// ---------------------------------------------------------------------------------------------------------------

export interface RunNodeOptions extends CommonOptions {
	/** Input items; default one empty item. Binary inputs are put into n8n's binary store first. */
	items?: InputItem[];
	/** The node setting "On Error: Continue" (onError 'continueRegularOutput'). */
	continueOnFail?: boolean;
	/** 'manual' (default) is a run from the editor; 'trigger' or 'webhook' are production runs. */
	mode?: WorkflowExecuteMode;
	/**
	 * The node setting Retry On Fail: the node runs again, as n8n-core's retry loop does (the same executeData,
	 * run index and execution), when it throws or its first output item has `json.error`, up to `maxTries` runs.
	 */
	retryOnFail?: { maxTries: number; waitBetweenTriesMs?: number };
	/** The execution's cancel signal, as n8n's engine passes it to runNode (stop button, workflow timeout). */
	abortSignal?: AbortSignal;
}

export interface RunNodeResult {
	/** What execute() returned, one array per output. */
	output: INodeExecutionData[][];
	/** Set when the node called putExecutionToWait. */
	waitTill?: Date;
	/** What `$execution.resumeUrl` resolves to in this execution. */
	resumeUrl: string;
	hints: NodeExecutionHint[];
	/** Log lines written during this run. */
	logs: string[];
	/** How many times the node ran (more than 1 only with retryOnFail). */
	tries: number;
	/** The execution's custom data the node set (n8n saves it with the execution, a stopped one too). */
	customData: Record<string, string>;
}

/** Runs the node's execute() on the given items. Throws what the node throws. */
export async function runNode(options: RunNodeOptions): Promise<RunNodeResult> {
	await setUpN8n();
	const logStart = logPosition();
	const setup = setupOf(options);
	const { workflow, node } = buildWorkflow(setup);
	// The node setting, as the editor saves it: the node itself reads it (retryOnFail in n8n's INode).
	if (options.retryOnFail) Object.assign(node, { retryOnFail: true, maxTries: options.retryOnFail.maxTries });
	const { additionalData } = buildAdditionalData(setup);
	const mode = options.mode ?? 'manual';

	const items = await toExecutionItems(options.items ?? [{ json: {} }]);
	const runExecutionData = createRunExecutionData({ resumeToken: RESUME_TOKEN });
	const executeData: IExecuteData = {
		node,
		data: { main: [items] },
		source: { main: [{ previousNode: 'Input' }] },
	};
	const runner = new WorkflowExecute(additionalData, mode, runExecutionData);
	const maxTries = options.retryOnFail ? options.retryOnFail.maxTries : 1;
	let tries = 0;
	let result: Awaited<ReturnType<WorkflowExecute['runNode']>> | undefined;
	// n8n-core's retry loop (workflow-execute.js): a throw or a first output item with json.error runs the node again.
	while (tries < maxTries) {
		if (tries > 0) await new Promise((resolve) => setTimeout(resolve, options.retryOnFail?.waitBetweenTriesMs ?? 0));
		tries++;
		try {
			result = await runner.runNode(workflow, executeData, runExecutionData, 0, additionalData, mode, options.abortSignal);
		} catch (error) {
			// The last try's error leaves with the number of tries made, so that tests can tell that n8n's loop ran, and
			// the custom data, which n8n keeps of a stopped execution.
			if (tries >= maxTries) throw Object.assign(error as object, { tries, customData: { ...runExecutionData.resultData.metadata } });
			continue;
		}
		const failed = 'data' in result && result.data?.[0]?.[0]?.json?.error;
		if (!failed) break;
	}
	if (!result || !('data' in result)) throw new Error('Harness: the node returned an engine request, which is not supported');

	return {
		output: result.data ?? [],
		waitTill: runExecutionData.waitTill,
		resumeUrl: getAdditionalKeys(additionalData, mode, runExecutionData).$execution!.resumeUrl as string,
		hints: 'hints' in result ? (result.hints ?? []) : [],
		logs: logsSince(logStart),
		tries,
		customData: { ...runExecutionData.resultData.metadata },
	};
}

// ---------------------------------------------------------------------------------------------------------------

function webhookDescriptionOf(nodeType: INodeType, webhookName: string): IWebhookDescription {
	const description = nodeType.description.webhooks?.find((webhook) => webhook.name === webhookName);
	if (!description) throw new Error(`Harness: the node has no webhook named "${webhookName}"`);
	return description;
}

export interface RunWebhookOptions extends CommonOptions {
	/** The node's slice of workflow static data, as left by webhookMethods.create. */
	staticData?: IDataObject;
	webhookName?: WebhookType;
	request: RequestInput;
	/** n8n's mode for the call: 'webhook' (production URL, the default) or 'manual' (the test URL). */
	mode?: WorkflowExecuteMode;
}

export interface RunWebhookResult {
	result: IWebhookResponseData;
	/** What the node wrote with res.status().send/json/end; `written` is false when it wrote nothing. */
	response: ResponseRecord;
	logs: string[];
}

/** Delivers one HTTP request to the node's webhook(), as n8n's webhook server does. */
export async function runWebhook(options: RunWebhookOptions): Promise<RunWebhookResult> {
	await setUpN8n();
	const logStart = logPosition();
	const setup = setupOf(options);
	const { workflow, node } = buildWorkflow(setup);
	const { additionalData } = buildAdditionalData(setup);
	const nodeType = typeOf(workflow, node.type, node.typeVersion);
	if (!nodeType.webhook) throw new Error('Harness: the node has no webhook() method');

	const request = buildRequest(options.request);
	const response = new RecordedResponse();
	// Typed as express's Request/Response; the fakes carry the parts n8n and nodes use.
	additionalData.httpRequest = request as unknown as typeof additionalData.httpRequest;
	additionalData.httpResponse = response as unknown as typeof additionalData.httpResponse;
	const webhookDescription = webhookDescriptionOf(nodeType, options.webhookName ?? 'default');
	const webhookData: IWebhookData = {
		httpMethod: request.method,
		node: node.name,
		path: `${WEBHOOK_ID}`,
		webhookDescription,
		workflowId: WORKFLOW_ID,
		workflowExecuteAdditionalData: additionalData,
		webhookId: WEBHOOK_ID,
		isTest: options.mode === 'manual' ? true : undefined,
	};
	const context = new WebhookContext(workflow, node, additionalData, options.mode ?? 'webhook', webhookData, [], null);
	const result = await nodeType.webhook.call(context);
	return { result, response: response.record(), logs: logsSince(logStart) };
}

// ---------------------------------------------------------------------------------------------------------------

export interface RunHookOptions extends CommonOptions {
	/** The node's slice of workflow static data; mutated in place like n8n's. */
	staticData: IDataObject;
	method: 'checkExists' | 'create' | 'delete';
	/** What getNodeWebhookUrl(webhookName) returns, i.e. the URL the gateway should call. */
	webhookUrl: string;
	webhookName?: WebhookType;
}

/** Runs one of the node's webhookMethods (activation: checkExists then create; deactivation: delete). */
export async function runHook(options: RunHookOptions): Promise<boolean> {
	await setUpN8n();
	const setup = setupOf(options);
	const { workflow, node } = buildWorkflow(setup);
	const { additionalData } = buildAdditionalData(setup);
	const nodeType = typeOf(workflow, node.type, node.typeVersion);
	const webhookName = options.webhookName ?? 'default';
	const hook = nodeType.webhookMethods?.[webhookName]?.[options.method];
	if (!hook) throw new Error(`Harness: the node has no webhookMethods.${webhookName}.${options.method}`);

	const webhookDescription = webhookDescriptionOf(nodeType, webhookName);
	const webhookData: IWebhookData = {
		httpMethod: (webhookDescription.httpMethod as IWebhookData['httpMethod']) ?? 'POST',
		node: node.name,
		path: WEBHOOK_ID,
		webhookDescription,
		workflowId: WORKFLOW_ID,
		workflowExecuteAdditionalData: additionalData,
		webhookId: WEBHOOK_ID,
	};
	// n8n derives the URL from its own base URL; tests state it instead, so the sandbox can call it back.
	const { webhookUrl } = options;
	class UrlPinnedHookContext extends HookContext {
		getNodeWebhookUrl(name: WebhookType) {
			return name === webhookName ? webhookUrl : super.getNodeWebhookUrl(name);
		}
	}
	const activation = options.method === 'delete' ? 'manual' : 'activate';
	const context = new UrlPinnedHookContext(workflow, node, additionalData, 'trigger', activation, webhookData);
	return await hook.call(context);
}

// ---------------------------------------------------------------------------------------------------------------

export interface RunLoadOptionsOptions extends CommonOptions {
	method: string;
	kind?: 'loadOptions' | 'listSearch' | 'resourceMapping';
	/** Parameter path that asked for the options (for `&sibling` lookups); default `parameters.<method>`. */
	path?: string;
	/** listSearch only. */
	filter?: string;
	paginationToken?: string;
}

/** Calls a methods.loadOptions / listSearch / resourceMapping function as the editor would. */
export async function runLoadOptions(options: RunLoadOptionsOptions): Promise<unknown> {
	await setUpN8n();
	const setup = setupOf(options);
	const { workflow, node } = buildWorkflow(setup);
	const { additionalData } = buildAdditionalData(setup);
	// The editor sends the parameters currently in the form.
	additionalData.currentNodeParameters = node.parameters;
	const nodeType = typeOf(workflow, node.type, node.typeVersion);
	const kind = options.kind ?? 'loadOptions';
	const method = (nodeType.methods?.[kind] as Record<string, Function> | undefined)?.[options.method];
	if (!method) throw new Error(`Harness: the node has no methods.${kind}.${options.method}`);

	const path = options.path ?? `parameters.${options.method}`;
	const context = new LoadOptionsContext(workflow, node, additionalData, path);
	const args = kind === 'listSearch' ? [options.filter, options.paginationToken] : [];
	return await method.call(context, ...args);
}

// ---------------------------------------------------------------------------------------------------------------

export interface RunCredentialTestOptions {
	node: AnyNodeType;
	testName: string;
	credentials: ICredentialDataDecryptedObject;
	/** Default: the type whose node credential entry has `testedBy: testName`, else MessagingGatewayApi. */
	credentialType?: string;
	credentialTypes?: ICredentialType[];
}

/** Runs a node's methods.credentialTest function, as the editor's "Test" button on a credential does. */
export async function runCredentialTest(options: RunCredentialTestOptions): Promise<INodeCredentialTestResult> {
	await setUpN8n();
	const credentialTypes = options.credentialTypes ?? [new MessagingGatewayApi()];
	const nodeType = 'nodeVersions' in options.node ? options.node.getNodeType() : options.node;
	const test = nodeType.methods?.credentialTest?.[options.testName];
	if (!test) throw new Error(`Harness: the node has no methods.credentialTest.${options.testName}`);
	const typeName =
		options.credentialType ??
		nodeType.description.credentials?.find((credential) => credential.testedBy === options.testName)?.name ??
		credentialTypes[0].name;

	const setup = setupOf({ ...options, parameters: {}, credentials: { [typeName]: options.credentials } });
	const { additionalData } = buildAdditionalData(setup);
	// n8n fills in the type's defaults before testing, as it does when saving.
	const data = await additionalData.credentialsHelper.getDecrypted(
		additionalData,
		{ id: 'harness-credential', name: typeName },
		typeName,
		'internal',
	);
	const credential: ICredentialsDecrypted = { id: 'harness-credential', name: typeName, type: typeName, data };
	return await test.call(new CredentialTestContext(additionalData), credential);
}
