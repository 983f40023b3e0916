"""The terminal summary: verdicts with their meaning, per-language figures as a table."""

from __future__ import annotations

from rich.console import Console

from codetrial.metrics.intervals import wilson
from codetrial.report.terminal import print_summary


def summary() -> dict:
    by_try = [wilson(20, 26).as_dict()]
    return {"run_id": "r1", "suite": "polyglot", "model": "m", "protocol": "edit",
            "finished": True, "tasks": 30, "samples": 30, "passed": 22,
            "pass_rate": wilson(22, 30).as_dict(),
            "pass_at_interval": {"1": wilson(0, 4).as_dict()},
            "infra_errors": 0, "tried": {}, "tokens": 10, "cost_usd": None,
            "verdict_counts": {"error": 9, "not-generated": 11, "passed": 10},
            "model_seconds": 1.0, "test_seconds": 2.0, "pass_rate_by_try": [0.77],
            "pass_rate_by_try_interval": by_try,
            "by_language": {"cpp": {"tasks": 26, "passed": 20, "pass_rate_by_try": [0.769],
                                    "pass_rate_by_try_interval": by_try,
                                    "percent_well_formed": 96.2, "malformed_replies": 1,
                                    "truncated_replies": 2, "cost_usd": 0.5,
                                    "fresh_cost_usd": 0.5}}}


def test_verdicts_say_what_they_mean_and_languages_get_a_table():
    console = Console(width=200)
    with console.capture() as captured:
        print_summary(summary(), console)
    shown = captured.get()
    assert "not-generated 11: the reply held no code" in shown
    assert "error 9: the code raised" in shown
    assert "{'" not in shown and "by language" in shown
    assert "76.9% [57.9%, 89.0%]" in shown  # a rate per try, with its interval
    assert "cost unknown" in shown and "$0.5000" in shown
