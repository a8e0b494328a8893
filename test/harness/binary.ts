/**
 * Binary input items go into n8n's binary-data store (filesystem mode) the way an upstream node would put them
 * there, so the node under test reads them with getBinaryStream / getBinaryDataBuffer from disk.
 * A `{ filePath }` input is copied file-to-file by the store, never read into memory here.
 */
import { basename } from 'node:path';

import { Container } from '@n8n/di';
import { BinaryDataService } from 'n8n-core';
import { fileTypeFromMimeType } from 'n8n-workflow';
import type { IBinaryData, IBinaryKeyData, IDataObject, INodeExecutionData } from 'n8n-workflow';

import { EXECUTION_ID, WORKFLOW_ID } from './workflow';

export interface BinaryInput {
	data: Buffer | { filePath: string };
	fileName?: string;
	mimeType?: string;
}

export interface InputItem {
	json: IDataObject;
	binary?: Record<string, BinaryInput>;
}

const executionLocation = { type: 'execution' as const, workflowId: WORKFLOW_ID, executionId: EXECUTION_ID };

async function storeBinary(input: BinaryInput): Promise<IBinaryData> {
	const isFile = !Buffer.isBuffer(input.data);
	const fileName = input.fileName ?? (isFile ? basename((input.data as { filePath: string }).filePath) : undefined);
	// No content sniffing: a test that cares about the type says it.
	const mimeType = input.mimeType ?? 'application/octet-stream';
	const metadata: IBinaryData = {
		data: '',
		mimeType,
		fileType: fileTypeFromMimeType(mimeType),
		...(fileName && { fileName, fileExtension: fileName.split('.').pop() }),
	};
	const service = Container.get(BinaryDataService);
	return Buffer.isBuffer(input.data)
		? await service.store(executionLocation, input.data, metadata)
		: await service.copyBinaryFile(executionLocation, metadata, input.data.filePath);
}

export async function toExecutionItems(items: InputItem[]): Promise<INodeExecutionData[]> {
	return await Promise.all(
		items.map(async (item, index) => {
			const result: INodeExecutionData = { json: item.json, pairedItem: { item: index } };
			if (item.binary) {
				const binary: IBinaryKeyData = {};
				for (const [property, input] of Object.entries(item.binary)) binary[property] = await storeBinary(input);
				result.binary = binary;
			}
			return result;
		}),
	);
}

/** The bytes of an output item's binary property, wherever n8n keeps them (store or inline base64). */
export async function readBinary(item: INodeExecutionData, propertyName = 'data'): Promise<Buffer> {
	const binaryData = item.binary?.[propertyName];
	if (!binaryData) {
		const present = Object.keys(item.binary ?? {}).join(', ') || 'none';
		throw new Error(`Harness: the item has no binary property "${propertyName}" (present: ${present})`);
	}
	return await Container.get(BinaryDataService).getAsBuffer(binaryData);
}
