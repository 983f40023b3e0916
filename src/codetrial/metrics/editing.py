"""Figures of a code-editing run: pass rate after each try, well-formed replies, counters."""

from __future__ import annotations

from typing import Any

from codetrial.core import Sample, Verdict
from codetrial.metrics.intervals import t_interval, wilson

# truncated_replies: replies the output budget cut short (finish_reason "length"), counted
# whether or not what came through could be applied
COUNTERS = ("malformed_replies", "truncated_replies", "syntax_errors", "indentation_errors",
            "lazy_comments", "test_timeouts", "exhausted_context_windows")


def passed_on_try(sample: Sample) -> int | None:
    for attempt in sample.attempts:
        if attempt.verdict == Verdict.PASSED:
            return attempt.try_index
    return None


def edit_figures(samples: list[Sample]) -> dict[str, Any]:
    """Rates are over all exercises attempted; infra errors are counted apart, not as failures."""
    graded = [s for s in samples if not s.is_infra_error]
    tries = max((s.details.get("tries", len(s.attempts)) for s in graded), default=0)
    passes = [passed_on_try(s) for s in graded]
    by_try = [wilson(sum(1 for p in passes if p is not None and p <= k), len(graded))
              for k in range(1, tries + 1)]  # over all repeats pooled
    malformed_cases = sum(1 for s in graded if _count(s, "malformed_replies") > 0)
    n = max(len(graded), 1)
    figures: dict[str, Any] = {
        "edit_format": next((s.details.get("edit_format") for s in samples), None),
        "pass_rate_by_try": [e.value for e in by_try],
        "pass_rate_by_try_interval": [e.as_dict() for e in by_try],
        "percent_well_formed": 100.0 * (1 - malformed_cases / n) if graded else None,
        "seconds_per_case": sum(s.total("model_seconds") + s.total("test_seconds")
                                for s in graded) / n,
        "model_seconds_per_case": sum(s.total("model_seconds") for s in graded) / n,
        "test_seconds_per_case": sum(s.total("test_seconds") for s in graded) / n,
    }
    figures.update({name: sum(_count(s, name) for s in samples) for name in COUNTERS})
    repeats = sorted({s.index for s in graded})
    if len(repeats) > 1:
        figures["repeats"] = len(repeats)
        figures["pass_rate_by_try_repeats"] = [
            t_interval([_rate([s for s in graded if s.index == r], k) for r in repeats]).as_dict()
            for k in range(1, tries + 1)
        ]
    return figures


def _rate(samples: list[Sample], by_try: int) -> float:
    """One repeat's pass rate after `by_try` tries."""
    passes = [passed_on_try(s) for s in samples]
    return sum(1 for p in passes if p is not None and p <= by_try) / max(len(samples), 1)


def _count(sample: Sample, name: str) -> int:
    return sum(int(a.details.get(name, 0)) for a in sample.attempts)
