"""Unit tests of a code-editing task, run so that the code under test cannot fake their outcome.

Standalone (stdlib and our other preloaded modules): every sandbox worker preloads it as
`codetrial_unittest`, and an editing suite's program is `run_unittests([test modules])`.

The program's own process, the judge, never runs the model's code. Before any of it exists, the
judge reads the pristine test files, lists the tests they define, and forks a test process, where
the model's code is first imported (by the tests). The judge alone holds the sandbox's result
channel and decides each test's verdict, from records the test process sends it:

- records are signed by an audit hook (codetrial_guard) that holds the key and signs only what
  trusted code reports, after checking that nothing the tests rely on was changed;
- a test passes only when its method returned normally ("completed", recorded right after the
  call) and nothing failed, errored or skipped in it; a test the files define that never reports
  fails, so skipping, stopping early or exiting (os._exit, sys.exit) cannot pass anything;
- unittest's test-part executor is replaced by one that swallows nothing (no expected failures,
  no _ShouldStop), and comparing assertions let a plain expected value say what equal means;
- the tests are compiled from the judge's copy, so rewriting a test file changes nothing.

- each `self.assert*(...)`/`self.fail*(...)` call in the test files is checked first: a patch
  made while its arguments were evaluated, meant to undo itself inside the assertion, is caught.

What this cannot stop: an object of the model's that lies when a test compares it with another
object of the model's, or a patch that undoes itself and acts on an assertion reached some other
way (an alias of the method, a helper outside the test class). Tests that call one function with
data are better judged by value (see codetrial_judge, suites/grading.py).
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import hmac
import os
import select
import struct
import sys
import traceback
import unittest
import unittest.case
import unittest.mock  # noqa: F401 - here before the snapshot: unittest would add it lazily

import codetrial_guard as guard
import codetrial_judge as judge
import codetrial_plain as plain

__unittest = True  # tracebacks unittest prints leave out this module's frames, as its own
_SEQ = struct.Struct(">I")
INTEGRITY = guard.INTEGRITY


# ---------------------------------------------------------------- the judge's side


class TestsEnded(Exception):
    """The test process ended before every test had run."""


def run_unittests(modules: list[str]) -> None:
    """Run the tests of `modules` apart from the judge; `__results__` gets [id, verdict, message]
    for every test. A test module that cannot be imported is re-raised here (as SyntaxError,
    ImportError ...), so the program ends as it would have without the judge."""
    sources = {name: _read_source(name) for name in modules}
    expected, skippable = expected_tests(sources)
    judge.undumpable()
    pid, inp, out = judge.fork_subject(_test_process, sources)
    os.close(out)
    records = collect(pid, inp)
    os.close(inp)
    last = records[-1]["kind"] if records else None
    if last not in ("done", "forged") or any(r["kind"] == "load-error" for r in records):
        _ended_early(pid, records)
    if last == "forged":  # stop it: what it says from now on counts for nothing
        _kill(pid)
    sys.modules["__main__"].__results__ = verdict_rows(expected, skippable, records)


def _ended_early(pid: int, records: list[dict]) -> None:
    """A test module would not import, or the test process went quiet before "done": say why,
    as the program's own error (what the program would have raised without the judge)."""
    load_errors = [r for r in records if r["kind"] == "load-error"]
    if load_errors:
        sys.stderr.write(load_errors[0]["message"])
        raise plain.exception_named(load_errors[0]["test"], "a test module could not be imported")
    if not _has_exited(pid):  # it closed its channel and carries on
        _kill(pid)
        raise TestsEnded("the test process closed its channel before every test had run")
    status = judge.die_like(pid)  # a CPU-time or memory kill ends this program the same way
    raise TestsEnded(f"the test process ended (status {status}) before every test had run")


def _kill(pid: int) -> None:
    try:
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    except OSError:
        pass


def _read_source(module: str) -> tuple[str, str]:
    path = module.replace(".", "/") + ".py"
    with open(path, encoding="utf-8") as fh:
        return path, fh.read()


def expected_tests(sources: dict[str, tuple[str, str]]) -> tuple[list[str], set[str]]:
    """Test ids the files define (module.Class.test_method), and those skipped by a decorator."""
    expected: list[str] = []
    skippable: set[str] = set()
    for module, (_, source) in sources.items():
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # importing it will fail and say why
        classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        for name, node in classes.items():
            if not _is_test_class(node, classes, set()):
                continue
            for method, skipped in _test_methods(node, classes, set()).items():
                test = f"{module}.{name}.{method}"
                expected.append(test)
                if skipped or _skips(node):
                    skippable.add(test)
    return expected, skippable


def _base_names(node: ast.ClassDef) -> list[str]:
    names = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


def _is_test_class(node: ast.ClassDef, classes: dict, seen: set) -> bool:
    seen.add(node.name)
    return any(b.endswith("TestCase") or (b in classes and b not in seen
                                          and _is_test_class(classes[b], classes, seen))
               for b in _base_names(node))


def _test_methods(node: ast.ClassDef, classes: dict, seen: set) -> dict[str, bool]:
    """test* methods, inherited ones from classes of the same file included: name -> skipped."""
    seen.add(node.name)
    methods: dict[str, bool] = {}
    for base in reversed(_base_names(node)):
        if base in classes and base not in seen:
            methods.update(_test_methods(classes[base], classes, seen))
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith(
                "test"):
            methods[item.name] = _skips(item)
    return methods


def _skips(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("skip" in ast.unparse(d).lower() or "expectedfailure" in ast.unparse(d).lower()
               for d in node.decorator_list)


def collect(pid: int, fd: int) -> list[dict]:
    """Verified records until "done", end of file, or the test process's exit. A record that
    fails verification ends the collection with an integrity record."""
    reader = _Reader(fd, pid)
    key = reader.frame()
    if key is None or len(key) != 32:
        return []
    records: list[dict] = []
    expected_seq = 1
    while (frame := reader.frame()) is not None:
        record = _verify(frame, key, expected_seq)
        records.append(record)
        if record["kind"] in ("done", "forged"):
            break
        expected_seq += 1
    return records


def _verify(frame: bytes, key: bytes, seq: int) -> dict:
    """A record is `seq, MAC, kind NUL test NUL message`, signed by the test process's hook."""
    head, mac, payload = frame[:4], frame[4:20], frame[20:]
    good = hashlib.blake2b(head + payload, key=key, digest_size=16).digest()
    parts = payload.decode("utf-8", "replace").split("\x00")
    signed = len(frame) >= 20 and hmac.compare_digest(mac, good)
    if not signed or _SEQ.unpack(head)[0] != seq or len(parts) != 3:
        return {"kind": "forged", "test": INTEGRITY,
                "message": "the test process sent a record that the runner did not sign"}
    return dict(zip(("kind", "test", "message"), parts, strict=True))


class _Reader:
    """Frames from the test process; end of file also when it has exited and its pipe is idle
    (a child it left behind may hold the pipe open)."""

    def __init__(self, fd: int, pid: int) -> None:
        self.fd, self.pid, self.buf, self.exited = fd, pid, b"", False

    def frame(self) -> bytes | None:
        head = self._take(4)
        if head is None:
            return None
        (size,) = struct.unpack(">I", head)
        return self._take(size) if size <= 64 << 20 else None

    def _take(self, n: int) -> bytes | None:
        while len(self.buf) < n:
            chunk = self._read()
            if not chunk:
                return None
            self.buf += chunk
        data, self.buf = self.buf[:n], self.buf[n:]
        return data

    def _read(self) -> bytes:
        while True:
            if select.select([self.fd], [], [], 0.0 if self.exited else 0.2)[0]:
                return os.read(self.fd, 1 << 16)
            if self.exited:
                return b""
            self.exited = _has_exited(self.pid)


def _has_exited(pid: int) -> bool:
    try:
        return os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT) is not None
    except ChildProcessError:
        return True


def verdict_rows(expected: list[str], skippable: set[str], records: list[dict]) -> list[list]:
    """[test id, verdict, message] per test; integrity problems as one more failing row."""
    by_test: dict[str, list[dict]] = {}
    for record in records:
        if record["kind"] not in ("done", "alarm", "forged"):
            by_test.setdefault(str(record.get("test")), []).append(record)
    rows = []
    for test in [*expected, *(t for t in by_test if t not in expected)]:
        verdict, message = _verdict(by_test.get(test, []), test in skippable)
        if verdict != "skipped":
            rows.append([test, verdict, message[-2000:]])
    problems = [r["message"] for r in records if r["kind"] in ("alarm", "forged")]
    if problems:
        rows.append([INTEGRITY, "error", "; ".join(dict.fromkeys(problems))[:2000]])
    return rows


def _verdict(records: list[dict], skippable: bool) -> tuple[str, str]:
    kinds = [r["kind"] for r in records]
    text = "\n".join(str(r.get("message", "")) for r in records if r.get("message"))
    for kind in ("tampered", "error", "failed"):
        if kind in kinds:
            return ("error" if kind == "tampered" else kind), text
    if "skipped" in kinds:
        return ("skipped", text) if skippable else ("failed", "skipped at run time: " + text)
    if "completed" in kinds:
        return "passed", ""
    return ("skipped", "") if skippable else ("error", "the test did not run to its end")


# ---------------------------------------------------------------- the test process


def _test_process(to_judge: int, from_judge: int, sources: dict[str, tuple[str, str]]) -> None:
    os.close(from_judge)
    codes = {name: compile_checked(src, path) for name, (path, src) in sources.items()}
    _use_trusted_parts()
    sys.meta_path.insert(0, _PristineTests(codes, sources))
    guard.install(to_judge, codes)
    suite = _load(list(codes))
    sys.audit("codetrial.loaded", suite)
    unittest.TextTestRunner(stream=sys.stderr, verbosity=2).run(suite)
    sys.audit("codetrial.done")
    sys.stdout.flush()
    sys.stderr.flush()
    os._exit(0)


def _load(modules: list[str]) -> unittest.TestSuite:
    suite = unittest.TestSuite()
    for name in modules:
        try:
            suite.addTests(unittest.defaultTestLoader.loadTestsFromName(name))
        except BaseException as exc:  # noqa: BLE001 - reported to the judge, which re-raises it
            text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
            sys.audit("codetrial.record", "load-error", type(exc).__name__, text)
    return suite


# A test's `self.assertX(...)` is compiled as a call of `_checked_assertion`, a constant of the
# code (no name to look up, so nothing to patch): the guard checks everything the tests rely on
# before each assertion runs. A patch the code under test made while the arguments were evaluated
# is still in place then, even one meant to undo itself inside the assertion.
_CHECKED = "\x00codetrial: checked assertion"


_CHECKED_ASSERTION = """
def _checked_assertion(self, name, /, *args, **kwargs):
    "\\x00audit"("codetrial.record", "check", self)  # the guard raises an alarm on any change
    return "\\x00getattr"(self, name)(*args, **kwargs)
"""


def _compiled(source: object, path: str) -> object:
    """compile(), quiet about the placeholder strings called below ("'str' is not callable")."""
    import warnings

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", SyntaxWarning)
        return compile(source, path, "exec", dont_inherit=True)


def _with_constants(code: object, constants: dict) -> object:
    """`code` (and the code nested in it) with the placeholder strings in `constants` replaced by
    their values, as constants: a call of one looks up no name, so nothing can patch it (and a
    function's code cannot be replaced while tests run: the guard refuses it)."""
    consts = tuple(constants.get(c, c) if type(c) is str
                   else _with_constants(c, constants) if type(c) is type(code) else c
                   for c in code.co_consts)
    return code.replace(co_consts=consts)


def _function(source: str, constants: dict) -> object:
    """The function `source` defines, its placeholder calls bound (see `_with_constants`)."""
    import types

    module = _compiled(source, __file__)
    code = next(c for c in module.co_consts if type(c) is type(module))
    return types.FunctionType(_with_constants(code, constants), {"__builtins__": {}})


_checked_assertion = _function(_CHECKED_ASSERTION,
                              {"\x00audit": sys.audit, "\x00getattr": getattr})


class _CheckAssertions(ast.NodeTransformer):
    def visit_Call(self, node: ast.Call) -> ast.AST:
        self.generic_visit(node)
        func = node.func
        if (isinstance(func, ast.Attribute) and isinstance(func.value, ast.Name)
                and func.value.id == "self" and func.attr.startswith(("assert", "fail"))):
            call = ast.Call(ast.Constant(_CHECKED), [func.value, ast.Constant(func.attr),
                                                     *node.args], node.keywords)
            return ast.copy_location(call, node)
        return node


def compile_checked(source: str, path: str) -> object:
    """The test file's code, with its assertions checked (see `_checked_assertion`)."""
    tree = ast.fix_missing_locations(_CheckAssertions().visit(ast.parse(source, path)))
    return _with_constants(_compiled(tree, path), {_CHECKED: _checked_assertion})


class _PristineTests:
    """Imports the test modules from the judge's copy of their source, not from the disk."""

    def __init__(self, codes: dict, sources: dict) -> None:
        self.codes, self.paths = dict(codes), {n: p for n, (p, _) in sources.items()}
        import linecache

        for _, (path, source) in sources.items():
            linecache.cache[path] = (len(source), None, source.splitlines(True), path)

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        if name not in self.codes:
            return None
        import importlib.util

        return importlib.util.spec_from_loader(name, self, origin=self.paths[name])

    def create_module(self, spec: object) -> None:
        return None

    def exec_module(self, module: object) -> None:
        module.__file__ = self.paths[module.__name__]
        exec(self.codes[module.__name__], module.__dict__)


# The two places where unittest could be steered without leaving a trace: an exception the test
# raised being swallowed (as an expected failure, or as _ShouldStop), and a test method's return.


@contextlib.contextmanager
def _test_part(self, test_case, subTest=False):  # noqa: N803 - unittest's signature
    """unittest's testPartExecutor, recording every failure itself and swallowing none."""
    old_success = self.success
    self.success = True
    try:
        yield
    except KeyboardInterrupt:
        raise
    except unittest.SkipTest as exc:
        self.success = False
        _record_outcome("skipped", test_case, str(exc))
        unittest.case._addSkip(self.result, test_case, str(exc))
    except BaseException:
        exc_info = sys.exc_info()
        self.success = False
        failed = issubclass(exc_info[0], test_case.failureException)
        _record_outcome("failed" if failed else "error", test_case, _format(exc_info, test_case))
        _report_to_result(self.result, test_case, exc_info, subTest)
        exc_info = None
    finally:
        self.success = self.success and old_success


def _record_outcome(kind: str, test_case: object, message: str) -> None:
    sys.audit("codetrial.record", kind, test_case, message)


def _format(exc_info: tuple, test_case: object) -> str:
    """The traceback as unittest prints it (without its frames, nor ours)."""
    try:
        return unittest.TestResult()._exc_info_to_string(exc_info, test_case)[-2000:]
    except BaseException:  # noqa: BLE001 - a hostile exception may not even print
        return exc_info[0].__name__


def _report_to_result(result: object, test_case: object, exc_info: tuple, sub: bool) -> None:
    """For the text the runner prints; verdicts come from the records alone."""
    try:
        if sub:
            result.addSubTest(test_case.test_case, test_case, exc_info)
        else:
            unittest.case._addError(result, test_case, exc_info)
    except Exception:  # noqa: BLE001
        pass


def _call_test_method(self, method) -> None:
    """unittest's _callTestMethod, then a "completed" record: the method returned normally."""
    method()
    sys.audit("codetrial.record", "completed", self, method)


# Assertions that compare two values: each lets a plain value (the expected one, as a rule) say
# what equal, in or less means. Compared with a plain value, another object counts for the plain
# data it holds (see codetrial_plain) and is not asked, so an __eq__ that always says yes, or a
# str subclass that lies, passes nothing. Two objects of the model's still compare themselves.
_COMPARING = ("assertEqual", "assertNotEqual", "assertAlmostEqual", "assertNotAlmostEqual",
              "assertSequenceEqual", "assertListEqual", "assertTupleEqual", "assertSetEqual",
              "assertDictEqual", "assertCountEqual", "assertMultiLineEqual", "assertIn",
              "assertNotIn", "assertGreater", "assertGreaterEqual", "assertLess",
              "assertLessEqual")


def _by_plain_values(original):
    def comparing(self, first, second, *args, **kwargs):
        if plain.is_plain(first) != plain.is_plain(second):
            first, second = plain.as_plain(first), plain.as_plain(second)
        return original(self, first, second, *args, **kwargs)

    comparing.__name__ = original.__name__
    return comparing


def _class_set_up(original):
    """unittest's _handleClassSetUp, then a "class-ready" record: what setUpClass stored on the
    class (`cls.expected = ...`) is the test's data, not a change by the code under test."""
    def handle(self, test, result):
        original(self, test, result)
        sys.audit("codetrial.record", "class-ready", type(test))

    return handle


def _use_trusted_parts() -> None:
    unittest.case._Outcome.testPartExecutor = _test_part
    unittest.TestCase._callTestMethod = _call_test_method
    unittest.TestSuite._handleClassSetUp = _class_set_up(unittest.TestSuite._handleClassSetUp)
    for name in _COMPARING:
        setattr(unittest.TestCase, name, _by_plain_values(getattr(unittest.TestCase, name)))
