"""The figures of one run, recomputed from its stored samples."""

from __future__ import annotations

from collections import Counter, defaultdict
from dataclasses import dataclass, field
from typing import Any

from codetrial.core import Attempt, Sample
from codetrial.metrics.intervals import Estimate, bootstrap_mean, wilson
from codetrial.metrics.passk import pass_at_k
from codetrial.store import Store

KS = (1, 10, 100)


@dataclass
class RunSummary:
    tasks: int
    samples: int
    passed: int
    infra_errors: int
    pass_rate: Estimate
    pass_at: dict[int, Estimate | None]
    per_task: dict[str, tuple[int, int]]  # task -> (graded samples, passed)
    verdicts: dict[str, int] = field(default_factory=dict)
    tokens: int = 0
    reasoning_tokens: int = 0
    truncated_replies: int = 0
    cost_usd: float | None = 0.0  # what the run paid (cached replies free); None: unknown
    fresh_cost_usd: float | None = 0.0  # what it would cost with no reply cached
    model_seconds: float = 0.0
    test_seconds: float = 0.0
    tried: dict[str, Any] = field(default_factory=dict)

    def to_json(self) -> dict[str, Any]:
        return {
            "tasks": self.tasks,
            "samples": self.samples,
            "passed": self.passed,
            "infra_errors": self.infra_errors,
            "pass_rate": self.pass_rate.as_dict(),
            "pass_at": {str(k): (e.value if e else None) for k, e in self.pass_at.items()},
            "pass_at_interval": {str(k): (e.as_dict() if e else None)
                                 for k, e in self.pass_at.items()},
            "verdict_counts": self.verdicts,
            "tokens": self.tokens,
            "reasoning_tokens": self.reasoning_tokens,
            "truncated_replies": self.truncated_replies,
            "cost_usd": self.cost_usd,
            "fresh_cost_usd": self.fresh_cost_usd,
            "model_seconds": round(self.model_seconds, 3),
            "test_seconds": round(self.test_seconds, 3),
            "tried": self.tried,
        }


def summarize(samples: list[Sample], samples_per_task: int) -> RunSummary:
    """Infra errors are counted apart and left out of every rate."""
    per_task: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    verdicts: dict[str, int] = defaultdict(int)
    for s in samples:
        verdicts[s.verdict.value] += 1
        if not s.is_infra_error:
            per_task[s.task_id][0] += 1
            per_task[s.task_id][1] += int(s.passed)
    graded = sum(n for n, _ in per_task.values())
    passed = sum(c for _, c in per_task.values())
    return RunSummary(
        tasks=len({s.task_id for s in samples}),
        samples=len(samples),
        passed=passed,
        infra_errors=sum(s.is_infra_error for s in samples),
        pass_rate=wilson(passed, graded),
        pass_at={k: _pass_at(per_task, k) for k in KS if k <= max(samples_per_task, 1)},
        per_task={t: (n, c) for t, (n, c) in per_task.items()},
        verdicts=dict(verdicts),
        tokens=int(sum(s.total("prompt_tokens") + s.total("completion_tokens") for s in samples)),
        reasoning_tokens=int(sum(s.total("reasoning_tokens") for s in samples)),
        truncated_replies=sum(truncated(a) for s in samples for a in s.attempts),
        **costs(samples),
        model_seconds=sum(s.total("model_seconds") for s in samples),
        test_seconds=sum(s.total("test_seconds") for s in samples),
        tried=tried_figures(samples),
    )


def truncated(attempt: Attempt) -> int:
    """Replies the output budget ended (finish_reason "length"): an edit try counts its own."""
    if "truncated_replies" in attempt.details:
        return int(attempt.details["truncated_replies"])
    return int(attempt.details.get("finish_reason") == "length")


def costs(samples: list[Sample]) -> dict[str, float | None]:
    """Paid and fresh cost; both None ("unknown") when any reply has no known price."""
    attempts = [a for s in samples for a in s.attempts]
    if not all(a.cost_known for a in attempts):
        return {"cost_usd": None, "fresh_cost_usd": None}
    return {"cost_usd": sum(a.paid_usd for a in attempts),
            "fresh_cost_usd": sum(a.cost_usd or 0.0 for a in attempts)}


TRIED_SHOWN = 5  # what one sample tried, listed (the counts cover everything)


def tried_figures(samples: list[Sample]) -> dict[str, Any]:
    """Samples whose code tried to reach what it must not (files outside its directory, the
    frames of its caller, test machinery), from each attempt's details["tried"] ("kind:detail"
    strings): per kind, how many samples; and which samples. Reported apart: never a verdict."""
    kinds: Counter[str] = Counter()
    listed: dict[str, list[str]] = {}
    for sample in samples:
        tried = [str(t) for a in sample.attempts for t in a.details.get("tried") or []]
        if tried:
            kinds.update({t.split(":", 1)[0] for t in tried})
            listed[f"{sample.task_id}#{sample.index}"] = list(dict.fromkeys(tried))[:TRIED_SHOWN]
    return {"samples": len(listed), "kinds": dict(sorted(kinds.items())),
            "sample_ids": list(listed), "examples": listed}


def _pass_at(per_task: dict[str, list[int]], k: int) -> Estimate | None:
    """None (undefined, shown as such) when some task has fewer than k graded samples."""
    values = [pass_at_k(n, c, k) for n, c in per_task.values()]
    if not values or any(v is None for v in values):
        return None
    return bootstrap_mean(values)  # type: ignore[arg-type]


def run_summary(store: Store, run_id: str) -> dict[str, Any]:
    """Every figure recomputed from the store: nothing is kept only in memory."""
    from codetrial.suites import create_suite  # suites import metrics: import late

    record = store.get_run(run_id)
    samples = store.load_samples(run_id, texts=False)
    summary = summarize(samples, record.config.get("samples", 1))
    suite = create_suite(record.suite, record.config.get("suite_options", {}))
    return {
        "run_id": run_id, "suite": record.suite, "model": record.model,
        "protocol": record.config.get("protocol"),
        "suite_version": record.config.get("suite_version"),
        "finished": record.finished is not None,
        "planned_samples": record.config.get("planned_samples"),
        **summary.to_json(),
        **suite.summarize(samples),
    }
