import { normaliseBaseUrl } from '../../../nodes/gateway/transport';
import { isDeliverable } from '../../../nodes/MessagingGatewayTrigger/registration';

describe('base URL', () => {
	it('tolerates trailing slashes and spaces', () => {
		expect(normaliseBaseUrl(' https://gw.example.com/// ')).toBe('https://gw.example.com');
	});

	it('refuses what is not an http(s) address', () => {
		expect(normaliseBaseUrl('gw.example.com')).toBeUndefined();
		expect(normaliseBaseUrl('ftp://gw.example.com')).toBeUndefined();
		expect(normaliseBaseUrl(undefined)).toBeUndefined();
	});

	it('the gateway delivers to an https webhook URL, or to any when the gateway runs on a loopback host', () => {
		expect(isDeliverable('https://n8n.example.com/webhook/x', 'https://gw.example.com')).toBe(true);
		expect(isDeliverable('http://n8n.example.com/webhook/x', 'https://gw.example.com')).toBe(false);
		expect(isDeliverable('http://localhost:5678/webhook/x', 'https://gw.example.com')).toBe(false);
		for (const local of ['http://127.0.0.1:8787', 'http://localhost:8787', 'http://[::1]:80']) {
			expect(isDeliverable('http://localhost:5678/webhook/x', local)).toBe(true);
		}
		expect(isDeliverable('https://n8n.example.com/webhook/x', 'not a url')).toBe(true);
		expect(isDeliverable('http://n8n.example.com/webhook/x', 'not a url')).toBe(false);
	});
});
