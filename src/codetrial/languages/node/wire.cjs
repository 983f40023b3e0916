'use strict';
// Objects of one node process used from another: jest's process (the tests) and the subject
// (the model's code). Both ends load this file; jest's end is `guarded`.
//
// The frames travel on a Channel (channel.cjs).
//
// Plain values cross as copies: primitives (undefined, NaN, -0, BigInt included), arrays,
// plain objects, Map, Set, Date, RegExp, typed arrays. Errors cross as errors of the same
// built-in class or of a mirror of the sender's class; promises as promises that settle when
// the sender's do. Everything else (functions, classes, instances) crosses as a handle: a Proxy
// whose traps ask the owner. Well-known prototypes and constructors map to the receiver's own,
// so `instanceof Error`, `toBeInstanceOf(Promise)` and `instanceof` a model's class hold.
//
// Guarded (jest's end): nothing received is ever run here; the other end may call the tests'
// functions and read or write their objects' own plain properties, but never reach a
// prototype, a constructor or a property of a function (a jest.fn's `mock`, say). A handle's
// hooks that jest's matchers consult (asymmetricMatch, $$typeof, ...) are withheld, so no
// object of the model's can declare itself equal to an expected value.

const { Channel, Gone } = require('./channel.cjs');

const MAX_DEPTH = 200;
const WITHHELD = new Set(['asymmetricMatch', '$$typeof', 'nodeType', 'nodeName', 'isEqualNode',
  'toAsymmetricMatcher', '_isMockFunction', 'getMockName', 'mock', 'then']);
const UNREACHABLE = new Set(['constructor', 'prototype', 'caller', 'callee', 'arguments']);
const SYMBOLS = ['iterator', 'asyncIterator', 'toPrimitive', 'toStringTag'];
const ERRORS = ['Error', 'TypeError', 'RangeError', 'SyntaxError', 'ReferenceError',
  'EvalError', 'URIError', 'AggregateError'];
const CONSTRUCTORS = [...ERRORS, 'Object', 'Function', 'Array', 'Promise', 'Map', 'Set', 'Date',
  'RegExp', 'Number', 'String', 'Boolean', 'Symbol', 'BigInt', 'WeakMap', 'WeakSet'];
const TYPED = ['Int8Array', 'Uint8Array', 'Uint8ClampedArray', 'Int16Array', 'Uint16Array',
  'Int32Array', 'Uint32Array', 'Float32Array', 'Float64Array', 'BigInt64Array',
  'BigUint64Array'];

function intrinsics() {
  const byName = new Map();
  for (const name of CONSTRUCTORS) {
    const ctor = globalThis[name];
    if (typeof ctor !== 'function') continue;
    byName.set(name, ctor);
    if (ctor.prototype) byName.set(name + '.prototype', ctor.prototype);
  }
  byName.set('Function.prototype', Function.prototype);
  const byValue = new Map([...byName].map(([name, value]) => [value, name]));
  return { byName, byValue };
}

// An own data property, whatever its name: a copy's "__proto__" key never sets its prototype.
function own(object, key, value) {
  Object.defineProperty(object, key, { value, writable: true, enumerable: true,
    configurable: true });
}

class Connection extends Channel {
  constructor(inFd, outFd, { guarded, peer }) {
    super(inFd, outFd, { peer, linger: guarded ? 0 : 1 });
    this.guarded = guarded;
    this.own = new Map(); // id -> our object the other side holds a handle of
    this.ids = new Map(); // our object -> id
    this.handles = new Map(); // their id -> our proxy of it
    this.remote = new WeakMap(); // our proxy -> their id
    this.pending = new Map(); // their promise id -> {resolve, reject}
    this.next = 1;
    this.intrinsic = intrinsics();
  }

  settle({ settle, ok, value }) {
    const waiting = this.pending.get(settle);
    if (!waiting) return;
    this.pending.delete(settle);
    (ok ? waiting.resolve : waiting.reject)(this.decode(value));
  }

  // -------------------------------------------------------------- serving the other side
  perform(m) {
    const target = this.own.get(m.t);
    if (target === undefined && m.op !== 'load') throw new Error('no such object');
    const key = m.k === undefined ? undefined : this.key(m.k);
    if (this.guarded) this.check(m.op, target, key);
    switch (m.op) {
      case 'call': return Reflect.apply(target, this.decode(m.self), this.decode(m.args));
      case 'new': return Reflect.construct(target, this.decode(m.args));
      case 'get': return this.guarded ? this.plainGet(target, key) : target[key];
      case 'set': target[key] = this.decode(m.v); return true;
      case 'has': return key in target;
      case 'delete': return delete target[key];
      case 'keys': return this.guarded ? Object.keys(target) : Reflect.ownKeys(target)
        .filter((k) => typeof k === 'string');
      case 'desc': return this.describe(target, key);
      case 'proto': return this.guarded ? null : Object.getPrototypeOf(target);
      case 'load': return this.load(m.path);
      default: throw new Error(`unknown request ${m.op}`);
    }
  }

  load() { throw new Error('nothing to load here'); }

  check(op, target, key) {
    const isFunction = typeof target === 'function';
    if (isFunction && !['call', 'new', 'keys', 'desc', 'has', 'proto'].includes(op)) {
      throw new TypeError('the tests\' functions may only be called');
    }
    if (typeof key === 'string' && (UNREACHABLE.has(key) || key.startsWith('__'))) {
      throw new TypeError(`the tests' objects do not give out ${key}`);
    }
  }

  plainGet(target, key) {
    for (let o = target; o !== null && o !== Object.prototype; o = Object.getPrototypeOf(o)) {
      const d = Object.getOwnPropertyDescriptor(o, key);
      if (d) return 'value' in d ? d.value : undefined;
    }
    return undefined;
  }

  describe(target, key) {
    if (this.guarded && typeof target === 'function') return undefined;
    const d = Object.getOwnPropertyDescriptor(target, key);
    if (!d) return undefined;
    return { value: 'value' in d ? d.value : target[key], writable: d.writable !== false,
      enumerable: d.enumerable };
  }

  key(k) {
    return typeof k === 'string' ? k : Symbol[k.y];
  }

  // -------------------------------------------------------------- encoding
  encode(v, depth = 0) {
    if (v === null || typeof v === 'boolean' || typeof v === 'string') return v;
    if (v === undefined) return { u: 0 };
    if (typeof v === 'number') {
      return Number.isFinite(v) && !Object.is(v, -0) ? v : { f: Object.is(v, -0) ? '-0' : String(v) };
    }
    if (typeof v === 'bigint') return { b: v.toString() };
    if (typeof v === 'symbol') return { ys: v.description ?? '' };
    if (this.remote.has(v)) return { r: this.remote.get(v) };
    if (this.intrinsic.byValue.has(v)) return { i: this.intrinsic.byValue.get(v) };
    if (typeof v === 'function') return { h: this.register(v), k: 'f' };
    if (depth > MAX_DEPTH) return { h: this.register(v), k: 'o' };
    // a class's prototype is an object like any other: the handle that `instanceof` walks to
    if (Object.prototype.hasOwnProperty.call(v, 'constructor')) return { h: this.register(v), k: 'o' };
    const d = depth + 1;
    const tag = Object.prototype.toString.call(v);
    if (Array.isArray(v)) return { a: Array.from(v, (x) => this.encode(x, d)) };
    if (tag === '[object Error]' || v instanceof Error) return { e: this.encodeError(v, d) };
    if (tag === '[object Promise]' && typeof v.then === 'function') return { p: this.promise(v) };
    if (tag === '[object Date]') return { d: v.getTime() };
    if (tag === '[object RegExp]') return { x: [v.source, v.flags] };
    if (tag === '[object Map]') return { m: [...v].map(([k, x]) => [this.encode(k, d), this.encode(x, d)]) };
    if (tag === '[object Set]') return { s: [...v].map((x) => this.encode(x, d)) };
    if (ArrayBuffer.isView(v) && TYPED.includes(v.constructor && v.constructor.name)) {
      return { t: v.constructor.name, v: Array.from(v, (x) => this.encode(x, d)) };
    }
    const proto = Object.getPrototypeOf(v);
    if (proto === null || proto === Object.prototype) {
      return { o: Object.keys(v).map((k) => [k, this.encode(v[k], d)]),
        n: proto === null ? 1 : 0 };
    }
    return { h: this.register(v), k: 'o' };
  }

  encodeError(e, depth) {
    const props = Object.keys(e).filter((k) => k !== 'message' && k !== 'stack')
      .map((k) => [k, this.encode(e[k], depth)]);
    return { c: this.encode(e.constructor, depth), name: String(e.name),
      message: String(e.message), stack: String(e.stack), props };
  }

  register(v) {
    if (this.ids.has(v)) return this.ids.get(v);
    const id = this.next++;
    this.ids.set(v, id);
    this.own.set(id, v);
    return id;
  }

  promise(p) {
    const id = this.register(p);
    const settle = (ok) => (value) => {
      if (this.closed) return;
      let encoded;
      try { encoded = this.encode(value); } catch (e) { encoded = this.encode(e); ok = false; }
      try { this.send({ settle: id, ok, value: encoded }); } catch (e) { this.closed = true; }
    };
    p.then(settle(true), settle(false));
    return id;
  }

  // -------------------------------------------------------------- decoding
  decode(v) {
    if (v === null || typeof v !== 'object') return v;
    if ('u' in v) return undefined;
    if ('f' in v) return v.f === '-0' ? -0 : Number(v.f);
    if ('b' in v) return BigInt(v.b);
    if ('ys' in v) return Symbol(v.ys);
    if ('a' in v) return v.a.map((x) => this.decode(x));
    if ('o' in v) {
      const out = v.n ? Object.create(null) : {};
      for (const [k, x] of v.o) {
        const value = this.decode(x);
        own(out, k, this.guarded && WITHHELD.has(k) && typeof value === 'function'
          ? `[${k}: withheld by codetrial]` : value);
      }
      return out;
    }
    if ('r' in v) return this.own.get(v.r);
    if ('i' in v) return this.intrinsic.byName.get(v.i);
    if ('h' in v) return this.handle(v.h, v.k);
    if ('e' in v) return this.decodeError(v.e);
    if ('p' in v) return this.decodePromise(v.p);
    if ('d' in v) return new Date(v.d);
    if ('x' in v) return new RegExp(v.x[0], v.x[1]);
    if ('m' in v) return new Map(v.m.map(([k, x]) => [this.decode(k), this.decode(x)]));
    if ('s' in v) return new Set(v.s.map((x) => this.decode(x)));
    if ('t' in v && TYPED.includes(v.t)) return globalThis[v.t].from(v.v.map((x) => this.decode(x)));
    throw new Error('unreadable value');
  }

  decodeError(e) {
    const cls = this.decode(e.c);
    const builtin = ERRORS.includes(e.name) && cls === globalThis[e.name];
    const error = builtin ? new cls(e.message) : new Error(e.message);
    if (!builtin && typeof cls === 'function') {
      try {
        const proto = cls.prototype;
        if (proto && typeof proto === 'object') Object.setPrototypeOf(error, proto);
      } catch (_) { /* a class of the tests' own, whose prototype is not given out */ }
    }
    if (error.name !== e.name) {
      Object.defineProperty(error, 'name', { value: e.name, writable: true, configurable: true });
    }
    error.stack = e.stack;
    for (const [k, x] of e.props) own(error, k, this.decode(x));
    return error;
  }

  decodePromise(id) {
    if (this.handles.has(id)) return this.handles.get(id);
    const p = new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
    p.catch(() => {}); // a rejection nobody awaits is the sender's affair, not ours
    this.handles.set(id, p);
    this.remote.set(p, id);
    return p;
  }

  handle(id, kind) {
    if (this.handles.has(id)) return this.handles.get(id);
    const target = kind === 'f' ? function () {}.bind(null) : {};
    const proxy = new Proxy(target, this.traps(id));
    this.handles.set(id, proxy);
    this.remote.set(proxy, id);
    return proxy;
  }

  traps(t) {
    const ask = (op, extra) => this.request({ op, t, ...extra });
    const wire = (key) => (typeof key === 'string' ? key : { y: SYMBOLS.find((n) => Symbol[n] === key) });
    const known = (key) => typeof key === 'string' || SYMBOLS.some((n) => Symbol[n] === key);
    return {
      get: (_, key) => {
        if (!known(key)) return undefined;
        const value = ask('get', { k: wire(key) });
        return this.guarded && WITHHELD.has(key) && typeof value === 'function'
          ? undefined : value;
      },
      set: (_, key, value) => known(key) && ask('set', { k: wire(key), v: this.encode(value) }),
      has: (_, key) => known(key) && ask('has', { k: wire(key) }),
      deleteProperty: (_, key) => known(key) && ask('delete', { k: wire(key) }),
      ownKeys: () => ask('keys'),
      getOwnPropertyDescriptor: (_, key) => {
        if (!known(key)) return undefined;
        const d = ask('desc', { k: wire(key) });
        return d ? { ...d, configurable: true } : undefined;
      },
      defineProperty: (_, key, d) => known(key) && 'value' in d
        && ask('set', { k: wire(key), v: this.encode(d.value) }),
      getPrototypeOf: () => ask('proto'),
      setPrototypeOf: () => false,
      preventExtensions: () => false,
      isExtensible: () => true,
      apply: (_, self, args) => ask('call', { self: this.encode(self), args: this.encode(args) }),
      construct: (_, args) => ask('new', { args: this.encode(args) }),
    };
  }
}

module.exports = { Connection, Gone };
