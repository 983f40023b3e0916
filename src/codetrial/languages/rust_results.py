"""Per-test results of one libtest binary, read strictly.

libtest prints `running N tests`, one `test NAME ... ok|FAILED` line per test, then the failures
and `test result: ok|FAILED. P passed; F failed; ...`, and exits 0 or 101. The model's code
shares the process and may print to the real stdout, so a result counts only where it fits
that accounting: each test once, between the start and the summary, the summary's counts and the
exit status agreeing with the lines. A binary that ends without its summary (an exit, a signal)
fails every test it ran; a misfit fails them too and is reported as evidence of a forged result.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codetrial.core import TestResult, Verdict

_RUNNING = re.compile(r"^running (\d+) tests?$")
_RESULT = re.compile(r"^test (\S+) \.\.\. (ok|FAILED|ignored)\b")
_SUMMARY = re.compile(r"^test result: (ok|FAILED)\. (\d+) passed; (\d+) failed; (\d+) ignored")
_FAILURE = re.compile(r"^---- (\S+) stdout ----\n(.*?)(?=^---- |^failures:$|\Z)", re.M | re.S)


@dataclass
class LibtestRun:
    results: dict[str, str] = field(default_factory=dict)
    running: int | None = None
    summary: tuple[str, int, int, int] | None = None
    forged: list[str] = field(default_factory=list)

    def tests(self, text: str, exit_code: int | None) -> list[TestResult]:
        problem = self._problem(exit_code)
        messages = dict(_FAILURE.findall(text))
        found = []
        for name, word in self.results.items():
            passed = word == "ok" and problem is None
            message = messages.get(name, "").strip()[-4000:]
            if word == "ok" and problem:
                message = f"reported ok, but {problem}"
            found.append(TestResult(name, Verdict.PASSED if passed else Verdict.FAILED, message))
        return found

    def _problem(self, exit_code: int | None) -> str | None:
        if self.forged:
            return "the run's accounting does not hold: " + "; ".join(self.forged)
        if self.summary is None:
            return f"the test binary ended (exit status {exit_code}) before its summary"
        word, passed, failed, ignored = self.summary
        counted = [sum(1 for w in self.results.values() if w == k)
                   for k in ("ok", "FAILED", "ignored")]
        if counted != [passed, failed, ignored] or self.running != len(self.results):
            self.forged.append(f"the summary ({passed} passed, {failed} failed) and the start "
                               f"({self.running} tests) do not match the {len(self.results)} "
                               "result lines")
            return "the run's accounting does not hold: " + "; ".join(self.forged)
        if exit_code != (0 if word == "ok" else 101):
            return f"its summary says {word} but it exited with status {exit_code}"
        return None


def read_libtest(text: str, exit_code: int | None) -> tuple[list[TestResult], list[str]]:
    """Per-test results of one binary's output and exit status, and the evidence of forgery."""
    run = _lines(text)
    return run.tests(text, exit_code), run.forged


def _lines(text: str) -> LibtestRun:
    run = LibtestRun()
    in_failures = False  # captured output of failed tests follows: any text, no results
    for line in text.splitlines():
        if match := _SUMMARY.match(line):
            if run.summary is not None:
                run.forged.append("a second summary line")
            run.summary = (match.group(1), *map(int, match.group(2, 3, 4)))
        elif run.summary is not None:
            if _RESULT.match(line) or _RUNNING.match(line):
                run.forged.append(f"a result line after the summary: {line[:80]!r}")
        elif match := _RUNNING.match(line):
            if run.running is not None:
                run.forged.append("a second `running` line")
            run.running = int(match.group(1))
        elif line == "failures:":
            in_failures = True
        elif (match := _RESULT.match(line)) and not in_failures:
            _result(run, match.group(1), match.group(2))
    return run


def _result(run: LibtestRun, name: str, word: str) -> None:
    if run.running is None:
        run.forged.append(f"a result for {name} before the run started")
    elif name in run.results:
        run.forged.append(f"{name} reported twice ({run.results[name]}, then {word})")
        run.results[name] = "FAILED"
    else:
        run.results[name] = word
