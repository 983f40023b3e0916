'use strict';
// jest's end: a solution module the spec imports is this file's `load` (the plan writes a stub
// at the module's path), and the spec's first line calls `hide`.
//
// `hide` removes the spec (jest has read it) and jest's cache from the disk before any code of
// the model's runs. `load` starts the subject (subject.cjs) once per spec file, over two FIFOs
// it then unlinks, with a clean environment and no descriptor of jest's but stdout and stderr,
// and hands the spec the subject's exports as copies and handles (wire.cjs). jest's process is
// not dumpable (the plan preloads undumpable.so), so the subject cannot read its memory or
// descriptors: the spec, `expect` and the keyed report (reporter.cjs) are out of its reach.

const fs = require('fs');
const path = require('path');
const { spawn, execFileSync } = require('child_process');
const { Connection } = require('./wire.cjs');

const HERE = __dirname;
const ROOT = path.dirname(HERE);
const SUBJECT = path.join(ROOT, '.subject');
const SUBJECT_FLAGS = ['--enable-source-maps', '--max-old-space-size=2048'];
const BABEL_CALLER = { name: 'babel-jest', supportsDynamicImport: false,
  supportsExportNamespaceFrom: false, supportsStaticESM: false, supportsTopLevelAwait: false };
// jest's own process (the spec's `process` is a copy), and through it the babel babel-jest uses
const realProcess = require('vm').runInThisContext('process');
let current = null;

function hide(spec) {
  if (spec) fs.rmSync(spec, { force: true });
  const cache = path.join(ROOT, '.jest-cache'); // --no-cache: it holds what it had transformed
  fs.rmSync(cache, { recursive: true, force: true });
  fs.mkdirSync(cache, { recursive: true }); // jest writes its timings there at the end
}

function fifo(name) { // in .subject/, the one directory the subject may write (confine.py)
  const file = path.join(SUBJECT, `.${name}-${process.pid}-${Date.now()}`);
  execFileSync('mkfifo', ['-m', '600', file]);
  return file;
}

// jest's end of the channel; it also compiles the model's files for the subject, as babel-jest
// compiles a spec's imports, with the exercise's babel config read before the subject starts
// (babel would read a config file again when it changes, and run it).
class TestsEnd extends Connection {
  constructor(readEnd, writeEnd) {
    super(readEnd, writeEnd, { guarded: true, peer: "the solution's process" });
    this.babel = realProcess.mainModule.require('@babel/core'); // babel-jest's own, loaded
    const partial = this.babel.loadPartialConfig({ filename: path.join(SUBJECT, 'index.js'),
      cwd: ROOT, root: ROOT, caller: BABEL_CALLER });
    this.options = { ...partial.options, babelrc: false, configFile: false,
      sourceMaps: 'inline' };
    this.subject = fs.realpathSync(SUBJECT) + path.sep;
  }

  perform(message) {
    return message.op === 'transform' ? this.transform(message.path) : super.perform(message);
  }

  transform(file) { // only files of .subject/
    const full = fs.realpathSync(String(file));
    if (!full.startsWith(this.subject)) throw new Error(`not a file of the solution: ${file}`);
    return this.babel.transformSync(fs.readFileSync(full, 'utf8'),
      { ...this.options, filename: full }).code;
  }
}

function start() {
  // Opened read-write first, so that no open blocks; then each end one way only, so that the
  // subject sees the end of its input when jest's process ends, and we see the end of ours
  // when the subject does.
  const [toSubject, fromSubject] = [fifo('in'), fifo('out')];
  const holds = [fs.openSync(toSubject, 'r+'), fs.openSync(fromSubject, 'r+')];
  const theirs = [fs.openSync(toSubject, 'r'), fs.openSync(fromSubject, 'w')];
  const [writeEnd, readEnd] = [fs.openSync(toSubject, 'w'), fs.openSync(fromSubject, 'r')];
  const env = { PATH: process.env.PATH || '/usr/bin:/bin', HOME: SUBJECT, TMPDIR: SUBJECT,
    LANG: 'C.UTF-8' };
  const config = { dir: SUBJECT };
  // not /tmp, where the exercise itself may lie; TMPDIR points into .subject/ instead
  const argv = [path.join(HERE, 'confine.py'), [SUBJECT, '/dev'].join(':'),
    process.execPath, ...SUBJECT_FLAGS, path.join(HERE, 'subject.cjs'), JSON.stringify(config)];
  const child = spawn('python3', ['-I', '-S', ...argv], { cwd: config.dir, env,
    stdio: ['ignore', 'inherit', 'inherit', ...theirs] });
  for (const fd of [...holds, ...theirs]) fs.closeSync(fd);
  fs.rmSync(toSubject);
  fs.rmSync(fromSubject);
  const conn = new TestsEnd(readEnd, writeEnd);
  conn.port.unref();
  conn.worker.unref();
  child.unref();
  const stop = () => {
    conn.close();
    try { fs.closeSync(writeEnd); } catch (_) { /* closed already */ }
    try { child.kill('SIGKILL'); } catch (_) { /* ended already */ }
  };
  conn.stop = stop;
  // jest ends with process.exit(), on its real process object (the spec's is a copy)
  realProcess.once('exit', () => conn.wake());
  try {
    globalThis.afterAll(stop);
  } catch (_) {
    // imported inside a test, where jest takes no hook: the reader thread, blocked on the
    // subject, would keep jest's process from exiting, so the test's own end must stop it
    setImmediate(stop);
  }
  return conn;
}

function load(file) {
  const state = globalThis.expect && globalThis.expect.getState ? globalThis.expect.getState() : {};
  hide(state.testPath);
  if (current === null || current.closed) current = start();
  try {
    return current.request({ op: 'load', path: file });
  } catch (error) {
    current.stop(); // the suite fails to run, and jest runs no afterAll hook then
    throw error;
  }
}

module.exports = { hide, load };
