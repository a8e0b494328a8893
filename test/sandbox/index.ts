/** The sandbox gateway: start it in a test with `startSandbox()`; run it standalone with `npm run sandbox`. */
export { startSandbox, SandboxGateway } from './server';
export type {
	DeliverOptions,
	DeliveryResult,
	FailureMode,
	RecordedRequest,
	RouteName,
	Sandbox,
	SandboxMedia,
	SandboxOptions,
	SandboxPersonFile,
	SandboxState,
	SandboxTemplate,
	SandboxWebhook,
	ThroughputCounts,
	ThroughputMode,
	ThroughputSettings,
} from './server';
export { ROUTE_NAMES } from './routes';

/** The node credentials (`messagingGatewayApi`) that point at a sandbox, with any field overridden. */
export function sandboxCredentials(
	sandbox: { url: string; apiKey: string; phoneId: string },
	overrides: Record<string, string> = {},
): { messagingGatewayApi: Record<string, string> } {
	return { messagingGatewayApi: { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url, ...overrides } };
}
