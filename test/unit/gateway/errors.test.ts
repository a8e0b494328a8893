import {
	describeNetworkError,
	parseRetryAfterSeconds,
	readGatewayError,
	redact,
	redactDeep,
} from '../../../nodes/gateway/errors';

describe('readGatewayError: the gateway message a user sees', () => {
	it("reads Meta's error shape with its details", () => {
		const error = readGatewayError(400, {
			error: { message: '(#131009) Parameter value is not valid', type: 'OAuthException', code: 131009, error_data: { details: 'to: invalid number' } },
		});
		expect(error).toEqual({
			message: 'The gateway answered 400: (#131009) Parameter value is not valid',
			description: 'to: invalid number',
			code: '131009',
		});
	});

	it.each([
		[{ message: 'Template not found' }, 'Template not found'],
		[{ error: 'Unauthorized key' }, 'Unauthorized key'],
		[{ errors: [{ message: 'name is required' }, 'language is invalid'] }, 'name is required; language is invalid'],
		[{ title: 'Bad Request', detail: 'category cannot change' }, 'Bad Request'],
		[{ detail: 'quota exceeded' }, 'quota exceeded'],
		['{"message":"sent as text"}', 'sent as text'],
	])('reads %j', (body, expected) => {
		expect(readGatewayError(422, body).message).toBe(`The gateway answered 422: ${expected}`);
	});

	it('keeps the detail as description when the title is the message', () => {
		expect(readGatewayError(400, { title: 'Bad Request', detail: 'category cannot change' }).description).toBe(
			'category cannot change',
		);
	});

	it('falls back to the status text, and points at the Base URL for an HTML page', () => {
		const error = readGatewayError(502, '<html><body>Bad gateway</body></html>', 'Bad Gateway');
		expect(error.message).toBe('The gateway answered 502 Bad Gateway');
		expect(error.description).toMatch(/Base URL/);
	});
});

describe('describeNetworkError', () => {
	it('says nothing was sent when the gateway could not be reached', () => {
		const error = describeNetworkError('ECONNREFUSED', 'http://127.0.0.1:9');
		expect(error.message).toBe('Could not reach the gateway at http://127.0.0.1:9 (ECONNREFUSED)');
		expect(error.description).toMatch(/Nothing was sent/);
	});

	it('warns that a dropped connection may have delivered the request, which was not repeated', () => {
		const error = describeNetworkError('ECONNRESET', 'http://127.0.0.1:9');
		expect(error.message).toMatch(/lost before it answered \(ECONNRESET\)/);
		expect(error.description).toMatch(/not repeated/);
	});
});

describe('parseRetryAfterSeconds', () => {
	it('reads delta seconds and HTTP dates', () => {
		expect(parseRetryAfterSeconds('3')).toBe(3);
		expect(parseRetryAfterSeconds(['2'])).toBe(2);
		const now = Date.parse('2026-01-01T00:00:00Z');
		expect(parseRetryAfterSeconds('Thu, 01 Jan 2026 00:00:05 GMT', now)).toBe(5);
	});

	it('is undefined when absent or unreadable', () => {
		expect(parseRetryAfterSeconds(undefined)).toBeUndefined();
		expect(parseRetryAfterSeconds('soon')).toBeUndefined();
	});
});

describe('redaction', () => {
	it('removes the secret from texts and nested values', () => {
		expect(redact('key sk-12345 refused', ['sk-12345'])).toBe('key *** refused');
		expect(redactDeep({ a: ['x sk-12345'], b: { c: 'sk-12345' }, n: 1 }, ['sk-12345'])).toEqual({
			a: ['x ***'],
			b: { c: '***' },
			n: 1,
		});
	});
});
