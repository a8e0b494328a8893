import { buildLocation as build } from '../../../nodes/MessagingGateway/actions/message/types/basic';
import { inputError } from './inputError';

describe('location message', () => {
	it('sends the coordinates as strings with name and address', () => {
		expect(
			build({ latitude: -23.5613, longitude: -46.6565, locationName: 'Store', locationAddress: 'Av. Paulista, 1578' }),
		).toEqual({
			type: 'location',
			location: { latitude: '-23.5613', longitude: '-46.6565', name: 'Store', address: 'Av. Paulista, 1578' },
		});
	});

	it('accepts coordinates as text from an expression, with a decimal comma too', () => {
		expect(build({ latitude: ' -23,5613 ', longitude: '-46.6565' }).location).toEqual({
			latitude: '-23.5613',
			longitude: '-46.6565',
		});
	});

	it('accepts the limits and writes tiny values without exponent', () => {
		expect(build({ latitude: 90, longitude: -180 }).location).toEqual({ latitude: '90', longitude: '-180' });
		expect(build({ latitude: 1e-7, longitude: 0 }).location.latitude).toBe('0.0000001');
	});

	it.each([
		[{ latitude: 90.0001, longitude: 0 }, 'Latitude', /between -90 and 90/],
		[{ latitude: 0, longitude: -180.5 }, 'Longitude', /between -180 and 180/],
		[{ latitude: 'abc', longitude: 0 }, 'Latitude', /not a number/],
		[{ latitude: '', longitude: 0 }, 'Latitude', /is required/],
		[{ longitude: 0 }, 'Latitude', /is required/],
		[{ latitude: 0, longitude: Infinity }, 'Longitude', /not a number/],
	])('refuses %p', (params, field, reason) => {
		const error = inputError(() => build(params));
		expect(error.field).toBe(field);
		expect(error.reason).toMatch(reason);
	});
});
