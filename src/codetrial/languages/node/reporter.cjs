'use strict';
// jest's results, as one line of its stdout after a key that only jest's process knows: the
// plan hands it over in the environment, and it is gone from there before any spec runs, so no
// process the tests start inherits it. A report file could be written by anybody; this line
// cannot be (see tests.cjs).

const fs = require('fs');

const MESSAGE_CAP = 4000;

class KeyedReporter {
  constructor() {
    this.key = process.env.CODETRIAL_JEST_KEY || '';
    delete process.env.CODETRIAL_JEST_KEY;
  }

  onRunComplete(_contexts, results) {
    const testResults = results.testResults.map((file) => ({
      name: file.testFilePath,
      message: String(file.failureMessage || '').slice(-MESSAGE_CAP),
      assertionResults: file.testResults.map((t) => ({
        title: t.title, status: t.status,
        failureMessages: t.failureMessages.map((m) => String(m).slice(-MESSAGE_CAP)) })),
    }));
    fs.writeSync(1, `\n${this.key} ${JSON.stringify({ testResults })}\n`);
  }
}

module.exports = KeyedReporter;
