"""The guard of a test process: the audit hook that alone can sign test records, and the checks
it makes before it signs a pass.

Standalone (stdlib and `codetrial_judge`): every sandbox worker preloads it as `codetrial_guard`;
`codetrial_unittest` installs it in its test process before the model's code is imported.

- The key that signs records lives only in the hook's closure: the interpreter keeps audit hooks
  where no Python object refers to them.
- The hook signs a record only when every frame on the stack is trusted code (this module,
  codetrial_unittest, unittest, contextlib, the sandbox worker and the pristine tests).
- Before it signs, it compares builtins, the unittest and contextlib modules and their classes,
  these modules and the test classes with a snapshot taken before the model's code was imported,
  using no builtin and no global (they may have been replaced), and checks that the test instance
  and the method that ran are the test file's own. It makes the same comparison before each
  assertion of the test files (a "check" event, which any code may raise) and raises an alarm on
  a change.
- Before each assertion it also checks the test instance: its class, its own attributes, its
  type equality functions; and every snapshotted class's bases. The snapshot also covers the
  modules assertions call into (difflib, pprint, re, ...; of os, fspath), not trusting their code.
- Nothing in the hook may run the model's code (it could walk up to our frames and sign): a
  namespace key that is not a plain str (its hash or == would be the model's) is an alarm, found
  by iterating before any lookup; garbage collection (finalizers, gc callbacks) is off and every
  signal blocked while the hook runs. Left open: a signal delivered in the microseconds between
  the event and the hook's first instruction runs its handler there (a race, seen in no try).
- What setUpClass stores on its class (new names holding data, not functions) joins the
  snapshot when setUpClass returns.
- It refuses ctypes, gc object walks, trace and profile functions, another audit hook (it would
  run after this one's checks), changes to the code of a function the tests rely on, and opening
  /proc/*/mem, and reports each refusal.
- Known false alarm: a test that patches builtins (say `input`) while it asserts.
"""

from __future__ import annotations

import gc
import hashlib
import os
import signal
import struct
import sys
import types
import unittest
import unittest.case

import codetrial_judge as judge

INTEGRITY = "codetrial.integrity"
_SEQ = struct.Struct(">I")
_MAC_SIZE = 16
# Attributes TestCase.__init__ and run() set on an instance, or that tests commonly set.
_INSTANCE_STATE = frozenset({
    "_testMethodName", "_outcome", "_testMethodDoc", "_cleanups", "_subtest",
    "_type_equality_funcs", "maxDiff", "longMessage",
})


_WATCHED = frozenset({
    "codetrial.record", "codetrial.loaded", "codetrial.done", "ctypes.dlopen", "ctypes.dlsym",
    "ctypes.dlsym/handle", "ctypes.call_function", "ctypes.cdata", "ctypes.cdata/buffer",
    "ctypes.addressof", "ctypes.string_at", "ctypes.wstring_at", "gc.get_objects",
    "gc.get_referrers", "gc.get_referents", "sys.settrace", "sys.setprofile",
    "sys._current_frames", "sys._current_exceptions", "object.__setattr__",
    "object.__delattr__", "open", "sys.addaudithook",
})
# Class attributes unittest itself sets on test classes while it runs them.
_SET_BY_UNITTEST = frozenset({"_classSetupFailed", "tearDown_exceptions", "_class_cleanups"})
_FUNCTION_INTERNALS = frozenset({"__code__", "__defaults__", "__kwdefaults__", "__globals__",
                                 "__closure__"})
_RECORD_KINDS = frozenset({"completed", "failed", "error", "skipped", "load-error"})
_WHAT = {"sys.settrace": "to set a trace function", "sys.setprofile": "to set a profile function",
         "open": "to open process memory",
         "sys.addaudithook": "to add an audit hook (it would run after this one's checks)"}


def install(fd: int, codes: dict) -> None:
    """Send the key, snapshot what the tests rely on, install the audit hook. Keeps nothing:
    once this returns, only the hook's closure refers to the key."""
    key = os.urandom(32)
    judge.send_frame(fd, key)
    pristine = _nested_codes(codes.values())
    trusted = pristine | _trusted_codes()
    sys.addaudithook(_make_hook(fd, key, trusted, {id(c) for c in pristine}, Snapshot()))


def _nested_codes(roots) -> set:
    """The code objects and every code object nested in them (functions, comprehensions)."""
    found: dict[int, object] = {}
    todo = list(roots)
    while todo:
        code = todo.pop()
        if id(code) not in found:
            found[id(code)] = code
            todo.extend(c for c in code.co_consts if type(c) is types.CodeType)
    return set(found.values())


def _protected_modules() -> list:
    """Modules whose code is trusted on the stack (and whose namespaces are snapshotted)."""
    names = [n for n in sys.modules if n == "unittest" or n.startswith("unittest.")]
    names += ["contextlib", "codetrial_judge", "codetrial_plain", "codetrial_unittest", __name__,
              "builtins"]
    return [sys.modules[n] for n in names if n in sys.modules]


# Modules that unittest's assertions call into (diffs, reprs, regexes, paths): snapshotted too,
# so that a patch of them is seen, but their code is not trusted to make records.
_USED_BY_ASSERTIONS = ("difflib", "pprint", "reprlib", "re", "genericpath", "collections",
                       "functools", "operator", "itertools", "math")  # not warnings: it reassigns
                                                                      # its filters as tests run
# Single names of modules that tests may well patch (mock.patch("os.path.exists")) but that an
# assertion calls: unittest.util's commonprefix calls os.fspath.
_PINNED = (("os", "fspath"),)


def _snapshotted_modules() -> list:
    return _protected_modules() + [sys.modules[n] for n in _USED_BY_ASSERTIONS
                                   if n in sys.modules]


def _code_of(value: object) -> object:
    """The code object of a function-like class attribute, without running anyone's code."""
    kind = type(value)
    if kind in (staticmethod, classmethod):
        value, kind = value.__func__, type(value.__func__)
    if kind is property:
        value, kind = value.fget, type(value.fget)
    return value.__code__ if kind is types.FunctionType else None


_FUNCTION, _METHOD = types.FunctionType, types.MethodType
_CODE_HOLDERS = (_FUNCTION, _METHOD, classmethod, staticmethod, property)


def _is_data(key: object, value: object) -> bool:
    return (type(key) is str and key not in _SET_BY_UNITTEST and not key.startswith("test")
            and not hasattr(unittest.TestCase, key) and type(value) not in _CODE_HOLDERS)
# (type, method name) as unittest sets them; a frozenset, so that nothing can add to it
_DEFAULT_EQUALITY = frozenset(unittest.TestCase()._type_equality_funcs.items())


def _trusted_codes() -> set:
    """Code that may be on the stack when a record is made: ours, unittest's, contextlib's,
    and every frame below us now (the sandbox worker and the program)."""
    roots = []
    for module in _protected_modules():
        for value in list(vars(module).values()):
            spaces = [vars(value)] if isinstance(value, type) else []
            for item in [value, *(v for space in spaces for v in space.values())]:
                while (code := _code_of(item)) is not None:
                    roots.append(code)
                    # under a decorator's wrapper (a property has no __dict__)
                    item = getattr(item, "__dict__", {}).get("__wrapped__")
    frame = sys._getframe()
    while frame is not None:
        roots.append(frame.f_code)
        frame = frame.f_back
    return _nested_codes(roots)


class Snapshot:
    """The items of every namespace the tests rely on, taken before the model's code is
    imported. `intact` compares them with what is there now using no builtin and no global:
    it must not ask anything the code under test could have replaced."""

    def __init__(self) -> None:
        self.spaces: list[tuple[str, object, tuple, object]] = []
        self.modules = tuple((m.__name__, m) for m in _snapshotted_modules())
        self.bases: list[tuple[str, type, tuple]] = []
        self.class_spaces: list[tuple[type, int]] = []  # a class, the index of its namespace
        self.pins = tuple((f"{m}.{n}", vars(sys.modules[m]), n, vars(sys.modules[m])[n])
                          for m, n in _PINNED)
        for name, module in self.modules:
            self.add(name, vars(module))
            for value in list(vars(module).values()):
                if type(value) is type and value.__module__ == name:
                    self.add_class(f"{name}.{value.__qualname__}", value)

    def add_class(self, name: str, kind: type) -> None:
        """A class's namespace and its bases (a new base changes what its instances inherit)."""
        self.add(name, kind.__dict__)
        self.bases.append((name, kind, kind.__bases__))
        self.class_spaces.append((kind, len(self.spaces) - 1))

    def accept_new_data(self, kind: object) -> None:
        """After a test class's setUpClass: the data it added (`cls.expected = ...`) joins the
        snapshot. Only names the class did not have, that unittest does not define, holding no
        function: what was there, and every method, stays as loaded."""
        for known, index in self.class_spaces:
            if known is kind:
                name, space, items, keys = self.spaces[index]
                added = tuple((k, v) for k, v in space.items()
                              if _is_data(k, v) and k not in keys)
                self.spaces[index] = (name, space, items + added, keys | {k for k, _ in added})

    def add(self, name: str, space: object) -> None:
        items = tuple((k, v) for k, v in space.items() if k not in _SET_BY_UNITTEST)
        self.spaces.append((name, space, items, space.keys() - _SET_BY_UNITTEST))

    def odd_keys(self, modules: dict = sys.modules, kind_of: object = type,
                 text: type = str) -> str:
        """The first namespace holding a key that is not a plain str, or "". Such a key runs
        code of its own when it is hashed or compared, so this looks before any lookup: it
        only iterates (which calls nothing of the keys')."""
        for name, space, _, _ in (*self.spaces, *self.pins):
            for key in space:
                if kind_of(key) is not text:
                    return name
        for key in modules:
            if kind_of(key) is not text:
                return "sys.modules"
        return ""

    def intact(self, modules: dict = sys.modules, missing: object = object(),
               ignored: frozenset = _SET_BY_UNITTEST,
               bases_of: object = type.__dict__["__bases__"].__get__) -> str:
        """"" when nothing changed, else the first thing that did."""
        odd = self.odd_keys()
        if odd:
            return odd + " (a key that is not a str)"
        for name, space, items, keys in self.spaces:
            for key in (space.keys() - ignored) ^ keys:
                return "%s.%s" % (name, key)  # noqa: UP031 - format() could be replaced
            for key, value in items:
                if space.get(key, missing) is not value:
                    return name + "." + key
        for name, module in self.modules:
            if modules.get(name, missing) is not module:
                return "sys.modules[" + name + "]"
        for name, kind, bases in self.bases:
            if bases_of(kind) is not bases:
                return name + ".__bases__"
        for name, space, key, value in self.pins:
            if space.get(key, missing) is not value:
                return name
        return ""


def _make_hook(fd: int, key: bytes, trusted: set, pristine: set, snapshot: Snapshot):
    """The audit hook; its closure is the only holder of the key."""
    trusted_ids = frozenset(id(c) for c in trusted)
    write, pack, blake2b, getframe, ident = os.write, _SEQ.pack, hashlib.blake2b, sys._getframe, id
    code_of = _FUNCTION.__dict__["__code__"].__get__
    intact, watched = snapshot.intact, _WATCHED
    # ids stay valid while the codes live; "ready": classes whose setUpClass data was taken in
    state = {"seq": 0, "classes": (), "keep": tuple(trusted), "ready": []}

    def emit(kind: str, test: str = "", message: str = "") -> None:
        state["seq"] += 1
        head = pack(state["seq"])
        payload = "\x00".join((kind, test, message.replace("\x00", "?"))).encode(
            "utf-8", "replace")
        body = head + blake2b(head + payload, key=key, digest_size=16).digest() + payload
        data = memoryview(pack(len(body)) + body)
        while data:
            data = data[write(fd, data):]

    def from_trusted_code() -> bool:
        frame = getframe(2)  # 0: this, 1: the hook, 2: whoever called sys.audit
        while frame is not None:
            if ident(frame.f_code) not in trusted_ids:
                return False
            frame = frame.f_back
        return True

    def ours(function: object) -> bool:
        """A function of the tests' or of the trusted modules (asyncio may rewrite its own)."""
        if type(function) is not _FUNCTION:
            return True  # something else posing as a function: refuse to be safe
        return ident(code_of(function)) in trusted_ids

    def refuse(event: str, what: str) -> None:
        emit("alarm", INTEGRITY, f"the code under test tried {what} ({event})")
        raise PermissionError(f"codetrial: {what} is not allowed while tests run")

    gc_enabled, gc_disable, gc_enable = gc.isenabled, gc.disable, gc.enable
    sigmask, block, all_signals = signal.pthread_sigmask, signal.SIG_SETMASK, signal.valid_signals()

    def hook(event: str, args: tuple) -> None:
        """No code of the model's may run while this runs (it could find `emit` in our frames):
        no garbage collection (finalizers, gc callbacks) and no signals (handlers) meanwhile."""
        if event not in watched:
            return
        collecting, mask = gc_enabled(), sigmask(block, all_signals)
        gc_disable()
        try:
            judge_event(event, args)
        finally:
            if collecting:
                gc_enable()
            sigmask(block, mask)

    def judge_event(event: str, args: tuple) -> None:
        if event[:10] == "codetrial.":
            check = event == "codetrial.record" and len(args) == 2 and type(
                args[0]) is str and args[0] == "check"
            if not check and not from_trusted_code():  # anyone may ask for a check
                refuse(event, "to report a test outcome itself")
            if len(args) == 2 and args[0] == "class-ready" and not snapshot.odd_keys():
                if not any(args[1] is kind for kind in state["ready"]):  # setUpClass returned
                    state["ready"].append(args[1])
                    snapshot.accept_new_data(args[1])
            changed = intact()
            if changed:
                emit("alarm", INTEGRITY, "the code under test changed " + changed)
            _on_record(event, args, emit, state, changed, snapshot, (pristine, trusted_ids))
        elif event == "open":
            if _process_memory(args):
                refuse(event, _WHAT[event])
        elif event in ("object.__setattr__", "object.__delattr__"):
            if len(args) > 1 and args[1] in _FUNCTION_INTERNALS and ours(args[0]):
                refuse(event, f"to change the {args[1]} of a function the tests rely on")
        else:
            refuse(event, _WHAT.get(event, "to reach into the interpreter"))

    return hook


def _process_memory(args: tuple) -> bool:
    path = args[0] if args else None
    if isinstance(path, bytes):
        path = path.decode("utf-8", "replace")
    return isinstance(path, str) and path.startswith("/proc/") and path.endswith(
        ("/mem", "/pagemap"))


def _on_record(event: str, args: tuple, emit, state: dict, changed: str, snapshot: Snapshot,
               codes: tuple[set, frozenset]) -> None:
    """Called with builtins and this module checked intact (else `changed` says what is not)."""
    if event == "codetrial.loaded":
        if not state["classes"] and not changed:
            state["classes"] = _capture(args[0], snapshot, *codes)
        return
    if event == "codetrial.done":
        emit("done")
        return
    kind = args[0] if args else None
    if kind == "check":  # before an assertion: the test instance must be as loaded, too
        test = args[1]
        problem = _check_instance(test, state["classes"], codes[0]) if issubclass(
            type(test), unittest.TestCase) else ""
        if problem:
            emit("alarm", INTEGRITY, "the code under test changed " + problem)
        return
    if kind not in _RECORD_KINDS:
        return
    if kind == "load-error":
        emit(kind, str(args[1]), str(args[2])[-20000:])
        return
    test = _test_id(args[1])
    if kind != "completed":
        emit(kind, test, args[2] if type(args[2]) is str else "")
        return
    problem = changed or _check_completed(args[1], args[2], state["classes"], codes[0])
    if problem:
        emit("tampered", test, "the code under test changed " + problem)
    else:
        emit("completed", test)


def _own(obj: object) -> dict | None:
    """The attribute dict of an object of a trusted class when every key is a plain str,
    else None. Keys are only iterated first: a str subclass would run code when hashed."""
    space = obj.__dict__
    if type(space) is not dict:
        return None
    for key in space:
        if type(key) is not str:
            return None
    return space


def _test_id(test: object) -> str:
    if type(test) is unittest.case._SubTest:
        own = _own(test)
        test = own.get("test_case") if own is not None else None
    kind = type(test)
    if type(kind) is not type or not issubclass(kind, unittest.TestCase):
        return "?"
    own = _own(test)
    name = own.get("_testMethodName", "?") if own is not None else "?"
    return f"{kind.__module__}.{kind.__qualname__}.{name if type(name) is str else '?'}"


def _capture(suite: object, snapshot: Snapshot, pristine: set, trusted: frozenset) -> tuple:
    """The test classes as loaded, where everything unittest calls is pristine test code (or
    unittest's own); their namespaces join the snapshot."""
    classes: list = []
    for test in _iter_tests(suite):
        kind = type(test)
        if type(kind) is not type or any(kind is c for c in classes) or not issubclass(
                kind, unittest.TestCase):
            continue
        if all(_pristine_class(base, pristine, trusted) for base in kind.__mro__[:-2]):
            classes.append(kind)
            for base in kind.__mro__[:-2]:
                snapshot.add_class(f"{base.__module__}.{base.__qualname__}", base)
    return tuple(classes)


def _pristine_class(kind: type, pristine: set, trusted: frozenset) -> bool:
    if type(kind) is not type:
        return False
    if any(type(name) is not str for name in kind.__dict__):
        return False
    for name, value in kind.__dict__.items():
        if (name.startswith("test") or hasattr(unittest.TestCase, name)) and callable(value):
            if not _pristine_function(value, pristine, trusted):
                return False
    return True


def _pristine_function(value: object, pristine: set, trusted: frozenset) -> bool:
    """Pristine test code, or unittest's wrapper (a skip decorator's) around pristine code."""
    code = _code_of(value)
    while code is not None and id(code) not in pristine:
        if id(code) not in trusted or type(value) is not types.FunctionType:
            return False
        value = value.__dict__.get("__wrapped__")
        code = _code_of(value)
    return code is not None


def _iter_tests(suite: object):
    own = _own(suite)
    tests = own.get("_tests") if own is not None else None
    for test in tests if type(tests) is list else ():
        if type(test) is unittest.TestSuite:
            yield from _iter_tests(test)
        else:
            yield test


def _check_completed(test: object, method: object, classes: tuple, pristine: set) -> str:
    """Why a test method that returned normally may not count as passed, or ""."""
    problem = _check_instance(test, classes, pristine)
    if problem:
        return problem
    own = _own(test)  # _check_instance found it plain
    name = own.get("_testMethodName") if own is not None else None
    if type(name) is not str:
        return "the test's name"
    function = next((c.__dict__[name] for c in type(test).__mro__ if name in c.__dict__), None)
    if type(method) is not _METHOD or method.__func__ is not function or (
            method.__self__ is not test):
        return f"the test method {name}"
    return ""


def _check_instance(test: object, classes: tuple, pristine: set) -> str:
    """Why a test instance is not as the test file made it (its class, its own attributes,
    its type equality functions), or "". Keys are looked at before any lookup (see odd_keys)."""
    if not any(type(test) is c for c in classes):
        return "the test class (it is not the one the test file defines)"
    own = _own(test)
    if own is None:
        return "the test's attributes (a key that is not a str)"
    funcs = own.get("_type_equality_funcs")
    if funcs is not None and (type(funcs) is not dict
                              or any(type(key) is not type for key in funcs)):
        return "the test's type equality functions"
    for attr, value in own.items():
        if attr not in _INSTANCE_STATE and callable(value) and hasattr(unittest.TestCase, attr):
            return f"the test's {attr}"
    for key, value in (funcs or {}).items():
        value = value.__func__ if type(value) is _METHOD else value
        if type(value) is str:  # a method name: only the one unittest gives that type
            if type(key) is not type or (key, value) not in _DEFAULT_EQUALITY:
                return "the test's type equality functions"
        elif type(value) is not _FUNCTION or id(value.__code__) not in pristine:
            return "the test's type equality functions"
    return ""
