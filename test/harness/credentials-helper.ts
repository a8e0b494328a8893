/**
 * A credentials helper for tests. It plays the part of n8n's CredentialsHelper (packages/cli) without a database:
 * the test hands in decrypted credential data by type name, and `authenticate` applies the credential type's
 * `authenticate` exactly the way n8n does (generic headers/qs/body/auth with `={{$credentials.x}}` resolved by
 * n8n's own expression engine, or the type's function).
 */
import { ICredentialsHelper, NodeHelpers, Workflow } from 'n8n-workflow';
import type {
	ICredentialDataDecryptedObject,
	ICredentialType,
	ICredentials,
	IHttpRequestHelper,
	IHttpRequestOptions,
	INode,
	INodeCredentialsDetails,
	INodeParameters,
	INodeProperties,
	IRequestOptionsSimplified,
	IWorkflowExecuteAdditionalData,
} from 'n8n-workflow';

import { nodeTypesOf } from './workflow';

export class TestCredentialsHelper extends ICredentialsHelper {
	private readonly typesByName: Map<string, ICredentialType>;

	constructor(
		credentialTypes: ICredentialType[],
		/** Decrypted data by credential type name; preAuthentication results are merged in, as n8n saves them. */
		private readonly credentialsByType: Record<string, ICredentialDataDecryptedObject>,
	) {
		super();
		this.typesByName = new Map(credentialTypes.map((type) => [type.name, type]));
	}

	private getType(name: string): ICredentialType {
		const type = this.typesByName.get(name);
		if (!type) throw new Error(`Harness: unknown credential type "${name}"; pass it in credentialTypes`);
		return type;
	}

	getParentTypes(name: string): string[] {
		const parents = this.getType(name).extends ?? [];
		return parents.flatMap((parent) => [parent, ...this.getParentTypes(parent)]);
	}

	isCredentialUsableByNode(): boolean {
		return true;
	}

	getCredentialsProperties(type: string): INodeProperties[] {
		const own = this.getType(type).properties;
		const inherited = (this.getType(type).extends ?? []).flatMap((parent) => this.getCredentialsProperties(parent));
		return [...inherited, ...own];
	}

	/** Like n8n: the stored values over the type's defaults (so an unset optional field reads as its default). */
	async getDecrypted(
		_additionalData: IWorkflowExecuteAdditionalData,
		_nodeCredentials: INodeCredentialsDetails,
		type: string,
	): Promise<ICredentialDataDecryptedObject> {
		const data = this.credentialsByType[type];
		if (!data) throw new Error(`Harness: the test gave no credentials of type "${type}"`);
		const properties = this.getCredentialsProperties(type);
		const withDefaults = NodeHelpers.getNodeParameters(properties, data as INodeParameters, true, false, null, null);
		return { ...(withDefaults as ICredentialDataDecryptedObject), ...data };
	}

	async getCredentials(nodeCredentials: INodeCredentialsDetails, type: string): Promise<ICredentials> {
		throw new Error(`Harness: getCredentials("${nodeCredentials.name}", "${type}") is not supported; use getDecrypted`);
	}

	async authenticate(
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		requestOptions: IHttpRequestOptions | IRequestOptionsSimplified,
		workflow?: Workflow,
		node?: INode,
	): Promise<IHttpRequestOptions> {
		const { authenticate } = this.getType(typeName);
		if (typeof authenticate === 'function') {
			return await authenticate(credentials, requestOptions as IHttpRequestOptions);
		}
		if (authenticate?.type !== 'generic') return requestOptions as IHttpRequestOptions;

		const options = requestOptions as unknown as Record<string, Record<string, unknown>>;
		const resolve = (value: string) => this.resolve(value, credentials, workflow, node);
		for (const [target, entries] of Object.entries(authenticate.properties)) {
			options[target] ??= {};
			for (const [key, value] of Object.entries(entries as Record<string, string>)) {
				options[target][String(resolve(key))] = resolve(value);
			}
		}
		return requestOptions as IHttpRequestOptions;
	}

	/** `={{$credentials.apiKey}}` through n8n's expression engine, with `$credentials` as an additional key. */
	private resolve(value: string, credentials: ICredentialDataDecryptedObject, workflow?: Workflow, node?: INode) {
		if (typeof value !== 'string' || !value.startsWith('=')) return value;
		const evaluator = workflow ?? expressionWorkflow;
		const contextNode = node ?? expressionNode;
		const additionalKeys = { $credentials: credentials };
		return evaluator.expression.getSimpleParameterValue(contextNode, value, 'internal', additionalKeys, undefined, '');
	}

	async preAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
		_node: INode,
		credentialsExpired: boolean,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		if (!type.preAuthentication) return undefined;
		// n8n refreshes when the expirable property is empty or the last request failed with 401.
		const expirable = type.properties.find((property) => property.typeOptions?.expirable === true);
		if (!credentialsExpired && expirable && credentials[expirable.name]) return undefined;
		return await this.runPreAuthentication(helpers, credentials, typeName);
	}

	async runPreAuthentication(
		helpers: IHttpRequestHelper,
		credentials: ICredentialDataDecryptedObject,
		typeName: string,
	): Promise<ICredentialDataDecryptedObject | undefined> {
		const type = this.getType(typeName);
		if (!type.preAuthentication) return undefined;
		const output = await type.preAuthentication.call(helpers, credentials);
		const updated = { ...credentials, ...output } as ICredentialDataDecryptedObject;
		this.credentialsByType[typeName] = updated;
		return updated;
	}

	async updateCredentials(_details: INodeCredentialsDetails, type: string, data: ICredentialDataDecryptedObject) {
		this.credentialsByType[type] = data;
	}

	async updateCredentialsOauthTokenData(
		_details: INodeCredentialsDetails,
		type: string,
		data: ICredentialDataDecryptedObject,
	) {
		this.credentialsByType[type] = data;
	}
}

// Used only to evaluate credential expressions when n8n calls authenticate without a workflow.
const expressionNode: INode = {
	id: 'credential-expression',
	name: 'Credential expression',
	type: 'harness.none',
	typeVersion: 1,
	position: [0, 0],
	parameters: {},
};
const expressionWorkflow = new Workflow({
	nodes: [expressionNode],
	connections: {},
	active: false,
	nodeTypes: nodeTypesOf(undefined),
});
