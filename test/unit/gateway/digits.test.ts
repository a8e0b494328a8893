import { asciiDigitsOf, MAX_GATHERED_DIGITS } from '../../../nodes/gateway/digits';

describe('asciiDigitsOf', () => {
	it('gives what a replace of every non-digit gives, for each count of digits it builds its own way and beyond', () => {
		const inputs = [
			'',
			'+',
			'5511988887777',
			'+55 (11) 98888-7777',
			'55 11 98888-7777 ', // a leading run of digits, then marks
			'529.982.247-25',
			'+55\u00a011\u00a0٩٨٨٨٨-7777', // Arabic-Indic digits are not ASCII digits: dropped, as \D drops them
			'abc',
		];
		const counts = [1, 2, 9, 10, 11, 12, 13, 14, 15, MAX_GATHERED_DIGITS - 1, MAX_GATHERED_DIGITS, MAX_GATHERED_DIGITS + 1, 3 * MAX_GATHERED_DIGITS];
		for (const count of counts) {
			const digits = Array.from({ length: count }, (_, i) => String((i * 7) % 10)).join('');
			inputs.push(digits, `+${digits}`, digits.replace(/(\d{3})/g, '$1 '), `(${digits.slice(0, 2)}) ${digits.slice(2)}`);
		}
		for (const input of inputs) expect([input, asciiDigitsOf(input)]).toEqual([input, input.replace(/\D/g, '')]);
	});
});
