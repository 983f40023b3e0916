"""The results table printed at the end of a run and by `codetrial report`."""

from __future__ import annotations

from typing import Any

from rich.console import Console
from rich.table import Table

from codetrial.core import Verdict
from codetrial.report.language_table import by_try_text, language_table
from codetrial.report.state import is_finished, resume_command, state_text
from codetrial.report.usage_text import cost_text, tokens_text, truncated_text

CORE_FIELDS = {"run_id", "suite", "model", "protocol", "tasks", "samples", "passed", "pass_rate",
               "pass_at", "infra_errors", "verdict_counts", "tokens", "cost_usd",
               "fresh_cost_usd", "reasoning_tokens", "truncated_replies",
               "model_seconds", "test_seconds", "finished", "tried", "planned_samples"}
CHART_ROWS = {"groups"}  # a row per schema, for the chart: --json and --html show them
OWN_TABLES = {"by_language"}  # printed as tables of their own, after the summary


def _plain(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:.3f}"
    if isinstance(value, list):
        return ", ".join(_plain(v) for v in value)
    if isinstance(value, dict) and not value:
        return "none"
    if isinstance(value, dict) and not {"value", "low", "high"} <= value.keys():
        return "\n".join(f"{k}: {_plain(v)}" for k, v in value.items())
    if isinstance(value, dict) and {"value", "low", "high"} <= value.keys():
        if value["value"] is None:
            return "undefined"
        return f"{value['value']:.3f} [{value['low']:.3f}, {value['high']:.3f}]"
    return str(value)


def verdicts_text(counts: dict[str, int]) -> str:
    """`error 9: the code raised, or did not build`, a line per verdict."""
    return "\n".join(f"{verdict} {n}: {verdict_meaning(verdict)}" for verdict, n in sorted(
        counts.items()))


def verdict_meaning(verdict: str) -> str:
    try:
        return Verdict(verdict).meaning
    except ValueError:  # a suite's own verdict (spec-to-code: ok, partial, ...)
        return ""


def tried_text(tried: dict[str, Any], shown: int = 10) -> str:
    """How many samples tried what (see metrics.summary.tried_figures), and which ones."""
    if not tried.get("samples"):
        return "none"
    kinds = ", ".join(f"{kind} {n}" for kind, n in tried["kinds"].items())
    ids = tried["sample_ids"]
    more = f", ... {len(ids) - shown} more" if len(ids) > shown else ""
    return f"{tried['samples']} samples ({kinds}): {', '.join(ids[:shown])}{more}"


def format_estimate(estimate: dict[str, float] | None) -> str:
    """A rate with its 95% interval, as every report shows it."""
    if not estimate:
        return "undefined (n < k)"
    if estimate["value"] is None:
        return "undefined (nothing graded)"
    return f"{estimate['value']:.1%}  [{estimate['low']:.1%}, {estimate['high']:.1%}]"


def print_summary(summary: dict[str, Any], console: Console) -> None:
    table = Table(title=f"run {summary['run_id']}", show_header=False, title_justify="left")
    table.add_column(style="bold")
    table.add_column()
    for key in ("suite", "model", "protocol"):
        table.add_row(key, str(summary.get(key, "")))
    finished = is_finished(summary)
    table.add_row("state", state_text(summary), style=None if finished else "bold red")
    stored = "" if finished else " (stored so far)"
    table.add_row("tasks / samples", f"{summary['tasks']} / {summary['samples']}{stored}")
    table.add_row("passed", str(summary["passed"]))
    table.add_row("pass rate (95% CI)", format_estimate(summary["pass_rate"]))
    for k, est in summary["pass_at_interval"].items():
        table.add_row(f"pass@{k} (95% CI)", format_estimate(est))
    table.add_row("infra errors (not counted)", str(summary["infra_errors"]))
    table.add_row("tried to cheat (no verdict)", tried_text(summary.get("tried") or {}))
    table.add_row("verdicts", verdicts_text(summary["verdict_counts"]))
    table.add_row("tokens / cost", f"{tokens_text(summary)} / {cost_text(summary)}")
    table.add_row("truncated by the output budget", truncated_text(summary))
    table.add_row("model s / test s", f"{summary['model_seconds']:.1f} / "
                                      f"{summary['test_seconds']:.1f}")
    if summary.get("pass_rate_by_try"):
        table.add_row("pass rate by try (95% CI)", by_try_text(summary))
    shown = CORE_FIELDS | CHART_ROWS | OWN_TABLES | {"pass_rate_by_try"}
    for key, value in summary.items():
        if key not in shown and not key.endswith(("_interval", "_repeats")):
            table.add_row(key.replace("_", " "), _plain(value))
    console.print(table)
    if summary.get("by_language"):
        console.print(language_table(summary["by_language"]))
    if not finished:  # on a line of its own, so that it is never wrapped
        console.print(f"complete it with: {resume_command(summary['run_id'])}", soft_wrap=True,
                      style="bold red")


def print_comparison(run_a: str, run_b: str, result: Any, console: Console) -> None:
    d = result.difference
    console.print(f"{run_a} -> {run_b}: {result.pairs} paired samples")
    console.print(f"pass rate {result.rate_a:.1%} -> {result.rate_b:.1%}, difference "
                  f"{d.value:+.1%} (95% paired bootstrap [{d.low:+.1%}, {d.high:+.1%}]), "
                  f"McNemar exact p = {result.p_value:.4g}")
    table = Table("task", "sample", "flip")
    for task, index in result.a_only:
        table.add_row(task, str(index), "passed -> failed")
    for task, index in result.b_only:
        table.add_row(task, str(index), "failed -> passed")
    if result.a_only or result.b_only:
        console.print(table)
