'use strict';
/**
 * Tiny stand-in for the sandbox gateway (test/sandbox/cli.ts), used only while that one is not in the tree.
 * It records requests, answers the gateway endpoints with plausible bodies, and has the same control API:
 * GET /__sandbox/requests, POST /__sandbox/reset, POST /__sandbox/fail, POST /__sandbox/deliver, GET /__sandbox/state.
 */
const http = require('node:http');
const crypto = require('node:crypto');

const port = Number(process.env.SANDBOX_PORT || 8181);
const apiKey = process.env.SANDBOX_API_KEY || 'sandbox-key';
const phoneId = process.env.SANDBOX_PHONE_ID || '100000000000001';

let requests = [];
let webhooks = [];
let failures = [];

function send(res, status, body) {
	res.writeHead(status, { 'content-type': 'application/json' });
	res.end(JSON.stringify(body));
}

http
	.createServer((req, res) => {
		const chunks = [];
		req.on('data', (c) => chunks.push(c));
		req.on('end', async () => {
			const raw = Buffer.concat(chunks);
			const url = new URL(req.url, `http://127.0.0.1:${port}`);
			const ctype = req.headers['content-type'] || '';
			let body = raw.toString('utf8');
			if (ctype.includes('json')) {
				try {
					body = JSON.parse(body);
				} catch {
					/* keep text */
				}
			}
			if (url.pathname.startsWith('/__sandbox/')) {
				const what = url.pathname.slice('/__sandbox/'.length);
				if (what === 'requests') return send(res, 200, requests);
				if (what === 'state') return send(res, 200, { webhooks, failures });
				if (what === 'reset') {
					requests = [];
					webhooks = [];
					failures = [];
					return send(res, 200, { ok: true });
				}
				if (what === 'fail') {
					failures.push(body);
					return send(res, 200, { ok: true });
				}
				if (what === 'deliver') {
					const results = [];
					for (const wh of webhooks) {
						const headers = { 'content-type': 'application/json', ...(body.omitHeaders ? {} : wh.headers) };
						const r = await fetch(wh.endpoint, { method: 'POST', headers, body: JSON.stringify(body.notification) }).catch((e) => ({ status: 0, statusText: e.message }));
						results.push({ webhookId: wh.id, endpoint: wh.endpoint, status: r.status });
					}
					return send(res, 200, { deliveries: results });
				}
				return send(res, 404, { error: 'unknown control path' });
			}
			requests.push({ method: req.method, path: url.pathname, query: Object.fromEntries(url.searchParams), headers: req.headers, body });
			const key = req.headers.apikey;
			if (key !== apiKey) return send(res, 401, { message: 'Invalid API key' });
			const fail = failures.shift();
			if (fail) return send(res, fail.status || 500, fail.body || { message: 'Injected failure' });
			const now = new Date().toISOString();
			if (url.pathname === '/api/Messages' && req.method === 'POST') {
				if (body.status === 'read') return send(res, 200, { success: true });
				return send(res, 200, { messaging_product: 'whatsapp', contacts: [{ input: body.to, wa_id: body.to }], messages: [{ id: `wamid.${crypto.randomUUID()}` }] });
			}
			if (url.pathname.replace(/\/$/, '') === '/api/Webhooks' && req.method === 'POST') {
				const wh = { id: crypto.randomUUID(), phone: phoneId, phone_id: phoneId, meta_version: body.meta_version || 'LATEST', types: body.types, endpoint: body.endpoint, headers: body.headers || {}, create_date: now, update_date: now };
				webhooks.push(wh);
				return send(res, 201, { success: true, ...wh });
			}
			if (url.pathname === '/api/Webhooks' && req.method === 'GET') return send(res, 200, { success: true, webhooks });
			const del = url.pathname.match(/^\/api\/Webhooks\/(.+)$/);
			if (del && req.method === 'DELETE') {
				webhooks = webhooks.filter((w) => w.id !== del[1]);
				return send(res, 200, { success: true });
			}
			if (url.pathname === '/api/Profiles') return send(res, 200, { data: [{ messaging_product: 'whatsapp', about: 'Sandbox', vertical: 'OTHER' }] });
			if (url.pathname === '/api/Medias/' || url.pathname === '/api/Medias') return send(res, 200, { id: '1234567890' });
			if (url.pathname === '/api/Templates' && req.method === 'POST') return send(res, 201, { id: 'tpl-1', status: 'APPROVED', category: body.category });
			if (url.pathname.startsWith('/api/Templates/') && req.method === 'GET') return send(res, 200, { id: 'tpl-1', name: 'x', status: 'APPROVED' });
			if (url.pathname.startsWith('/api/Templates/') && req.method === 'PUT') return send(res, 200, { success: true });
			if (url.pathname === '/DataInserterProfiles/api/profile') {
				const fileId = crypto.randomUUID();
				return send(res, 200, { success: true, response: { status: true, message: `saved ${fileId}`, nameFile: `Profile-${fileId}.json`, path: `c/${fileId}`, fileId } });
			}
			return send(res, 404, { message: 'Not found' });
		});
	})
	.listen(port, '127.0.0.1', () => console.log(`stand-in sandbox on http://127.0.0.1:${port}`));
