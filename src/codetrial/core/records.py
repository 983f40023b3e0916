"""Task, TestResult, Attempt and Sample: what flows from suites through protocols to the store."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from codetrial.core.verdicts import Verdict


@dataclass(frozen=True)
class Task:
    """One problem of a suite. `data` holds what only the suite and its protocol understand."""

    id: str
    suite: str
    prompt: str
    data: dict[str, Any] = field(default_factory=dict)


@dataclass
class TestResult:
    __test__ = False  # not a pytest test class

    name: str
    verdict: Verdict
    message: str = ""


@dataclass
class Attempt:
    """One try: the request sent, the reply, what was run and how it went."""

    try_index: int
    verdict: Verdict
    request: Any = None
    reply: str = ""
    code: str = ""
    output: str = ""
    tests: list[TestResult] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)
    model_seconds: float = 0.0
    test_seconds: float = 0.0
    prompt_tokens: int = 0
    completion_tokens: int = 0  # reasoning tokens included, as billed
    cost_usd: float | None = None  # as the replies would cost fresh; None: no price known
    reasoning_tokens: int = 0

    @property
    def cost_known(self) -> bool:
        """An unpriced try that used no tokens (a reference answer, an infra error) cost 0."""
        return self.cost_usd is not None or not (self.prompt_tokens or self.completion_tokens)

    @property
    def paid_usd(self) -> float:
        """What this try cost this run: replies answered from the cache cost nothing."""
        cost = self.cost_usd or 0.0
        if "cached_usd" in self.details:  # a try of several replies, some cached
            return cost - self.details["cached_usd"]
        return 0.0 if self.details.get("cached") else cost


@dataclass
class Sample:
    """The n-th answer of a model to a task, after all its tries."""

    task_id: str
    index: int
    attempts: list[Attempt] = field(default_factory=list)
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def verdict(self) -> Verdict:
        if not self.attempts:
            return Verdict.INFRA_ERROR
        return self.attempts[-1].verdict

    @property
    def passed(self) -> bool:
        return self.verdict == Verdict.PASSED

    @property
    def is_infra_error(self) -> bool:
        return self.verdict.is_infra

    def total(self, attr: str) -> float:
        return sum(getattr(a, attr) or 0 for a in self.attempts)
