"""Turn what the sandbox says happened into a verdict."""

from __future__ import annotations

from codetrial.core import Verdict
from codetrial.sandbox import Outcome

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
    text = (outcome.stdout + ("\n" if outcome.stdout and outcome.stderr else "") + outcome.stderr)
    text = text or outcome.detail
    return text[-limit:]
