'use strict';
/**
 * The example workflows of examples/ as `npm start` sets them up: all imported, two published. The end-to-end suite
 * uses the same list, so that it checks what a new user gets.
 */
const path = require('node:path');
const { REPO_ROOT } = require('./util');
const n8n = require('./n8n');

/**
 * Published: the auto-reply bot, so that a delivered test message runs it, and the delivery report's one status
 * workflow, so that statuses (when the sandbox sends them) update the data table. One status consumer: each published
 * trigger gets every status of every message, and each status it keeps is an execution (docs/trigger.md, What status
 * executions cost); the example keeps failed ones only.
 */
const PUBLISHED_EXAMPLE = /auto-reply|delivery report, statuses/i;

function readExamples() {
	return n8n.readWorkflowFiles(path.join(REPO_ROOT, 'examples'));
}

/** The imported examples that are published, by name. */
function examplesToPublish(imported) {
	return imported.filter((wf) => PUBLISHED_EXAMPLE.test(wf.name || ''));
}

/** Imports every example and publishes the two (n8n must be stopped: publish:workflow changes the database). */
async function importAndPublish(inst) {
	const imported = await n8n.importWorkflows(inst, readExamples());
	const published = examplesToPublish(imported);
	for (const wf of published) await n8n.cli(inst, ['publish:workflow', `--id=${wf.id}`]);
	return { imported, published };
}

module.exports = { PUBLISHED_EXAMPLE, readExamples, examplesToPublish, importAndPublish };
