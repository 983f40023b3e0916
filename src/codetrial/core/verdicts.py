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
    def is_infra(self) -> bool:
        """Infra errors are the harness's fault: retried on resume, never a model failure."""
        return self in (Verdict.INFRA_ERROR, Verdict.SANDBOX_ERROR)


class SchemaVerdict(StrEnum):
    """Per-task verdict of the spec-to-code suite."""

    OK = "ok"
    PARTIAL = "partial"
    FAILURE = "failure"
    COMPILE = "compile"
