"""Shared vocabulary of codetrial."""

from codetrial.core.errors import InfraError, UsageError
from codetrial.core.records import Attempt, Sample, Task, TestResult
from codetrial.core.verdicts import SchemaVerdict, Verdict

__all__ = [
    "Attempt", "InfraError", "Sample", "SchemaVerdict", "Task", "TestResult", "UsageError",
    "Verdict",
]
