// Suites run in band in jest's default order, except the password leak check,
// which runs last: it looks for every password the earlier suites were issued.
const Sequencer = require('@jest/test-sequencer').default;

const LAST = /secrets-leak\.e2e-spec\.ts$/;

class LeakCheckLastSequencer extends Sequencer {
  sort(tests) {
    const sorted = super.sort(tests);
    return [...sorted.filter((t) => !LAST.test(t.path)), ...sorted.filter((t) => LAST.test(t.path))];
  }
}

module.exports = LeakCheckLastSequencer;
