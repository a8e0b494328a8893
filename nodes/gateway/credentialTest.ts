/**
 * The credential screen's "Test" button. Checks, each with its own sentence when it fails:
 * - the Default Country is a two-letter country code (a typo such as "Brazil" otherwise fails only at the first send);
 * - `GET /api/Profiles` (version 4.0) accepts the key at the Base URL: the key refused, the address not a gateway,
 *   the address unreachable;
 * - the Phone ID is one the gateway lists on the key's webhooks (`GET /api/Webhooks`, version 4.0), the only place
 *   the gateway shows an account's phone (credentialChecks.ts). A wrong one would make the trigger's Only This
 *   Phone drop every message of the real phone.
 *
 * n8n gives a credential test only `helpers.request` (n8n 2.41: an adapter onto the same HTTP client as
 * `httpRequest`); `httpRequest` and `httpRequestWithAuthentication` exist only in node contexts.
 */
import type {
	ICredentialDataDecryptedObject,
	ICredentialTestFunctions,
	ICredentialsDecrypted,
	INodeCredentialTestResult,
} from 'n8n-workflow';

import { defaultCountryProblem, judgePhoneId, phoneIdsOfWebhookList } from './credentialChecks';
import { describeNetworkError, networkErrorCode, readGatewayError, redact } from './errors';
import { ENDPOINTS } from './spec';
import { normaliseBaseUrl } from './transport';

interface FullResponse {
	statusCode: number;
	body: unknown;
}

type Answer = { response: FullResponse } | { networkProblem: string };

async function getFromGateway(
	context: ICredentialTestFunctions,
	baseUrl: string,
	apiKey: string,
	endpoint: { path: string; version: string },
): Promise<Answer> {
	try {
		const response = (await context.helpers.request({
			method: 'GET',
			uri: `${baseUrl}${endpoint.path}`,
			headers: { apikey: apiKey, version: endpoint.version },
			json: true,
			resolveWithFullResponse: true,
			simple: false,
			followRedirect: false,
		})) as FullResponse;
		return { response };
	} catch (error) {
		return { networkProblem: describeNetworkError(networkErrorCode(error), baseUrl).message };
	}
}

/** Why the key or the address is wrong, from the profile answer; undefined when the gateway accepted the key. */
function connectionProblem(answer: Answer, baseUrl: string, apiKey: string): string | undefined {
	if ('networkProblem' in answer) return answer.networkProblem;
	const { statusCode, body } = answer.response;
	const profiles = ENDPOINTS.profiles;
	if (statusCode === 401 || statusCode === 403) {
		const reason = readGatewayError(statusCode, body).message;
		return redact(`The gateway refused the API key (${reason})`, [apiKey]);
	}
	if (statusCode === 404) {
		return `No gateway API at ${baseUrl}: ${profiles.path} answered 404. Check the Base URL (the gateway address, without a path).`;
	}
	if (statusCode >= 300) return redact(readGatewayError(statusCode, body).message, [apiKey]);
	const looksLikeProfiles = typeof body === 'object' && body !== null && Array.isArray((body as { data?: unknown }).data);
	if (!looksLikeProfiles) return `${baseUrl} answered, but not like the gateway (no profile list). Check the Base URL.`;
	return undefined;
}

export async function messagingGatewayApiTest(
	this: ICredentialTestFunctions,
	credential: ICredentialsDecrypted,
): Promise<INodeCredentialTestResult> {
	const data: ICredentialDataDecryptedObject = credential.data ?? {};
	const apiKey = typeof data.apiKey === 'string' ? data.apiKey.trim() : '';
	const baseUrl = normaliseBaseUrl(data.baseUrl);
	const phoneId = typeof data.phoneId === 'string' ? data.phoneId.trim() : '';
	const problems: string[] = [];
	const notes: string[] = [];

	const countryProblem = defaultCountryProblem(data.defaultCountry);
	if (countryProblem) problems.push(countryProblem);
	if (!apiKey) problems.push('Enter the API key the gateway issued to you');
	if (!baseUrl) problems.push(`Base URL "${String(data.baseUrl ?? '')}" is not an http(s) address`);
	if (!apiKey || !baseUrl) return { status: 'Error', message: problems.join('. ') };

	const connection = connectionProblem(await getFromGateway(this, baseUrl, apiKey, ENDPOINTS.profiles), baseUrl, apiKey);
	if (connection) return { status: 'Error', message: [connection, ...problems].join('. ') };

	if (phoneId) {
		const answer = await getFromGateway(this, baseUrl, apiKey, ENDPOINTS.webhooks);
		if ('response' in answer && answer.response.statusCode < 300) {
			const verdict = judgePhoneId(phoneId, phoneIdsOfWebhookList(answer.response.body));
			if ('problem' in verdict) problems.push(verdict.problem);
			else if (!verdict.checked) notes.push(verdict.note);
		} else {
			notes.push('Phone ID not checked: the gateway did not list the webhooks of this key');
		}
	}

	if (problems.length > 0) {
		return { status: 'Error', message: `The gateway accepted the API key, but: ${problems.join('. ')}` };
	}
	const message = ['Connection successful: the gateway accepted the API key', ...notes].join('. ');
	return { status: 'OK', message };
}
