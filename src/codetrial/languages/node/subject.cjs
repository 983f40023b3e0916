'use strict';
// The subject: a node process of its own where the model's modules run, started by jest's
// process (tests.cjs) with a clean environment, in a directory that holds the exercise's files
// but no test. It loads a module when the tests import it and answers requests about the
// objects it handed out until jest's end closes the channel.
//
// node runs with --experimental-require-module and --experimental-detect-module, so `require`
// loads an ES module as babel's transform would present it to the tests (`__esModule` and its
// exports) and a CommonJS one as its `module.exports`.

const path = require('path');
const { Connection } = require('./wire.cjs');

const config = JSON.parse(process.argv[2]);

class Served extends Connection {
  load(file) {
    const exports = require(path.resolve(config.dir, file));
    if (exports === null || typeof exports !== 'object') return exports;
    const copy = Object.getPrototypeOf(exports) === null ? {} : exports;
    if (copy !== exports) {
      for (const key of Object.keys(exports)) copy[key] = exports[key];
    }
    return copy;
  }

  onEnd() {
    process.exit(0);
  }
}

process.chdir(config.dir);
// babel's transform lets an ES module use CommonJS's names; node's own ES modules find them here
const { createRequire } = require('module');
globalThis.require = createRequire(path.join(config.dir, 'index.js'));
globalThis.__dirname = config.dir;
globalThis.__filename = path.join(config.dir, 'index.js');
new Served(3, 4, { guarded: false, peer: "the tests' process" });
