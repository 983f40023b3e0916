"""Figures of an agent run: steps and tokens spent, tool calls by kind, commands that failed,
malformed calls, what ended each try, and time in the model against time in the tools."""

from __future__ import annotations

from collections import Counter
from typing import Any

from codetrial.core import Attempt, Sample


def is_agent_attempt(attempt: Attempt) -> bool:
    return "transcript" in attempt.details


def agent_figures(samples: list[Sample]) -> dict[str, Any]:
    """Per case (sample) means, and totals by kind; {} when no attempt was an agent's."""
    attempts = [a for s in samples for a in s.attempts if is_agent_attempt(a)]
    if not attempts:
        return {}
    cases = max(len({(s.task_id, s.index) for s in samples
                     if any(is_agent_attempt(a) for a in s.attempts)}), 1)
    calls: Counter[str] = Counter()
    ended: Counter[str] = Counter()
    for attempt in attempts:
        calls.update(attempt.details.get("tool_calls") or {})
        ended[str(attempt.details.get("ended_by") or "unknown")] += 1
    model = sum(a.model_seconds for a in attempts)
    tools = sum(float(a.details.get("tool_seconds") or 0.0) for a in attempts)
    return {
        "steps_per_case": sum(int(a.details.get("steps") or 0) for a in attempts) / cases,
        "tokens_per_case": sum(a.prompt_tokens + a.completion_tokens for a in attempts) / cases,
        "tool_calls": dict(sorted(calls.items())),
        "malformed_calls": sum(int(a.details.get("malformed_calls") or 0) for a in attempts),
        "failed_commands": sum(int(a.details.get("failed_commands") or 0) for a in attempts),
        "tries_ended_by": dict(sorted(ended.items())),
        "model_seconds_vs_tool_seconds": f"{model:.1f} / {tools:.1f}",
    }
