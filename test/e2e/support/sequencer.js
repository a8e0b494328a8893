/** Runs e2e files in a fixed order: by the number prefix of their names (01-..., 02-...). */
const Sequencer = require('@jest/test-sequencer').default;

class ByName extends Sequencer {
	sort(tests) {
		return [...tests].sort((a, b) => a.path.localeCompare(b.path));
	}
}

module.exports = ByName;
