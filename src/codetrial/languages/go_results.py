"""Per-test results of a Go test binary run with `-test.v=test2json`, read strictly.

The testing package marks its own lines with a leading ^V (0x16): `=== RUN`, `--- PASS:`, the
final `PASS`. The model's code shares the process and stdout, so a line it prints without the
mark is output, never a result, and one it prints with the mark must still fit the run's own
accounting: each test starts once and ends once, after it started, before the binary's final
line, and that line and the exit status agree with the tests. A test that started and never
ended (an exit, a signal, a crash inside it) fails; so does one whose lines do not fit, and
each misfit is reported as evidence of a forged result. `go tool test2json` is not used: it
credits the package's final pass to a test that was running when the binary exited.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from codetrial.core import TestResult, Verdict

MARK = "\x16"
_RESULT = re.compile(r"--- (PASS|FAIL|SKIP): (.+?) \(\d+(?:\.\d+)?s\)$")
_RUN = re.compile(r"=== (RUN|NAME|PAUSE|CONT) +(.*)$")


@dataclass
class GoRun:
    results: dict[str, str] = field(default_factory=dict)  # name -> PASS|FAIL|SKIP
    started: list[str] = field(default_factory=list)
    output: dict[str, list[str]] = field(default_factory=dict)
    final: str | None = None  # the binary's own last line: PASS or FAIL
    forged: list[str] = field(default_factory=list)

    def tests(self, exit_code: int | None) -> list[TestResult]:
        # no final line: tests that ended before the binary did keep their results
        ended_cleanly = self.final is None or exit_code == (0 if self.final == "PASS" else 1)
        if self.final == "PASS" and any(v == "FAIL" for v in self.results.values()):
            self.forged.append("the binary's final PASS follows a failed test")
            ended_cleanly = False
        found = []
        for name in self.started:
            verdict = self.results.get(name)
            if verdict is None:
                message = (f"the test binary ended during this test (exit status {exit_code}) "
                           "before it reported a result")
                found.append(TestResult(name, Verdict.FAILED, message))
                continue
            passed = verdict == "PASS" and ended_cleanly and not self.forged
            message = "" if passed else "".join(self.output.get(name, []))[-4000:]
            if verdict == "PASS" and not passed:
                message = ("reported a pass, but the run's accounting does not hold: "
                           + "; ".join(self.forged or [_unclean(self.final, exit_code)]))
            found.append(TestResult(name, Verdict.PASSED if passed else Verdict.FAILED, message))
        return found


def _unclean(final: str | None, exit_code: int | None) -> str:
    return f"the binary's final line says {final} but it exited with status {exit_code}"


def read_go_run(text: str, exit_code: int | None) -> tuple[list[TestResult], list[str]]:
    """Per-test results of the binary's output and exit status, and the evidence of forgery."""
    run = _lines(text)
    return run.tests(exit_code), run.forged


def _lines(text: str) -> GoRun:
    run = GoRun()
    current = ""
    for raw in text.splitlines():
        line = raw.lstrip(" ")
        if not line.startswith(MARK):
            run.output.setdefault(current, []).append(raw + "\n")
            continue
        line = line[1:]
        if run.final is not None:
            run.forged.append(f"a result line after the binary's final line: {line[:80]!r}")
            continue
        if line in ("PASS", "FAIL"):
            run.final = line
        elif match := _RUN.match(line):
            current = match.group(2)
            if match.group(1) == "RUN":
                _started(run, current)
        elif match := _RESULT.match(line):
            _ended(run, match.group(2), match.group(1))
    return run


def _started(run: GoRun, name: str) -> None:
    if name in run.started:
        run.forged.append(f"{name} started twice")
    else:
        run.started.append(name)


def _ended(run: GoRun, name: str, verdict: str) -> None:
    if name not in run.started:
        run.forged.append(f"a result for {name}, which never started")
    elif name in run.results:
        run.forged.append(f"{name} reported twice ({run.results[name]}, then {verdict})")
        run.results[name] = "FAIL"
    else:
        run.results[name] = verdict
