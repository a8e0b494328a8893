/**
 * The gateway's routes (spec section 4, docs/gateway.md for the webhook deletion), built from ENDPOINTS so that a path or
 * version is written in one place only. Paths match exactly, including case and the trailing slash of the webhook
 * creation.
 */
import { ENDPOINTS, PHONE_ID_QUERY_PARAM, type EndpointName } from '../../nodes/gateway/spec';

export const ROUTE_NAMES = [
	'messages',
	'templates.create',
	'templates.get',
	'templates.edit',
	'webhooks.create',
	'webhooks.list',
	'webhooks.delete',
	'profiles',
	'medias',
	'personUpload',
] as const;
export type RouteName = (typeof ROUTE_NAMES)[number];

/** How the body of a route is read: not at all, as JSON, as a streamed multipart form, or as a streamed file. */
export type BodyKind = 'none' | 'json' | 'multipart' | 'person-file';

export interface Route {
	name: RouteName;
	method: 'GET' | 'POST' | 'PUT' | 'DELETE';
	pattern: RegExp;
	endpoint: EndpointName;
	body: BodyKind;
	/** Query parameters the route takes; any other is refused. */
	query: readonly string[];
}

function exact(path: string): RegExp {
	return new RegExp(`^${escape(path)}$`);
}

function withId(path: string): RegExp {
	return new RegExp(`^${escape(path)}/([^/]+)$`);
}

function escape(text: string): string {
	return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

export const ROUTES: readonly Route[] = [
	{ name: 'messages', method: 'POST', pattern: exact(ENDPOINTS.messages.path), endpoint: 'messages', body: 'json', query: [] },
	{
		name: 'webhooks.create',
		method: 'POST',
		pattern: exact(`${ENDPOINTS.webhooks.path}/`),
		endpoint: 'webhooks',
		body: 'json',
		query: [PHONE_ID_QUERY_PARAM],
	},
	{ name: 'webhooks.list', method: 'GET', pattern: exact(ENDPOINTS.webhooks.path), endpoint: 'webhooks', body: 'none', query: [] },
	{ name: 'webhooks.delete', method: 'DELETE', pattern: withId(ENDPOINTS.webhooks.path), endpoint: 'webhooks', body: 'none', query: [] },
	{
		name: 'templates.create',
		method: 'POST',
		pattern: exact(ENDPOINTS.templates.path),
		endpoint: 'templates',
		body: 'json',
		query: [PHONE_ID_QUERY_PARAM],
	},
	{ name: 'templates.get', method: 'GET', pattern: withId(ENDPOINTS.templates.path), endpoint: 'templates', body: 'none', query: [] },
	{ name: 'templates.edit', method: 'PUT', pattern: withId(ENDPOINTS.templates.path), endpoint: 'templates', body: 'json', query: [] },
	{ name: 'profiles', method: 'GET', pattern: exact(ENDPOINTS.profiles.path), endpoint: 'profiles', body: 'none', query: [] },
	{ name: 'medias', method: 'POST', pattern: exact(ENDPOINTS.medias.path), endpoint: 'medias', body: 'multipart', query: [] },
	{
		name: 'personUpload',
		method: 'POST',
		pattern: exact(ENDPOINTS.personUpload.path),
		endpoint: 'personUpload',
		body: 'person-file',
		query: [],
	},
];

export type RouteMatch =
	| { kind: 'route'; route: Route; id: string | null }
	| { kind: 'wrong-method'; allowed: string[] }
	| { kind: 'unknown' };

export function matchRoute(method: string, path: string): RouteMatch {
	const allowed: string[] = [];
	for (const route of ROUTES) {
		const match = route.pattern.exec(path);
		if (!match) continue;
		if (route.method === method) return { kind: 'route', route, id: match[1] === undefined ? null : decodePathSegment(match[1]) };
		allowed.push(route.method);
	}
	return allowed.length > 0 ? { kind: 'wrong-method', allowed } : { kind: 'unknown' };
}

function decodePathSegment(segment: string): string {
	try {
		return decodeURIComponent(segment);
	} catch {
		return segment;
	}
}
