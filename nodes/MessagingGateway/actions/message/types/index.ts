/**
 * The "Message Type" selector and every type's editor fields, and the way from a selected type and its parameter
 * values to the payload of spec 2.2. Media types are resolved by the send operation (they may need an upload first).
 */
import type { IDataObject, INodeProperties } from 'n8n-workflow';

import type { MediaKind } from '../../../../gateway/spec';
import type { MessagePayload, MessageTypeChoice } from './common';
import * as contacts from './contacts';
import * as interactiveButtons from './interactiveButtons';
import * as interactiveList from './interactiveList';
import * as location from './location';
import * as media from './media';
import * as reaction from './reaction';
import * as template from './template';
import * as text from './text';

export const messageTypeField: INodeProperties = {
	displayName: 'Message Type',
	name: 'messageType',
	type: 'options',
	noDataExpression: true,
	displayOptions: { show: { resource: ['message'], operation: ['send'] } },
	options: [
		{ name: 'Audio', value: 'audio', description: 'An audio file (AAC, MP4, MPEG, AMR or OGG with the opus codec)' },
		{ name: 'Contacts', value: 'contacts', description: 'One or more contact cards' },
		{ name: 'Document', value: 'document', description: 'Any file, with a caption and file name' },
		{ name: 'Image', value: 'image', description: 'A JPEG or PNG image, with an optional caption' },
		{
			name: 'Interactive Buttons',
			value: 'interactiveButtons',
			description: 'A text with up to three reply buttons',
		},
		{ name: 'Interactive List', value: 'interactiveList', description: 'A text with a button that opens a list of options' },
		{ name: 'Location', value: 'location', description: 'A place on the map' },
		{ name: 'Reaction', value: 'reaction', description: 'An emoji reaction to a message, or its removal' },
		{ name: 'Sticker', value: 'sticker', description: 'A WebP sticker' },
		{
			name: 'Template',
			value: 'template',
			description: 'An approved template; the only kind that may start a conversation',
		},
		{ name: 'Text', value: 'text', description: 'A text message' },
		{ name: 'Video', value: 'video', description: 'An MP4 or 3GP video, with an optional caption' },
	],
	default: 'text',
};

export const typeFields: INodeProperties[] = [
	...text.fields,
	...template.fields,
	...interactiveButtons.fields,
	...interactiveList.fields,
	...contacts.fields,
	...location.fields,
	...media.fields,
	...reaction.fields,
];

// Asked once per item; the answer only depends on the static description.
const fieldsByChoice = new Map<MessageTypeChoice, INodeProperties[]>();

/** The top-level fields the editor shows for one message type: the parameters its builder reads. */
export function fieldsOf(choice: MessageTypeChoice): INodeProperties[] {
	let fields = fieldsByChoice.get(choice);
	if (!fields) {
		fields = typeFields.filter((field) => {
			const shown = field.displayOptions?.show?.messageType;
			return Array.isArray(shown) && shown.includes(choice);
		});
		fieldsByChoice.set(choice, fields);
	}
	return fields;
}

/** Builders of the types that need nothing but their parameters. */
export const payloadBuilders: Record<Exclude<MessageTypeChoice, MediaKind>, (params: IDataObject) => MessagePayload> = {
	text: text.build,
	template: template.build,
	interactiveButtons: interactiveButtons.build,
	interactiveList: interactiveList.build,
	contacts: contacts.build,
	location: location.build,
	reaction: reaction.build,
};

export { isMediaKind, readMediaInput, build as buildMediaPayload } from './media';
export type { MediaInput } from './media';
