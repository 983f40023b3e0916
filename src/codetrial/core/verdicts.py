"""The verdicts every suite speaks (see DESIGN.md, "Verdicts")."""

from __future__ import annotations

from enum import StrEnum


class Verdict(StrEnum):
    """Outcome of one test, or of one attempt when no test could run."""

    PASSED = "passed"
    FAILED = "failed"
    ERROR = "error"
    TIMEOUT = "timeout"
    OOM = "oom"
    # attempt-level only: the model's reply never reached the tests
    NOT_GENERATED = "not-generated"
    MALFORMED = "malformed"
    SANDBOX_ERROR = "sandbox-error"
    INFRA_ERROR = "infra-error"

    @property
    def meaning(self) -> str:
        """What the verdict says, in the words a report puts beside it."""
        return MEANINGS[self]

    @property
    def is_infra(self) -> bool:
        """Infra errors are the harness's fault: retried on resume, never a model failure."""
        return self in (Verdict.INFRA_ERROR, Verdict.SANDBOX_ERROR)


MEANINGS = {
    Verdict.PASSED: "every test passed",
    Verdict.FAILED: "a test's check failed",
    Verdict.ERROR: "the code raised, or did not build",
    Verdict.TIMEOUT: "the code ran past its time limit",
    Verdict.OOM: "the code ran out of memory",
    Verdict.NOT_GENERATED: "the reply held no code",
    Verdict.MALFORMED: "the reply's edits could not be applied",
    Verdict.SANDBOX_ERROR: "the sandbox failed (not counted)",
    Verdict.INFRA_ERROR: "the model's API failed (not counted)",
}


class SchemaVerdict(StrEnum):
    """Per-task verdict of the spec-to-code suite."""

    OK = "ok"
    PARTIAL = "partial"
    FAILURE = "failure"
    COMPILE = "compile"
