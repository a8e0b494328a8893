import { isHttpsUrl, isLoopbackUrl, normaliseBaseUrl } from '../../../nodes/gateway/transport';

describe('base URL', () => {
	it('tolerates trailing slashes and spaces', () => {
		expect(normaliseBaseUrl(' https://gw.example.com/// ')).toBe('https://gw.example.com');
	});

	it('refuses what is not an http(s) address', () => {
		expect(normaliseBaseUrl('gw.example.com')).toBeUndefined();
		expect(normaliseBaseUrl('ftp://gw.example.com')).toBeUndefined();
		expect(normaliseBaseUrl(undefined)).toBeUndefined();
	});

	it('tells loopback and https addresses', () => {
		expect(isLoopbackUrl('http://127.0.0.1:8787')).toBe(true);
		expect(isLoopbackUrl('http://localhost:5678/webhook/x')).toBe(true);
		expect(isLoopbackUrl('http://[::1]:80')).toBe(true);
		expect(isLoopbackUrl('https://n8n.example.com')).toBe(false);
		expect(isHttpsUrl('https://n8n.example.com')).toBe(true);
		expect(isHttpsUrl('http://n8n.example.com')).toBe(false);
	});
});
