/**
 * Message > Send: one message of the selected type to one recipient per item. Everything of the item is read and
 * checked first; a media file from a binary property is then uploaded (one request), or a template given by its ID
 * read (once per ID per run), and the message is sent (one request). Bad input sends nothing. Messages to the same
 * recipient are sent one after another, in item order (the router claims each item's turn as it starts).
 */
import type { IDataObject, IExecuteFunctions, INodeProperties } from 'n8n-workflow';
import { NodeOperationError } from 'n8n-workflow';

import { hasUnknownOutcome } from '../../../gateway/errors';
import { campaignRecordOf, skippedOutput } from '../campaigns/fields';
import { uploadMediaFromUrl } from '../media/mediaFromUrl';
import { asNodeError } from '../nodeErrors';
import { uploadMediaFromBinary } from '../media/uploadMedia';
import { nodeOf, readParameter } from '../parameters';
import type { SendRun } from '../run';
import type { ClaimedTurn } from '../types';
import { checkInput, postMessage, readParameters, readRecipient } from './execution';
import { templateIdentityOf } from './templateLookup';
import { messageBody, type MessagePayload, type MessageTypeChoice } from './types/common';
import {
	buildMediaPayload,
	fieldsOf,
	isMediaKind,
	messageTypeField,
	payloadBuilders,
	readMediaInput,
	typeFields,
} from './types';
import { isFromTemplate, templateComponents } from './types/template';

export const description: INodeProperties[] = [messageTypeField, ...typeFields];

/** The item's recipient, without any await: the router claims its turn with it as the item starts. */
export function recipientOf(this: IExecuteFunctions, itemIndex: number, run: SendRun): string {
	return readRecipient.call(this, itemIndex, run);
}

/**
 * One item, after the router claimed its recipient's turn: read and check everything, upload its media or read its
 * template, then wait for the turn and the pacer, send and remember (postMessage). The router releases the turn.
 */
export async function execute(
	this: IExecuteFunctions,
	itemIndex: number,
	run?: SendRun,
	claimed?: ClaimedTurn,
): Promise<IDataObject> {
	if (!run) throw new NodeOperationError(nodeOf.call(this), 'Message > Send runs only through the router', { itemIndex });
	const to = claimed?.to ?? readRecipient.call(this, itemIndex, run);
	const record = campaignRecordOf.call(this, run, this.getInputData().length, (index) =>
		index === itemIndex ? to : readRecipient.call(this, index, run),
	);
	// With a campaign, the item's key is claimed before anything leaves (its media upload included).
	const claim = record ? await record.claim(itemIndex) : undefined;
	if (claim && claim.answer.state !== 'ours') return skippedOutput(claim, to);
	try {
		if (claim) record?.stopIfLapsed(itemIndex);
		const choice = readParameter.call(this, 'messageType', itemIndex) as MessageTypeChoice;
		const params = readParameters.call(this, itemIndex, fieldsOf(choice));
		const payload = await payloadOf.call(this, run, itemIndex, choice, params);
		const output = await postMessage.call(this, run, itemIndex, messageBody(to, payload), undefined, claimed?.turn);
		if (!claim) return output;
		record?.settle(itemIndex, 'accepted');
		return { ...output, campaign: claim.entry.campaign, key: claim.entry.key };
	} catch (error) {
		// A request that may have arrived stays claimed (never sent again); any other failure sent nothing.
		if (claim) record?.settle(itemIndex, hasUnknownOutcome(error) ? 'unknown' : 'notSent');
		throw asNodeError(nodeOf.call(this), error, itemIndex);
	}
}

/** The message of the chosen type, after its media file is uploaded or its template read when it needs that. */
async function payloadOf(
	this: IExecuteFunctions,
	run: SendRun,
	itemIndex: number,
	choice: MessageTypeChoice,
	params: IDataObject,
): Promise<MessagePayload> {
	const node = nodeOf.call(this);
	if (isMediaKind(choice)) {
		const input = checkInput(node, itemIndex, () => readMediaInput(choice, params));
		if (input.from.source === 'id') return buildMediaPayload(input, input.from.mediaId);
		// The helpers check size and format for the kind before uploading (spec 8).
		const runOptions = { connection: run.connection, timeoutMs: run.timeoutMs };
		const uploaded =
			input.from.source === 'url'
				? await uploadMediaFromUrl.call(this, itemIndex, input.from.url, choice, runOptions)
				: await uploadMediaFromBinary.call(this, itemIndex, input.from.binaryPropertyName, choice, runOptions);
		return buildMediaPayload(input, uploaded.id, uploaded.fileName);
	}
	const build = payloadBuilders[choice];
	if (!build) {
		throw new NodeOperationError(node, `Message Type "${String(choice)}" is not supported`, { itemIndex });
	}
	// From Template: the placeholders are checked first, then the name and language are read from the template.
	if (choice === 'template' && checkInput(node, itemIndex, () => isFromTemplate(params))) {
		checkInput(node, itemIndex, () => templateComponents(params));
		Object.assign(params, await templateIdentityOf.call(this, run, itemIndex));
	}
	return checkInput(node, itemIndex, () => build(params));
}
