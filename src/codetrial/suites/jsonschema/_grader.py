"""Runs inside the sandbox: load candidate `validate` functions and ask them about instances.

Standalone on purpose (stdlib only, never imports codetrial). It reads `cases.json`, a list of
{"code": source, "instances": [JSON text, ...]}, and leaves in `__results__` one entry per case:
{"load": "ok" or why the code did not load, "answers": [[kind, value], ...], "tried": [...]}
with kind "bool" (value True/False), "error" or "timeout" (value: the reason), and what the
code tried (the worker's `codetrial_audit` hook, installed before any candidate runs). Expected
answers never enter the sandbox: the harness keeps them and compares.
"""

import json
import signal

LOAD_SECONDS = 10.0
CALL_SECONDS = 2.0
AFTER_TIMEOUT_SECONDS = 0.1  # once a validator has hung, it gets a short leash


class CallTimeout(BaseException):
    """Raised by the alarm; a BaseException so that `except Exception` in candidates misses it."""


def on_alarm(signum, frame):
    raise CallTimeout()


def describe(exc):
    if isinstance(exc, SyntaxError):
        return f"SyntaxError: {exc.msg} (line {exc.lineno})"
    return f"{type(exc).__name__}: {exc}"[:1000]


def timed(seconds, fn, *args):
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        return fn(*args)
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)


def load(code):
    """The candidate's `validate`, or None and why not."""
    namespace = {"__name__": "candidate", "__builtins__": __builtins__}
    try:
        timed(LOAD_SECONDS, exec, compile(code, "candidate.py", "exec"), namespace)
    except CallTimeout:
        return None, f"loading took over {LOAD_SECONDS:g}s"
    except BaseException as exc:  # SyntaxError, ImportError, SystemExit, anything
        return None, describe(exc)
    validate = namespace.get("validate")
    if not callable(validate):
        return None, "the code defines no function named validate"
    return validate, "ok"


def ask(validate, text, seconds):
    try:
        got = timed(seconds, validate, json.loads(text))
    except CallTimeout:
        return ["timeout", f"took over {seconds:g}s"]
    except BaseException as exc:
        return ["error", describe(exc)]
    if got is True or got is False:
        return ["bool", got]
    return ["error", f"returned {type(got).__name__} {repr(got)[:80]}, not a bool"]


def run_case(case, recorder):
    validate, status = load(case["code"])
    if validate is None:
        return {"load": status, "answers": [], "tried": tried(recorder)}
    answers, seconds = [], CALL_SECONDS
    for text in case["instances"]:
        answers.append(ask(validate, text, seconds))
        if answers[-1][0] == "timeout":
            seconds = AFTER_TIMEOUT_SECONDS
    return {"load": "ok", "answers": answers, "tried": tried(recorder)}


def tried(recorder):
    return recorder.drain() if recorder is not None else []


def audit():
    """The worker's audit hook module, when there is one (not in a plain interpreter)."""
    try:
        import codetrial_audit
    except ImportError:
        return None
    import os

    return codetrial_audit.install(os.getcwd(), [])


def main():
    signal.signal(signal.SIGALRM, on_alarm)
    with open("cases.json", encoding="utf-8") as f:
        cases = json.load(f)
    recorder = audit()
    return [run_case(case, recorder) for case in cases]


if __name__ == "__main__":
    __results__ = main()
