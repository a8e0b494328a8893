/**
 * Location message (spec 2.2, type `location`): latitude and longitude as strings, name and address.
 * The coordinates are checked to be numbers in range before they are turned into text; an empty name or address is
 * left out.
 */
import type { INodeProperties } from 'n8n-workflow';

import { MessageInputError, type MessagePayload, optionalText, readString, showForMessageTypes } from './common';

const show = showForMessageTypes(['location']);

export const fields: INodeProperties[] = [
	// Text fields without a default: a number field would default to 0 and send a pin in the ocean when left empty.
	{
		displayName: 'Latitude',
		name: 'latitude',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. -23.5613',
		description: 'Latitude in decimal degrees, from -90 (south) to 90 (north)',
		displayOptions: show,
	},
	{
		displayName: 'Longitude',
		name: 'longitude',
		type: 'string',
		default: '',
		required: true,
		placeholder: 'e.g. -46.6565',
		description: 'Longitude in decimal degrees, from -180 (west) to 180 (east)',
		displayOptions: show,
	},
	{
		displayName: 'Name',
		name: 'locationName',
		type: 'string',
		default: '',
		placeholder: 'e.g. Avenida Paulista Store',
		description: 'Optional name of the place',
		displayOptions: show,
	},
	{
		displayName: 'Address',
		name: 'locationAddress',
		type: 'string',
		default: '',
		placeholder: 'e.g. Av. Paulista, 1578 - São Paulo',
		description: 'Optional address of the place',
		displayOptions: show,
	},
];

export interface LocationParams {
	latitude?: unknown;
	longitude?: unknown;
	locationName?: unknown;
	locationAddress?: unknown;
}

export type LocationPayload = MessagePayload<
	'location',
	{ latitude: string; longitude: string; name?: string; address?: string }
>;

/** A coordinate from a number field or an expression's text ("-23.5613", also "-23,5613"), checked to be in range. */
export function readCoordinate(value: unknown, field: string, limit: number): number {
	const text = readString(value, field).trim().replace(',', '.');
	if (text === '') throw new MessageInputError(field, `is required; enter decimal degrees between -${limit} and ${limit}`);
	const number = Number(text);
	if (!Number.isFinite(number)) throw new MessageInputError(field, `"${readString(value, field)}" is not a number`);
	if (number < -limit || number > limit) {
		throw new MessageInputError(field, `${number} is out of range; it must be between -${limit} and ${limit}`);
	}
	return number;
}

/** Plain decimal text: String() would write tiny values such as 1e-7 in exponent form. */
function coordinateText(value: number): string {
	const text = String(value);
	return text.includes('e') ? value.toFixed(10).replace(/\.?0+$/, '') : text;
}

export function build(params: LocationParams): LocationPayload {
	const latitude = readCoordinate(params.latitude, 'Latitude', 90);
	const longitude = readCoordinate(params.longitude, 'Longitude', 180);
	const name = optionalText(params.locationName, 'Name');
	const address = optionalText(params.locationAddress, 'Address');
	return {
		type: 'location',
		location: {
			latitude: coordinateText(latitude),
			longitude: coordinateText(longitude),
			...(name === '' ? {} : { name }),
			...(address === '' ? {} : { address }),
		},
	};
}
