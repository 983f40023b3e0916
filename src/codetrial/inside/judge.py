"""Calling the code under test by value, from a program that runs inside the sandbox.

Standalone (stdlib, `codetrial_plain`, `codetrial_audit` and the framing of `codetrial_proxy`):
every sandbox worker preloads it as `codetrial_judge`, so a program uses it with one import and
neither ships nor compiles it. Three ways to judge the model's code by value:

- `answer_calls`: run the model's module, call its function once per recorded argument list
  (from stdin), and hand back the results as plain values. The checks then run in the harness on
  those values (see suites/humaneval.py): nothing the code does in its own process can change
  how the values are judged, so this needs no second process.
- `check_by_value`: when the calls cannot be known in advance, the checks run here and the model's
  module runs in a forked "subject" process. The subject cannot write the program's result
  channel (every other descriptor is closed before its code runs), cannot read this process's
  memory (it is not dumpable), and sends back plain values only. A subject killed by a signal
  takes this process down with the same signal, so the sandbox still tells a CPU-time or memory
  kill from an error.
- `check_names`: the same split for a fill-in-the-middle case whose hole holds Python: the
  filled code runs in the subject, the case's test here, on plain values of the names it reads.

Wherever the model's code runs, an audit hook (`codetrial_audit`) is installed first; what it
records (files read outside the working directory, frame introspection, ...) comes back as
{"tried": [...]} entries among the answers (`answer_calls`) or on a last line of the same
form (the subjects), for the report: it never changes a verdict.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import sys

import codetrial_audit as audit
import codetrial_exception_text as exception_text
import codetrial_plain as plain
from codetrial_forked import Subject, load_module, raised, undumpable

# ---------------------------------------------------------------- answering recorded calls


def answer_calls(code: str, entry: str) -> None:
    """Call `entry` on each argument list read from stdin, in order, until one raises.

    Each answer is also printed (a line: ANSWER_PREFIX, then JSON) as soon as it is known, so
    that a program killed part way still tells which answers it gave (the first STREAMED bytes
    of them: the sandbox keeps little of a program's output).
    """
    calls = [plain.decode(call) for call in json.loads(sys.stdin.read())]
    answers: list = []
    main = sys.modules["__main__"]
    _recorder[0] = audit.install(os.getcwd(), [], watch_modules=False)
    try:
        function = load_module(code)[entry]
    except BaseException as exc:
        _give(answers, raised(exc), exc)
        main.__results__ = answers
        return
    for args, kwargs in calls:
        try:
            answer = {"value": plain.encode(function(*args, **kwargs))}
        except BaseException as exc:
            _give(answers, raised(exc), exc)
            break
        _give(answers, answer)
    main.__results__ = answers


STREAMED = 32_000
_streamed = [0]
_recorder: list = [None]  # what the code under test tried, in answer_calls


def _give(answers: list, answer: dict, exc: BaseException | None = None) -> None:
    """An answer, after what was tried while it was computed ({"tried": [...]})."""
    recorder = _recorder[0]
    if exc is not None:
        with recorder.paused() if recorder else contextlib.nullcontext():
            exception_text.print_exception(exc)
    tried = recorder.drain() if recorder else []
    for item in ([{"tried": tried}] if tried else []) + [answer]:
        answers.append(item)
        line = plain.ANSWER_PREFIX + json.dumps(item) + "\n"
        _streamed[0] += len(line)
        if _streamed[0] <= STREAMED:
            sys.stdout.write(line)
            sys.stdout.flush()



def check_by_value(code: str, entry: str) -> None:
    """`check(candidate)` here, where `candidate` calls the subject's function by value. The
    task's prompt (for its helpers) and test come on stdin as JSON, read only once the subject
    is forked, so that the code under test never holds the test."""
    undumpable()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]
    subject = Subject(code, entry)
    try:
        spec = json.loads(sys.stdin.read())
        import random

        random.seed(plain.RANDOM_SEED)
        namespace: dict = {"__name__": "__judge__"}
        run_source(spec["prompt"], "<prompt>", namespace)
        subject.ready()

        def candidate(*args: object, **kwargs: object) -> object:
            return subject.call(*args, **kwargs)

        namespace[entry] = candidate  # a test may call the function by its name
        run_source(spec["test"], "<test>", namespace)
        namespace["check"](candidate)
    finally:
        _closed(subject)


def check_names(code: str) -> None:
    """A test of code whose hole the model filled with Python: the test runs here, the code in a
    subject. Stdin (JSON) holds the test and the case's own imports ({name: [module, attribute
    or null]}, read from the context before it was filled): those names are imported here. Any
    other name the test reads is asked for: data arrives as a plain value, a function as a
    stand-in that calls it by value. Builtins are always this process's own: the code cannot
    lend the test a `len` or a `repr`, nor name a module for it to import."""
    undumpable()
    sys.path[:] = [p for p in sys.path if p not in ("", ".", os.getcwd())]
    subject = Subject(code)
    try:
        spec = json.loads(sys.stdin.read())
        import random

        random.seed(plain.RANDOM_SEED)
        subject.ready()
        namespace: dict = {"__name__": "__main__"}  # as the test would run in one program
        imports = spec.get("imports") or {}
        for name in free_names(spec["test"]):
            if name in imports:
                namespace[name] = imported(*imports[name])
            else:
                _bind(namespace, name, subject)
        run_source(spec["test"], "<test>", namespace)
    finally:
        _closed(subject)


def _closed(subject: Subject) -> None:
    """End the subject, and say what its code tried (printed: the check may have failed)."""
    subject.close()
    if subject.tried:
        sys.stdout.write(plain.ANSWER_PREFIX + json.dumps({"tried": list(subject.tried)}) + "\n")
        sys.stdout.flush()


def free_names(source: str) -> list[str]:
    """The names a test reads that are not builtins (those it may also assign are included:
    a test may read `result` before it rebinds it)."""
    import ast
    import builtins

    found = {node.id for node in ast.walk(ast.parse(source)) if isinstance(node, ast.Name)}
    return sorted(n for n in found if not hasattr(builtins, n))


def imported(module: str, attribute: str | None) -> object:
    """What `import module` or `from module import attribute` binds."""
    import importlib

    if attribute is None:  # `import a.b` loads a.b and binds a
        importlib.import_module(module)
        return importlib.import_module(module.split(".")[0])
    found = importlib.import_module(module)
    try:
        return getattr(found, attribute)
    except AttributeError:
        return importlib.import_module(f"{module}.{attribute}")


def _bind(namespace: dict, name: str, subject: Subject) -> None:
    """Read once, before the test runs: a test sees the values the code left, not later ones."""
    try:
        message = subject.ask(name)
    except NameError:
        return  # the test may define it itself; if not, it fails as it would have
    if "value" in message:
        namespace[name] = message["value"]
    elif message.get("callable") is True:
        namespace[name] = functools.partial(subject.call_named, name)


def run_source(source: str, filename: str, namespace: dict) -> None:
    """exec trusted source, with its lines in linecache so that tracebacks quote them."""
    import linecache

    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compile(source, filename, "exec"), namespace)
