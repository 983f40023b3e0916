"""Write a stored run out as JSONL, CSV or HumanEval samples ({task_id, completion} lines)."""

from __future__ import annotations

import csv
import io
import json
from dataclasses import asdict
from typing import Any

from codetrial.core import Sample, UsageError

FORMATS = ("jsonl", "csv", "humaneval")
CSV_FIELDS = ("task_id", "sample_index", "verdict", "passed", "tries", "prompt_tokens",
              "completion_tokens", "reasoning_tokens", "cost_usd", "model_seconds",
              "test_seconds")


def sample_row(s: Sample) -> dict[str, Any]:
    return {
        "task_id": s.task_id, "sample_index": s.index, "verdict": s.verdict.value,
        "passed": s.passed, "tries": len(s.attempts),
        "prompt_tokens": s.total("prompt_tokens"),
        "completion_tokens": s.total("completion_tokens"),
        "reasoning_tokens": s.total("reasoning_tokens"),
        "cost_usd": s.total("cost_usd") if all(a.cost_known for a in s.attempts) else None,
        "model_seconds": s.total("model_seconds"), "test_seconds": s.total("test_seconds"),
    }


def export(samples: list[Sample], fmt: str, prompts: dict[str, str]) -> str:
    """`prompts` (task id -> code prompt) lets HumanEval export strip the prompt off programs."""
    if fmt == "jsonl":
        return "".join(json.dumps({**sample_row(s), "attempts": [asdict(a) for a in s.attempts]},
                                  default=str) + "\n" for s in samples)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.DictWriter(buffer, CSV_FIELDS)
        writer.writeheader()
        writer.writerows(sample_row(s) for s in samples)
        return buffer.getvalue()
    if fmt == "humaneval":
        return "".join(json.dumps({"task_id": s.task_id,
                                   "completion": _completion(s, prompts.get(s.task_id, ""))})
                       + "\n" for s in samples)
    raise UsageError(f"--format {fmt!r}: use one of {', '.join(FORMATS)}")


def _completion(sample: Sample, prompt: str) -> str:
    code = sample.attempts[-1].code if sample.attempts else ""
    return code[len(prompt):] if prompt and code.startswith(prompt) else code
