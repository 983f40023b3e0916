"""Unit tests of a code-editing task, run apart from the code they test.

Standalone (stdlib and our other preloaded modules): every sandbox worker preloads it as
`codetrial_unittest`, and an editing suite's program is `run_unittests(tests, solution)`.

The program's own process is the tests' process, and it never runs the model's code. It reads
the test files (and the helper modules they import) into memory and removes them from the disk,
makes itself undumpable, and starts the subject (codetrial_subject): a fresh interpreter in the
working directory, which now holds only the solution and the files that are not tests. The tests
then run with plain unittest, unchanged; `import bob` gives them a proxy of the subject's module
(codetrial_proxy), so every call of the model's code happens in the subject, and what comes back
is a copy of plain data or a handle. Nothing of the tests (files, frames, constants, sources)
is within the model's reach, so this process's records are the verdicts: `__results__` holds
{"tests": [[id, verdict, message], ...], "tried": [what the subject tried (codetrial_audit)]}.
A test the files define that never reports is an error; one skipped by a decorator is left out.
"""

from __future__ import annotations

import ast
import importlib.util
import inspect
import linecache
import os
import signal
import sys
import threading
import types
import unittest
import unittest.mock  # loaded once per worker: most test files use it

import codetrial_judge as judge
import codetrial_plain as plain
import codetrial_proxy as proxy
import codetrial_subject as subject
from codetrial_expected import MAX_MESSAGE, expected_tests, verdict_rows

subject.compiled()  # in the worker, once: every forked tests' process inherits it

__unittest = True  # tracebacks unittest prints leave out this module's frames, as its own
# A test's threads wait their turn on the channel, so more of them are alive at once than when
# the code runs in their process (a bank's 1000 concurrent deposits): small stacks keep them
# within the address-space limit.
THREAD_STACK = 1 << 20


def run_unittests(modules: list[str], solution: list[str] | None = None) -> None:
    """Run the tests of `modules` (module names) against the solution files `solution` (paths;
    None: every other .py file of the directory); `__results__` gets the rows and what was
    tried. A test module that cannot be imported is re-raised here (as SyntaxError, ImportError
    ...), so the program ends as it would have without the proxies."""
    workdir = os.getcwd()
    sources = {name: _read_source(name) for name in modules}
    expected, skippable = expected_tests(sources)
    names = _solution_modules(workdir, solution, set(modules))
    support = _support(sources, names, solution or [])
    kept = _imported_by_solution(solution or [], set(support))
    for path in [p for p, _ in sources.values()] + [p for m, (p, _) in support.items()
                                                     if m not in kept]:
        os.unlink(path)
    judge.undumpable()
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    threading.stack_size(THREAD_STACK)
    pid, inp, out = subject.start(workdir, sorted(p for p, _ in sources.values()))
    conn = _Tests(inp, out)
    sys.path[:] = [p for p in sys.path if p not in ("", ".", workdir)]
    sys.meta_path.insert(0, _Finder(workdir, {**sources, **support}, names, conn))
    try:
        result = _run(list(sources), conn)
        _finish(conn)
    finally:
        _stop(pid, inp, out)
    rows = verdict_rows(expected, skippable, result.records)
    sys.modules["__main__"].__results__ = {"tests": rows, "tried": list(conn.tried)}


def _read_source(module: str) -> tuple[str, str]:
    path = module.replace(".", "/") + ".py"
    with open(path, encoding="utf-8") as fh:
        return path, fh.read()


def _module_name(path: str) -> str:
    name = path[:-3] if path.endswith(".py") else path
    name = name[: -len("/__init__")] if name.endswith("/__init__") else name
    return name.replace("/", ".")


def _solution_modules(workdir: str, solution: list[str] | None, tests: set[str]) -> set[str]:
    """Top-level module names the subject serves."""
    if solution is None:
        solution = [e for e in os.listdir(workdir) if e.endswith(".py") or os.path.isfile(
            os.path.join(workdir, e, "__init__.py"))]
    found = {_module_name(p).split(".")[0] for p in solution if p.endswith(".py") or "." not in p}
    return found - tests


def _imports(source: str) -> set[str]:
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module.split(".")[0])
    return found


def _support(sources: dict, solution: set[str], paths: list[str]) -> dict[str, tuple[str, str]]:
    """Helper modules of the directory that the tests import (test_utils.py), transitively:
    they run on the tests' side, from memory."""
    support: dict[str, tuple[str, str]] = {}
    todo = [src for _, src in sources.values()]
    while todo:
        for name in _imports(todo.pop()):
            path = name + ".py"
            if name in solution or name in sources or name in support or path in paths:
                continue
            if os.path.isfile(path):
                support[name] = _read_source(name)
                todo.append(support[name][1])
    return support


def _imported_by_solution(solution: list[str], support: set[str]) -> set[str]:
    """Helper modules the solution imports too: they stay on the disk for the subject."""
    kept: set[str] = set()
    for path in solution:
        try:
            with open(path, encoding="utf-8") as fh:
                kept |= _imports(fh.read()) & support
        except (OSError, UnicodeDecodeError):
            continue
    return kept


class _Tests(proxy.Connection):
    """The tests' end: it gathers what the subject says it saw tried, and runs the subject's
    calls back under frames that look like the subject's (inspect.stack() in a callback)."""

    def __init__(self, inp: int, out: int) -> None:
        super().__init__(inp, out, guarded=True, name="the code under test")
        self.tried: dict[str, None] = {}
        self.on_message = self._gather
        self.around_call = lambda frames, target, args, kwargs: proxy.call_under(
            frames, target, *args, **kwargs)

    def _gather(self, message: dict) -> None:
        items = message.get("tried")
        for item in items if type(items) is list else ():
            if len(self.tried) < 50:
                self.tried.setdefault(str(item)[:160], None)

    def perform(self, op: str, args: list, frames: object) -> object:
        if op in ("setattr", "delattr") and _protected(args[0], args[1]):
            self.tried.setdefault(f"patch:{op[:3]} {str(args[1])[:60]} of a test object", None)
            raise AttributeError(f"codetrial: the code under test may not {op[:3]} "
                                 f"{args[1]!r} of the tests' objects (a method, or a mock's "
                                 "assertions or recorded calls)")
        return super().perform(op, args, frames)

    def _check_name(self, name: object, writing: bool = False) -> None:
        try:
            super()._check_name(name, writing)
        except AttributeError:
            self.tried.setdefault(f"introspection:{'set' if writing else 'get'} "
                                  f"{str(name)[:60]} of a test object", None)
            raise


# what a mock asserts with and what it recorded: the tests' say, never the code's
MOCK_API = frozenset({
    "assert_called", "assert_called_once", "assert_called_with", "assert_called_once_with",
    "assert_any_call", "assert_has_calls", "assert_not_called", "assert_awaited",
    "assert_awaited_once", "assert_awaited_with", "assert_awaited_once_with", "assert_any_await",
    "assert_has_awaits", "assert_not_awaited", "called", "call_count", "call_args",
    "call_args_list", "mock_calls", "method_calls", "await_count", "await_args",
    "await_args_list", "reset_mock", "configure_mock", "attach_mock"})


def _protected(target: object, name: object) -> bool:
    """A method of a test object (a test case's, a helper's), or a mock's assertion API or
    recorded calls: replacing one would let the code decide what the test checks."""
    if type(name) is not str:
        return False
    if isinstance(target, unittest.mock.NonCallableMock):
        return name in MOCK_API
    current = inspect.getattr_static(target, name, None)
    return isinstance(current, (types.FunctionType, types.MethodType, staticmethod,
                                classmethod, types.BuiltinFunctionType))


class _Finder:
    """Test and helper modules from memory (their files are gone); the solution's modules as
    proxies of the subject's."""

    def __init__(self, workdir: str, sources: dict, solution: set[str], conn: _Tests) -> None:
        self.workdir, self.solution, self.conn = workdir, solution, conn
        self.sources = {name: (os.path.join(workdir, path), text)
                        for name, (path, text) in sources.items()}
        for path, text in self.sources.values():
            linecache.cache[path] = (len(text), None, text.splitlines(True), path)

    def find_spec(self, name: str, path: object = None, target: object = None) -> object:
        if name in self.sources:
            return importlib.util.spec_from_loader(name, self, origin=self.sources[name][0])
        if name.split(".")[0] in self.solution:
            spec = importlib.util.spec_from_loader(name, self, is_package=True)
            spec.submodule_search_locations = []
            return spec
        return None

    def create_module(self, spec: object) -> object:
        if spec.name in self.sources:
            return None
        handle = self.conn.request("import", spec.name)
        return proxy.remote_module(self.conn, spec.name, handle)

    def get_source(self, name: str) -> str | None:
        """For inspect.getsource in the tests (their files are gone from the disk)."""
        return self.sources[name][1] if name in self.sources else None

    def exec_module(self, module: object) -> None:
        if module.__name__ in self.sources:
            path, text = self.sources[module.__name__]
            module.__file__ = path
            exec(compile(text, path, "exec", dont_inherit=True), module.__dict__)


def _run(modules: list[str], conn: _Tests) -> _Recording:
    suite = unittest.TestSuite()
    for name in modules:
        try:
            suite.addTests(unittest.defaultTestLoader.loadTestsFromModule(
                importlib.import_module(name)))
        except BaseException as exc:  # noqa: BLE001 - re-raised below, as the program's error
            _prune(exc)
            import traceback

            traceback.print_exception(type(exc), exc, exc.__traceback__)
            raise plain.exception_named(type(exc).__name__, _text(exc)) from None
    runner = unittest.TextTestRunner(stream=sys.stderr, verbosity=2, resultclass=_Recording)
    return runner.run(suite)


def _text(exc: BaseException) -> str:
    try:
        return str(exc)[:MAX_MESSAGE]
    except Exception:  # noqa: BLE001
        return type(exc).__name__


def _finish(conn: _Tests) -> None:
    """One last exchange, so that what the subject tried since its last reply arrives."""
    try:
        conn.request("ping")
    except proxy.ProxyError:
        pass


def _stop(pid: int, inp: int, out: int) -> None:
    for fd in (out, inp):
        try:
            os.close(fd)
        except OSError:
            pass
    try:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
    except OSError:
        pass


def _prune(exc: BaseException | None, seen: set | None = None) -> None:
    """Drop the proxy machinery's frames from a traceback (and its causes'): what is left reads
    as if the model's code had run in the test's process."""
    seen = set() if seen is None else seen
    while exc is not None and id(exc) not in seen:
        seen.add(id(exc))
        first = exc.__traceback__
        while first is not None and proxy.PROXY_MARK in first.tb_frame.f_globals:
            first = first.tb_next
        tb = first
        while tb is not None:
            nxt = tb.tb_next
            while nxt is not None and proxy.PROXY_MARK in nxt.tb_frame.f_globals:
                nxt = nxt.tb_next
            tb.tb_next = nxt
            tb = nxt
        exc.__traceback__ = first
        _prune(exc.__cause__, seen)
        exc = exc.__context__


class _Recording(unittest.TextTestResult):
    """unittest's text result, which also keeps each test's outcome: id -> [verdict, text]."""

    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, **kwargs)
        self.records: dict[str, list[str]] = {}

    def _record(self, test: unittest.TestCase, verdict: str, text: str = "") -> None:
        record = self.records.setdefault(test.id(), [verdict, ""])
        if _RANK[verdict] > _RANK[record[0]]:
            record[0] = verdict
        if text:
            record[1] = (record[1] + "\n" + text).strip()[-MAX_MESSAGE:]

    def addSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802 - unittest's name
        super().addSuccess(test)
        self._record(test, "passed")

    def addFailure(self, test: unittest.TestCase, err: tuple) -> None:  # noqa: N802
        _prune(err[1])
        super().addFailure(test, (err[0], err[1], err[1].__traceback__))
        self._record(test, "failed", self.failures[-1][1])

    def addError(self, test: unittest.TestCase, err: tuple) -> None:  # noqa: N802
        _prune(err[1])
        super().addError(test, (err[0], err[1], err[1].__traceback__))
        self._record(test, "error", self.errors[-1][1])

    def addSubTest(self, test, subtest, err) -> None:  # noqa: N802
        if err is not None:
            _prune(err[1])
            err = (err[0], err[1], err[1].__traceback__)
        super().addSubTest(test, subtest, err)
        if err is not None:
            failed = issubclass(err[0], test.failureException)
            listed = self.failures if failed else self.errors
            self._record(test, "failed" if failed else "error", listed[-1][1] if listed else "")

    def addSkip(self, test: unittest.TestCase, reason: str) -> None:  # noqa: N802
        super().addSkip(test, reason)
        self._record(test, "skipped", reason)

    def addExpectedFailure(self, test: unittest.TestCase, err: tuple) -> None:  # noqa: N802
        super().addExpectedFailure(test, err)
        self._record(test, "skipped", "expected failure")

    def addUnexpectedSuccess(self, test: unittest.TestCase) -> None:  # noqa: N802
        super().addUnexpectedSuccess(test)
        self._record(test, "failed", "unexpected success")


_RANK = {"passed": 0, "skipped": 1, "failed": 2, "error": 3}
