'use strict';
/**
 * The steps that `npm start` and the end-to-end suite share: runtime, package, user folder, gateway, credential.
 */
const fs = require('node:fs');
const net = require('node:net');
const path = require('node:path');
const { REPO_ROOT, log, cacheDir, freePort } = require('./util');
const { ensureRuntime } = require('./install');
const { buildAndPack, installIntoN8n } = require('./package');
const { startSandbox } = require('./sandbox');
const n8n = require('./n8n');

/** `preferred` when nothing listens there, else any free port. */
async function portOr(preferred) {
	if (!preferred) return freePort();
	const free = await new Promise((resolve) => {
		const srv = net.createServer();
		srv.once('error', () => resolve(false));
		srv.listen(preferred, '127.0.0.1', () => srv.close(() => resolve(true)));
	});
	return free ? preferred : freePort();
}

/** The real gateway when GATEWAY_BASE_URL, GATEWAY_API_KEY and GATEWAY_PHONE_ID are all set. */
function realGatewayFromEnv() {
	const { GATEWAY_BASE_URL, GATEWAY_API_KEY, GATEWAY_PHONE_ID } = process.env;
	if (GATEWAY_BASE_URL && GATEWAY_API_KEY && GATEWAY_PHONE_ID) {
		return { baseUrl: GATEWAY_BASE_URL, apiKey: GATEWAY_API_KEY, phoneId: GATEWAY_PHONE_ID };
	}
	const some = [GATEWAY_BASE_URL, GATEWAY_API_KEY, GATEWAY_PHONE_ID].some(Boolean);
	if (some) log('Some GATEWAY_* variables are set but not all three; using the sandbox instead.');
	return null;
}

/**
 * Install/reuse n8n, build + pack + install this package into `userFolder`, start the sandbox unless a real
 * gateway is given, and import the credential. Returns everything needed to go on.
 */
async function prepare({ userFolder, logDir, n8nPort, sandboxPort, gateway = null, skipBuild = false, webhookUrl, sandboxStatuses = false }) {
	const runtime = await ensureRuntime();
	const packDir = path.join(cacheDir(), 'packs');
	const tarball = skipBuild && process.env.MG_TARBALL ? process.env.MG_TARBALL : await buildAndPack(packDir);
	await installIntoN8n(tarball, userFolder);

	let sandbox = null;
	let credential;
	if (gateway) {
		credential = gateway;
	} else {
		sandbox = await startSandbox({ port: await portOr(sandboxPort), logDir, node: runtime.node24.node, statuses: sandboxStatuses });
		credential = { apiKey: sandbox.apiKey, phoneId: sandbox.phoneId, baseUrl: sandbox.url };
	}
	const port = await portOr(n8nPort);
	const brokerPort = await freePort();
	const inst = n8n.createInstance({ runtime, userFolder, port, brokerPort, logDir, webhookUrl });
	const t0 = Date.now();
	await n8n.importCredential(inst, credential);
	log(`Imported the credential "${n8n.CREDENTIAL_NAME}" (${gateway ? gateway.baseUrl : 'sandbox'}) in ${Math.round((Date.now() - t0) / 1000)} s`);
	return { runtime, tarball, sandbox, credential, inst };
}

function ensureDir(dir) {
	fs.mkdirSync(dir, { recursive: true });
	return dir;
}

module.exports = { prepare, portOr, realGatewayFromEnv, ensureDir, REPO_ROOT };
