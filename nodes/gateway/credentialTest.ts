/**
 * The credential screen's "Test" button: `GET /api/Profiles` (version 4.0) with the key, and an answer that says
 * what is wrong in the user's words: the key refused, the address not a gateway, the address unreachable.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { describeNetworkError, readGatewayError, redact } from './errors';
import { ENDPOINTS } from './spec';
import { normaliseBaseUrl } from './urls';

interface FullResponse {
	statusCode: number;
	body: unknown;
}

export async function messagingGatewayApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data: ICredentialDataDecryptedObject = credential.data ?? {};
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	const baseUrl = normaliseBaseUrl(data.baseUrl);
	if (!apiKey) return { status: 'Error', message: 'Enter the API key the gateway issued to you' };
	if (!baseUrl) {
		return { status: 'Error', message: `Base URL "${String(data.baseUrl ?? '')}" is not an http(s) address` };
	}

	const profiles = ENDPOINTS.profiles;
	let response: FullResponse;
	try {
		response = (await this.helpers.request({
			method: 'GET',
			uri: `${baseUrl}${profiles.path}`,
			headers: { apikey: apiKey, version: profiles.version },
			json: true,
			resolveWithFullResponse: true,
			simple: false,
			followRedirect: false,
		})) as FullResponse;
	} catch (error) {
		const code = (error as { code?: string; cause?: { code?: string } }).cause?.code ?? (error as { code?: string }).code;
		return { status: 'Error', message: describeNetworkError(code, baseUrl).message };
	}

	const { statusCode, body } = response;
	if (statusCode === 401 || statusCode === 403) {
		const reason = readGatewayError(statusCode, body).message;
		return { status: 'Error', message: redact(`The gateway refused the API key (${reason})`, [apiKey]) };
	}
	if (statusCode === 404) {
		return {
			status: 'Error',
			message: `No gateway API at ${baseUrl}: ${profiles.path} answered 404. Check the Base URL (the gateway address, without a path).`,
		};
	}
	if (statusCode >= 300) {
		return { status: 'Error', message: redact(readGatewayError(statusCode, body).message, [apiKey]) };
	}
	const looksLikeProfiles = typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
	if (!looksLikeProfiles) {
		return {
			status: 'Error',
			message: `${baseUrl} answered, but not like the gateway (no profile list). Check the Base URL.`,
		};
	}
	return { status: 'OK', message: 'Connection successful: the gateway accepted the API key' };
}
