'use strict';
// Frames between two node processes (jest's and the subject's, see wire.cjs): 4-byte lengths
// and JSON, over two FIFOs. A worker thread reads the incoming FIFO and queues each frame, so
// this thread can take the next one either blocking (a call waits for its reply, and serves
// calls from the other side meanwhile: callbacks nest) or from the event loop (a callback fired
// by a timer, a promise that settles later). What a frame means is the subclass's: `perform`
// a request, `settle` a promise, `encode` and `decode` values.

const fs = require('fs');
const { Worker, MessageChannel, receiveMessageOnPort } = require('worker_threads');

const SPINS = 2000; // polls of the queue before a waiting thread sleeps: a reply often comes sooner

// A thread blocked in read() keeps process.exit() from returning, so each end wakes its reader
// at exit with an empty frame (`wake`), its signal to stop.
const READER = `
const { workerData } = require('worker_threads');
const fs = require('fs');
const { fd, flag, port } = workerData;
function fill(buf) {
  for (let at = 0; at < buf.length;) {
    let n;
    try { n = fs.readSync(fd, buf, at, buf.length - at, null); } catch (e) {
      if (e.code === 'EAGAIN' || e.code === 'EINTR') continue;
      return false;
    }
    if (n === 0) return false;
    at += n;
  }
  return true;
}
const head = Buffer.alloc(4);
while (fill(head) && head.readUInt32BE(0) > 0) {
  const body = Buffer.alloc(head.readUInt32BE(0));
  if (!fill(body)) break;
  port.postMessage(body.toString('utf8'));
  Atomics.add(flag, 0, 1);
  Atomics.notify(flag, 0);
}
port.postMessage(null);
Atomics.add(flag, 0, 1);
Atomics.notify(flag, 0);
`;

class Gone extends Error {}

class Channel {
  constructor(inFd, outFd, { peer, linger }) {
    this.inFd = inFd;
    this.outFd = outFd;
    this.peer = peer; // how messages name the other side
    this.linger = linger; // ms to wait for the next call of a burst before the event loop
    this.calls = 1;
    this.closed = false;
    this.flag = new Int32Array(new SharedArrayBuffer(4));
    this.taken = 0;
    const { port1, port2 } = new MessageChannel();
    this.port = port1;
    this.worker = new Worker(READER, { eval: true, workerData: { fd: inFd, flag: this.flag,
      port: port2 }, transferList: [port2] });
    this.port.on('message', (text) => { this.taken++; this.dispatch(text); });
  }

  send(message) {
    const body = Buffer.from(JSON.stringify(message), 'utf8');
    const head = Buffer.alloc(4);
    head.writeUInt32BE(body.length, 0);
    const frame = Buffer.concat([head, body]);
    for (let at = 0; at < frame.length;) at += fs.writeSync(this.outFd, frame, at);
  }

  receive(ms = Infinity) {
    const until = Date.now() + ms;
    for (let spin = 0; ; spin++) {
      const got = receiveMessageOnPort(this.port);
      if (got) { this.taken++; return got.message; }
      if (spin < SPINS && Atomics.load(this.flag, 0) === this.taken) continue;
      const left = Math.min(until - Date.now(), 1000);
      if (left <= 0) return undefined;
      Atomics.wait(this.flag, 0, this.taken, left);
    }
  }

  request(message) {
    if (this.closed) throw new Gone(`${this.peer} has ended`);
    const id = this.calls++;
    try {
      this.send({ ...message, id });
    } catch (e) {
      this.closed = true;
      throw new Gone(`${this.peer} has ended`);
    }
    for (;;) {
      const text = this.receive();
      if (text === null) {
        this.closed = true;
        throw new Gone(`${this.peer} ended before it answered`);
      }
      const reply = JSON.parse(text);
      if (reply.re === id) {
        if (reply.ok) return this.decode(reply.value);
        throw this.decode(reply.value);
      }
      this.answer(reply);
    }
  }

  // From the event loop. Calls come in bursts (a test calling the model's code in a loop):
  // the next one is taken here if it comes within `linger` ms, not through the event loop.
  dispatch(text) {
    for (let next = text; next !== undefined; next = this.receive(this.linger)) {
      if (next === null) { this.closed = true; this.onEnd(); return; }
      this.answer(JSON.parse(next));
    }
  }

  onEnd() {}

  answer(message) {
    if (message.settle !== undefined) return this.settle(message);
    if (message.id === undefined) return undefined;
    let reply;
    try {
      reply = { re: message.id, ok: true, value: this.encode(this.perform(message)) };
    } catch (e) {
      reply = { re: message.id, ok: false, value: this.encode(e) };
    }
    try { this.send(reply); } catch (e) { this.closed = true; }
    return undefined;
  }

  close() {
    this.closed = true;
    this.port.close();
    this.worker.unref();
  }

  wake() {
    try {
      const fd = fs.openSync(`/proc/self/fd/${this.inFd}`, fs.constants.O_WRONLY
        | fs.constants.O_NONBLOCK);
      fs.writeSync(fd, Buffer.alloc(4));
      fs.closeSync(fd);
    } catch (_) { /* the reader has stopped already */ }
  }
}

module.exports = { Channel, Gone };
