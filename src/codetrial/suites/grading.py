"""Turn what the sandbox says happened into a verdict."""

from __future__ import annotations

import builtins
import functools
import json
import linecache
import random
import types
from collections.abc import Callable
from dataclasses import dataclass
from types import CodeType
from typing import Any

from codetrial.core import TestResult, Verdict
from codetrial.inside import exception_text
from codetrial.inside import plain as _plain
from codetrial.inside.plain import ANSWER_PREFIX, RANDOM_SEED
from codetrial.sandbox import Limits, Outcome, Program, Sandbox
from codetrial.sandbox.judged import judged_program
from codetrial.suites.answers import (
    answer_lines_in,
    answers_of,
    is_tried,
    printed_answers,
    program_output,
    tried_details,
)
from codetrial.suites.base import Grade

_BY_STATUS = {
    "ok": Verdict.PASSED,
    "timeout": Verdict.TIMEOUT,
    "oom": Verdict.OOM,
    "output_limit": Verdict.ERROR,
    "sandbox_error": Verdict.SANDBOX_ERROR,
}


def exception_name(outcome: Outcome) -> str:
    """The exception that ended a program: from its report, else the traceback's last line."""
    report = outcome.report if isinstance(outcome.report, dict) else {}
    if report.get("exception"):
        return str(report["exception"])
    lines = [ln for ln in outcome.stderr.strip().splitlines() if ln and not ln.startswith(" ")]
    return lines[-1].split(":", 1)[0].strip() if lines else ""


def verdict_of(outcome: Outcome) -> Verdict:
    """A failed assertion is a failed test; any other exception is an error in the program."""
    if outcome.status in _BY_STATUS:
        return _BY_STATUS[outcome.status]
    name = exception_name(outcome)
    if name.endswith("MemoryError"):
        return Verdict.OOM
    return Verdict.FAILED if name.endswith("AssertionError") else Verdict.ERROR


def failure_text(outcome: Outcome, limit: int = 4000) -> str:
    """What the program printed (its answer lines left out), else how the sandbox ended it."""
    lines = outcome.stdout.split("\n")
    stdout = "\n".join(ln for ln in lines if not ln.startswith(ANSWER_PREFIX))
    text = stdout + ("\n" if stdout and outcome.stderr else "") + outcome.stderr
    return (text or outcome.detail)[-limit:]


# ---------------------------------------------------------------- checks by value
#
# A test like HumanEval's `check(candidate)` calls one function with data. It is run here, in
# the harness, twice: once with the reference solution to record every call's arguments, and
# once per sample with a `candidate` that replays the model's answers to those calls, computed
# in the sandbox as plain values (see inside/judge.py). The model's code never runs in the
# process that judges it, so no patched builtin, lying __eq__ or early exit can pass a check.
# Inputs a test draws at random come from a seeded generator, the same on both runs.


class Diverged(Exception):
    """The test called the candidate with other arguments than it did the reference."""


class _RanOut(Exception):
    """The program ended before it answered this call."""


@dataclass(frozen=True)
class CallCheck:
    """`test` defines check(candidate); `prelude` (trusted: the task's prompt) defines helpers
    the test may use; `reference` is trusted source of a correct `entry`."""

    prelude: str
    test: str
    entry: str
    reference: str


@dataclass
class Replay:
    verdict: Verdict
    message: str = ""
    ran_out: bool = False  # the check reached a call the program had not answered
    unfinished: bool = False  # every answer printed passed, but the program never finished


async def grade_by_value(check: CallCheck, code: str, sandbox: Sandbox, limits: Limits) -> Grade:
    """The model's `check.entry` answers the test's calls in the sandbox; the test judges the
    answers here, in its own order, as they stream out: the first that fails its check decides
    (as the check itself would stop at that assertion, whatever later calls would do) and ends
    the program. Should the test call with other arguments than it did the reference, the
    whole check runs in the sandbox instead, apart from the model's code (codetrial_judge)."""
    calls = record_calls(check)
    program = Program(code=judged_program("answer_calls", code, check.entry),
                      stdin=calls_text(check, calls))
    outcome = await sandbox.run(program, limits, watch=_Decided(check, calls))
    try:
        replayed = replay(check, calls, answers_of(outcome), outcome)
    except Diverged:
        return await _grade_apart(check, code, sandbox, limits)
    message = "" if replayed.verdict == Verdict.PASSED else _join(replayed.message,
                                                                   program_output(outcome))
    forged = (FORGED_ANSWERS,) if _printed_its_own(outcome) else ()
    details = tried_details(outcome, forged + ((UNFINISHED,) if replayed.unfinished else ()))
    return Grade(replayed.verdict, [TestResult("check", replayed.verdict, message)], message,
                 outcome.wall_seconds, details)


FORGED_ANSWERS = "printed:answer lines its judge did not give"
UNFINISHED = "printed:a passing answer to every call, then never finished"


def _printed_its_own(outcome: Outcome) -> bool:
    """A program that ran to its end printed more answer lines than its judge gave (counted,
    not parsed: every sample's output is read here). What it printed never passed it: a
    finished program's answers are its report; one that is stopped or killed passes nothing
    its printed lines do not."""
    if outcome.status != "ok" or not isinstance(outcome.report, list):
        return False
    return answer_lines_in(outcome.stdout) > len(outcome.report)


class _Decided:
    """The watch of a sample as it runs: whether an answer printed so far fails its check (the
    verdict stands then, whatever later calls would do; a test that takes another path is left
    to the end). Each look parses only the lines new since the last, and judges again only
    when they hold a new answer (`printed` grows by whole lines)."""

    def __init__(self, check: CallCheck, calls: list[Any]) -> None:
        self.check, self.calls = check, calls
        self.parsed = 0  # characters of the printed text read so far
        self.answers: list[Any] = []
        self.judged = 0  # answers the last judgment had
        self.garbled = False  # an answer line that is not JSON: none after it counts
        self.diverged = False  # the test took another path: it would again, at the same call

    def __call__(self, printed: str) -> bool:
        end = printed.rfind("\n") + 1
        if end > self.parsed and not self.garbled:
            lines = printed[self.parsed:end]
            new = printed_answers(lines)
            self.garbled = len(new) < answer_lines_in(lines)
            self.answers += [a for a in new if not is_tried(a)]
            self.parsed = end
        if self.diverged or len(self.answers) == self.judged:
            return False
        self.judged = len(self.answers)
        try:
            replayed = replay(self.check, self.calls, self.answers, None, shown=False)
        except Diverged:
            self.diverged = True
            return False
        return not replayed.ran_out and replayed.verdict != Verdict.PASSED


async def _grade_apart(check: CallCheck, code: str, sandbox: Sandbox, limits: Limits) -> Grade:
    spec = json.dumps({"prompt": check.prelude, "test": check.test})
    program = judged_program("check_by_value", code, check.entry)
    outcome = await sandbox.run(Program(code=program, stdin=spec), limits)
    verdict = verdict_of(outcome)
    message = "" if outcome.status == "ok" else failure_text(outcome)
    return Grade(verdict, [TestResult("check", verdict, message)], message, outcome.wall_seconds,
                 {"judged": "apart", **tried_details(outcome)})


def _join(*parts: str) -> str:
    return "\n".join(p.rstrip() for p in parts if p.strip())


_recorded: dict[CallCheck, list[Any]] = {}


def record_calls(check: CallCheck) -> list[Any]:
    """The arguments of every call `check` makes, encoded, when the candidate is correct: once
    per process, or read from the suite data cache (see recorded_calls.py)."""
    calls = _recorded.get(check)
    if calls is None:
        calls = _recorded[check] = _record(check)
    return calls


def known_calls(check: CallCheck, calls: list[Any], text: str | None = None) -> None:
    """What record_calls(check) would return, recorded earlier (a wrong list costs speed, not
    verdicts: replay compares every call the test makes with it); `text`: the same as JSON."""
    _recorded[check] = calls
    if text is not None:
        _calls_texts[check] = (calls, text)


_calls_texts: dict[CallCheck, tuple[list[Any], str]] = {}


def calls_text(check: CallCheck, calls: list[Any]) -> str:
    """`calls` (record_calls(check)) as the JSON the program reads, written once per list."""
    known = _calls_texts.get(check)
    if known is None or known[0] is not calls:
        known = _calls_texts[check] = (calls, json.dumps(calls))
    return known[1]


def _record(check: CallCheck) -> list[Any]:
    reference: dict[str, Any] = _namespace()
    exec(compile(check.reference, "<reference>", "exec"), reference)
    calls: list[Any] = []

    def recorder(*args: Any, **kwargs: Any) -> Any:
        calls.append(_plain.encode((args, kwargs)))
        fresh_args, fresh_kwargs = _plain.decode(calls[-1])  # what the sandbox will get
        return reference[check.entry](*fresh_args, **fresh_kwargs)

    _run_check(check, recorder)
    return calls


def replay(check: CallCheck, calls: list[Any], answers: list[Any], ended: Outcome | None,
           shown: bool = True) -> Replay:
    """Judge the model's answers; `ended` says how its program ended (for calls it never
    answered; None: it still runs). Raises Diverged when the test takes another path than with
    the reference. `shown=False`: nobody reads the message (a judgment from another thread,
    which must leave linecache, and so the lines other messages quote, alone)."""
    position = iter(range(len(calls) + 1))

    def candidate(*args: Any, **kwargs: Any) -> Any:
        k = next(position)
        if k >= len(calls) or _plain.encode((args, kwargs)) != calls[k]:
            raise Diverged(f"call {k + 1} differs from the reference run's")
        if k >= len(answers):
            raise _RanOut
        return _answer_value(answers[k])

    try:
        _run_check(check, candidate, shown)
    except (Diverged, KeyboardInterrupt):
        raise
    except _RanOut:
        ended_badly = ended is not None and ended.status != "ok"
        return Replay(verdict_of(ended) if ended_badly else Verdict.ERROR,
                      "the program ended before it answered every call of the test",
                      ran_out=True)
    except Exception as exc:  # noqa: BLE001 - any failure of the check is the answer's
        return Replay(_exception_verdict(exc), _traceback_text(exc) if shown else "")
    if ended is not None and ended.status != "ok":  # only printed lines: the code may write them
        return Replay(verdict_of(ended), "the program did not finish: the answers it printed "
                      "can fail it, never pass it", ran_out=True, unfinished=True)
    return Replay(Verdict.PASSED)


def _answer_value(answer: Any) -> Any:
    if not isinstance(answer, dict):
        raise TypeError("the program's answer is not a codetrial answer")
    if "raised" in answer:
        raise _plain.exception_named(str(answer["raised"]), str(answer.get("message", "")))
    try:
        return _plain.decode(answer["value"])
    except (KeyError, ValueError, TypeError) as exc:
        raise TypeError(f"the program's answer is not plain data: {exc}") from None


def _exception_verdict(exc: BaseException) -> Verdict:
    if isinstance(exc, AssertionError):
        return Verdict.FAILED
    return Verdict.OOM if isinstance(exc, MemoryError) else Verdict.ERROR


def _traceback_text(exc: BaseException) -> str:
    """As Python prints it, less the carets: those parse each line again (a tenth of the
    harness's time in an import of samples as models write them)."""
    lines = exception_text.exception_lines(exc)
    keep = [ln for ln in lines if __file__ not in ln]  # our frames are noise to the reader
    return "".join(keep)[-4000:]


PRELUDE_FILE, TEST_FILE = "<prompt>", "<test>"
_known_code: dict[tuple[str, str], CodeType] = {}


def check_sources(check: CallCheck) -> tuple[tuple[str, str], ...]:
    """The (source, filename) pairs a check compiles each time it runs."""
    return (check.prelude, PRELUDE_FILE), (check.test, TEST_FILE)


def compiled(source: str, filename: str) -> CodeType:
    """The code of `source`: given by known_code (read from the suite data cache), else
    compiled here, as Python runs a file: none of this module's __future__ flags, and asserts
    kept whatever -O says (the checks are asserts)."""
    code = _known_code.get((source, filename))
    return code if code is not None else _compile(source, filename)


def known_code(source: str, filename: str, code: CodeType) -> None:
    """What compiled(source, filename) will return: the caller vouches it is that source's."""
    _known_code[(source, filename)] = code


@functools.lru_cache(maxsize=512)
def _compile(source: str, filename: str) -> CodeType:
    return compile(source, filename, "exec", dont_inherit=True, optimize=0)


def _run_check(check: CallCheck, candidate: Callable[..., Any], shown: bool = True) -> None:
    namespace = _namespace()
    _exec_source(check.prelude, PRELUDE_FILE, namespace, shown)
    namespace[check.entry] = candidate  # a test may call the function by its name
    _exec_source(check.test, TEST_FILE, namespace, shown)
    namespace["check"](candidate)


def _exec_source(source: str, filename: str, namespace: dict[str, Any], shown: bool) -> None:
    if shown:  # the lines a traceback of this run quotes
        linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    exec(compiled(source, filename), namespace)


def _namespace() -> dict[str, Any]:
    """Globals for trusted test code: `import random` gives a generator of its own, seeded
    (made at the first import: most tests never draw)."""
    own_random: list[types.ModuleType] = []

    def importer(name: str, *args: Any, **kwargs: Any) -> Any:
        if name == "random":
            if not own_random:
                own_random.append(_seeded_random())
            return own_random[0]
        return builtins.__import__(name, *args, **kwargs)

    return {"__name__": "__check__", "__builtins__": {**vars(builtins), "__import__": importer}}


# random's functions that draw from its hidden generator (its classes stay as they are)
_DRAWING = [name for name in random.__all__ if not isinstance(getattr(random, name), type)]


def _seeded_random() -> types.ModuleType:
    generator = random.Random(RANDOM_SEED)
    module = types.ModuleType("random")
    module.__dict__.update(vars(random))
    module.__dict__.update({name: getattr(generator, name) for name in _DRAWING})
    return module
