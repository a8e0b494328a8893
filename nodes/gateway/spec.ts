/**
 * Every fact of the gateway that the code relies on, in one place (docs/gateway.md).
 * Pure data: nothing here imports n8n, so the sandbox gateway and the pure modules share it too.
 */

import type { MediaFormat } from './media';

/** `messaging_product` on every request and response that carries it (docs/gateway.md, Decisions). */
export const CHANNEL = 'whatsapp';

/** The production host of every vendor example (docs/gateway.md). */
export const DEFAULT_BASE_URL = 'https://api-cerberus-kong.socialminer.tech';

/** Name of the optional phone-id query parameter of webhook and template creation (docs/gateway.md, Decisions). */
export const PHONE_ID_QUERY_PARAM = 'phoneId';

/**
 * The endpoints and the `version` header each one takes (spec section 9). `version: null` means the endpoint takes
 * no version header (the person-data upload). Paths are relative to the base URL.
 */
export const ENDPOINTS = {
	messages: { path: '/api/Messages', version: '5.0' },
	templates: { path: '/api/Templates', version: '5.0' },
	webhooks: { path: '/api/Webhooks', version: '4.0' },
	profiles: { path: '/api/Profiles', version: '4.0' },
	medias: { path: '/api/Medias', version: '6.0' },
	personUpload: { path: '/DataInserterProfiles/api/profile', version: null },
} as const;

export type EndpointName = keyof typeof ENDPOINTS;

/** Message types of `POST /api/Messages` (spec section 2.2). */
export const MESSAGE_TYPES = [
	'text',
	'template',
	'interactive',
	'contacts',
	'location',
	'image',
	'audio',
	'video',
	'document',
	'sticker',
	'reaction',
] as const;
export type MessageType = (typeof MESSAGE_TYPES)[number];

export const MEDIA_KINDS = ['image', 'audio', 'video', 'document', 'sticker'] as const;
export type MediaKind = (typeof MEDIA_KINDS)[number];

/**
 * Media kinds that carry a `caption`. The spec shows it on document only; docs/gateway.md: the network also takes it on
 * image and video, which the gateway's version 5.0 passes through. Audio and stickers have none on the network.
 */
export const CAPTIONED_MEDIA_KINDS = ['image', 'video', 'document'] as const satisfies readonly MediaKind[];

/**
 * Media limits (spec section 8), read as decimal as docs/gateway.md decides (5 MB = 5,000,000 bytes, 100 KB = 100,000 bytes),
 * and the formats the network accepts per kind (docs/gateway.md), each with the content type it is uploaded as; format ids
 * are those of gateway/media.ts, which tells them apart from a file's first bytes. Documents take any format.
 */
export const MEDIA_LIMITS: Record<
	MediaKind,
	{ maxBytes: number; label: string; formats: ReadonlyArray<{ format: MediaFormat; mimeType: string }> | null }
> = {
	image: {
		maxBytes: 5_000_000,
		label: '5 MB',
		formats: [
			{ format: 'jpeg', mimeType: 'image/jpeg' },
			{ format: 'png', mimeType: 'image/png' },
		],
	},
	audio: {
		maxBytes: 16_000_000,
		label: '16 MB',
		formats: [
			{ format: 'aac', mimeType: 'audio/aac' },
			{ format: 'mp4', mimeType: 'audio/mp4' },
			{ format: 'mpeg', mimeType: 'audio/mpeg' },
			{ format: 'amr', mimeType: 'audio/amr' },
			// The network takes ogg audio only with the opus codec, and wants the codec in the content type.
			{ format: 'ogg-opus', mimeType: 'audio/ogg; codecs=opus' },
		],
	},
	video: {
		maxBytes: 16_000_000,
		label: '16 MB',
		formats: [
			{ format: 'mp4', mimeType: 'video/mp4' },
			{ format: '3gpp', mimeType: 'video/3gpp' },
		],
	},
	document: { maxBytes: 100_000_000, label: '100 MB', formats: null },
	sticker: { maxBytes: 100_000, label: '100 KB', formats: [{ format: 'webp', mimeType: 'image/webp' }] },
};

/** Person files: at most 1 GB per file, read as 1,000,000,000 bytes (docs/gateway.md, Decisions). */
export const PERSON_FILE_MAX_BYTES = 1_000_000_000;

/** Person record fields (spec section 2.8), PascalCase in JSON and CSV, in the order files list them. */
export const PERSON_FIELDS = [
	'FirstName',
	'LastName',
	'CPF',
	'Email',
	'Phone',
	'ExternalId',
	'FacebookId',
	'AccessToken',
	'Token',
	'SmartLinkId',
	'CookieId',
] as const;

/** Fields that identify a person (rule 1); at least one of the name fields is required (rule 3). */
export const PERSON_KEY_FIELDS = ['CPF', 'Email', 'Phone'] as const;
export const PERSON_NAME_FIELDS = ['FirstName', 'LastName'] as const;

/** Custom attribute types (rule 5), spelled as the spec lists them; the JSON examples write them in lowercase. */
export const PERSON_ATTRIBUTE_TYPES = ['String', 'Integer', 'Float', 'Boolean', 'Datetime'] as const;

/** Key of the custom attributes in a JSON person object (rule 6). */
export const PERSON_JSON_CUSTOM_ATTRIBUTES_KEY = 'customAttributes';

/** Person-data upload content types (spec section 4.9). */
export const PERSON_CONTENT_TYPES = { json: 'application/json', csv: 'application/csv' } as const;

/** Webhook subscription fields (spec section 6). Only `messages` is currently delivered by the gateway. */
export const WEBHOOK_EVENT_TYPES = [
	'account_review_update',
	'account_update',
	'business_capability_update',
	'message_template_status_update',
	'messages',
	'phone_number_name_update',
	'phone_number_quality_update',
	'security',
] as const;

/** The subscription fields the gateway delivers today (spec section 6: "Only the subscription field `messages` is currently available"). */
export const WEBHOOK_DELIVERED_EVENT_TYPES: readonly (typeof WEBHOOK_EVENT_TYPES)[number][] = ['messages'];

/** Webhook `meta_version` values of requests; responses may spell `LATEST` as `LASTEST` (spec section 2.4). */
export const WEBHOOK_META_VERSIONS = ['v11', 'v16', 'LATEST'] as const;

/** Spellings of `meta_version` seen in responses, and what they mean. */
export const WEBHOOK_META_VERSION_SPELLINGS: Readonly<Record<string, (typeof WEBHOOK_META_VERSIONS)[number]>> = {
	LASTEST: 'LATEST',
};

/** Template categories valid for version 5.0 (spec section 2.5). */
export const TEMPLATE_CATEGORIES = ['AUTHENTICATION', 'MARKETING', 'UTILITY'] as const;

/** Every category the gateway takes: those of version 5.0 and `TICKET_UPDATE`, used by a create example (spec 2.5). */
export const TEMPLATE_CATEGORIES_ACCEPTED = [...TEMPLATE_CATEGORIES, 'TICKET_UPDATE'] as const;

/** Template names the network takes: lowercase letters, digits and underscores (`order_shipped`). */
export const TEMPLATE_NAME_PATTERN = /^[a-z0-9_]+$/;

/** Component formats of spec section 2.5 (BODY lists all five; HEADER shows the static LOCATION). */
export const TEMPLATE_COMPONENT_FORMATS = ['TEXT', 'IMAGE', 'DOCUMENT', 'VIDEO', 'LOCATION'] as const;

/** Edits allowed to an approved template (spec section 8); rejected and paused templates have no limit. */
export const TEMPLATE_EDIT_QUOTA = { perThirtyDays: 10, perDay: 1 } as const;

/** Template states that may be edited (spec sections 3 and 4.5). */
export const TEMPLATE_EDITABLE_STATUSES = ['APPROVED', 'REJECTED', 'PAUSED'] as const;

/** Network limits that the spec does not give but that are well known (docs/gateway.md, Decisions). */
export const NETWORK_LIMITS = {
	maxReplyButtons: 3,
	maxReplyButtonTitleLength: 20,
	maxListRows: 10,
} as const;
