"""A protocol is the only place that knows both a request's shape and a reply's shape."""

from __future__ import annotations

import time
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from codetrial.core import Attempt, InfraError, Sample, Task, Verdict
from codetrial.core.registry import Registry
from codetrial.models.base import Model, Reply, Request

if TYPE_CHECKING:
    from codetrial.sandbox import Sandbox
    from codetrial.suites.base import Suite


@dataclass(frozen=True)
class Sampling:
    """The run's model settings, as every request of it carries them (None: not set)."""

    temperature: float | None = None
    top_p: float | None = None
    max_tokens: int = 4096
    seed: int | None = None
    reasoning_effort: str | None = None
    thinking_budget: int | None = None

    def request(self, sample_index: int = 0, **fields: Any) -> Request:
        return Request(temperature=self.temperature, top_p=self.top_p,
                       max_tokens=self.max_tokens, seed=self.seed,
                       reasoning_effort=self.reasoning_effort,
                       thinking_budget=self.thinking_budget, sample_index=sample_index, **fields)


@dataclass
class SampleContext:
    """Everything one sample needs; built by the runner, read by protocols."""

    suite: Suite
    model: Model
    sandbox: Sandbox
    sampling: Sampling
    index: int = 0
    options: dict[str, Any] = field(default_factory=dict)

    def request(self, **fields: Any) -> Request:
        return self.sampling.request(self.index, **fields)


REASONING_BUDGET = 32_768  # a reasoning model spends thousands of tokens before it answers


class Protocol(ABC):
    """`output_budget` is the default max_tokens: enough that a capable model's answer is
    never cut short (a reply the budget ends is counted as truncated); `request_kind` is the
    shape of its requests."""

    name: str
    output_budget: int = 4096
    request_kind: str = "chat"

    def budget(self, reasoning: bool) -> int:
        return max(self.output_budget, REASONING_BUDGET) if reasoning else self.output_budget

    def check(self, suite: Suite, options: dict[str, Any], model_name: str) -> None:  # noqa: B027
        """Raise UsageError when this protocol cannot run `suite` with these options: called
        before a run is stored, so a bad option is one clear line, not a run of infra errors."""

    @abstractmethod
    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        """Produce one sample: ask the model, grade what it wrote, maybe try again."""


async def ask(ctx: SampleContext, request: Request) -> tuple[Reply | None, Attempt | None]:
    """Call the model; a provider fault becomes an infra-error attempt instead of an exception."""
    start = time.perf_counter()
    try:
        reply = await ctx.model.generate(request)
    except InfraError as exc:
        return None, Attempt(0, Verdict.INFRA_ERROR, request=_public(request), output=str(exc),
                             model_seconds=time.perf_counter() - start)
    return reply, None


def attempt_from_reply(try_index: int, request: Request, reply: Reply) -> Attempt:
    """An attempt with the model side filled in; the protocol adds code and verdict."""
    return Attempt(
        try_index=try_index, verdict=Verdict.NOT_GENERATED, request=_public(request),
        reply=reply.text, model_seconds=reply.latency_seconds,
        prompt_tokens=reply.usage.prompt_tokens, completion_tokens=reply.usage.completion_tokens,
        reasoning_tokens=reply.usage.reasoning_tokens, cost_usd=reply.cost_usd,
        details={"finish_reason": reply.finish_reason, "cached": reply.cached,
                 "tool_calls": [c.to_dict() for c in reply.tool_calls]},
    )


def _public(request: Request) -> dict[str, Any]:
    fields = request.cache_key_fields()
    return {k: v for k, v in fields.items() if v not in (None, [], "")}


ProtocolFactory = Callable[[], Protocol]
PROTOCOLS: Registry[ProtocolFactory] = Registry("protocol", "codetrial.protocols")
protocol = PROTOCOLS.register


async def graded(ctx: SampleContext, task: Task, attempt: Attempt, program: str) -> Attempt:
    """Run a candidate program through the suite's grader and record the outcome."""
    grade = await ctx.suite.grade(task, program, ctx.sandbox)
    attempt.code = program
    attempt.verdict = grade.verdict
    attempt.tests = grade.tests
    attempt.output = grade.output
    attempt.test_seconds = grade.seconds
    attempt.details.update(grade.details)
    return attempt
