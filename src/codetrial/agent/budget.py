"""What one try of the agent may spend: tool calls, tokens, wall time; and what ended it."""

from __future__ import annotations

import math
import time
from dataclasses import dataclass, field
from typing import Any

from codetrial.core import UsageError

DEFAULTS = {"max_steps": 30, "max_try_tokens": 200_000, "max_try_seconds": 900.0,
            "command_timeout": 60.0}
# why a try ended: the model submitted, or one of the budgets ran out, or the model or the
# context window gave out
ENDINGS = ("submit", "steps", "tokens", "wall_time", "context_window", "infra_error")


def _number(options: dict[str, Any], key: str, whole: bool = False) -> float:
    value = options.get(key, DEFAULTS[key])
    try:
        number = float(value)
    except (TypeError, ValueError):
        number = -1.0
    if not (math.isfinite(number) and number > 0) or (whole and number != int(number)):
        kind = "a whole number" if whole else "a number"
        raise UsageError(f"--option {key}={value}: give {kind} above 0")
    return number


@dataclass(frozen=True)
class Budget:
    steps: int = int(DEFAULTS["max_steps"])
    tokens: int = int(DEFAULTS["max_try_tokens"])
    seconds: float = DEFAULTS["max_try_seconds"]
    command_timeout: float = DEFAULTS["command_timeout"]

    @classmethod
    def from_options(cls, options: dict[str, Any]) -> Budget:
        """From the suite options (--max-steps, --max-try-tokens, --max-try-seconds and
        -o command_timeout=S); a bad value is a usage error naming it."""
        return cls(int(_number(options, "max_steps", whole=True)),
                   int(_number(options, "max_try_tokens", whole=True)),
                   _number(options, "max_try_seconds"), _number(options, "command_timeout"))

    def settings(self) -> dict[str, Any]:
        return {"max_steps": self.steps, "max_try_tokens": self.tokens,
                "max_try_seconds": self.seconds, "command_timeout": self.command_timeout}


@dataclass
class Spent:
    """A try's running totals against its budget."""

    budget: Budget
    steps: int = 0
    tokens: int = 0
    started: float = field(default_factory=time.monotonic)

    def exhausted(self) -> str | None:
        """The budget that has run out, by its name in ENDINGS, or None."""
        if self.steps >= self.budget.steps:
            return "steps"
        if self.tokens >= self.budget.tokens:
            return "tokens"
        if time.monotonic() - self.started >= self.budget.seconds:
            return "wall_time"
        return None
