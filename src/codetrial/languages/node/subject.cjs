'use strict';
// The subject: a node process of its own where the model's modules run, started by jest's
// process (tests.cjs) with a clean environment, in a directory that holds the exercise's files
// but no test. It loads a module when the tests import it and answers requests about the
// objects it handed out until jest's end closes the channel.
//
// The model's files are compiled as jest would compile them: jest's process runs them through
// babel with the exercise's config (the same babel and config babel-jest uses) and sends the
// result, so ES modules, extensionless imports and `require` beside `import` behave as in a
// plain jest run.

const fs = require('fs');
const Module = require('module');
const path = require('path');
const { Connection } = require('./wire.cjs');

const config = JSON.parse(process.argv[2]);

class Served extends Connection {
  load(file) {
    const exports = require(path.resolve(config.dir, file));
    if (exports === null || typeof exports !== 'object') return exports;
    const proto = Object.getPrototypeOf(exports);
    if (proto !== null && proto !== Object.prototype) return exports;
    const copy = exports.__esModule ? { __esModule: true } : {};
    for (const key of Object.keys(exports)) copy[key] = exports[key];
    return copy;
  }

  onEnd() {
    process.exit(0);
  }
}

process.chdir(config.dir);
const served = new Served(3, 4, { guarded: false, peer: "the tests' process" });
process.once('exit', () => served.wake()); // see wire.cjs's READER

const here = fs.realpathSync(config.dir);
const compileAsIs = Module._extensions['.js'];
Module._extensions['.js'] = function compile(module, filename) {
  const ours = filename.startsWith(here + path.sep)
    && !filename.split(path.sep).includes('node_modules');
  if (!ours) return compileAsIs(module, filename);
  return module._compile(served.request({ op: 'transform', path: filename }), filename);
};
