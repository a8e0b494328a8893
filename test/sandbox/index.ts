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
} from './server';
export { ROUTE_NAMES } from './routes';
