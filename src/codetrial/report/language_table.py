"""Figures per language (a polyglot run) as a table of their own, rates with their intervals."""

from __future__ import annotations

from typing import Any

from rich.table import Table

from codetrial.report.usage_text import cost_text

COLUMNS = ("language", "tasks", "passed", "pass rate by try (95% CI)", "well-formed",
           "malformed replies", "truncated replies", "cost")


def rate_text(estimate: dict[str, Any] | None) -> str:
    if not estimate or estimate.get("value") is None:
        return "undefined"
    return f"{estimate['value']:.1%} [{estimate['low']:.1%}, {estimate['high']:.1%}]"


def by_try_text(figures: dict[str, Any]) -> str:
    """`try 1 76.9% [..]`, a line per try."""
    intervals = figures.get("pass_rate_by_try_repeats") or figures.get(
        "pass_rate_by_try_interval") or []
    return "\n".join(f"try {n} {rate_text(e)}" for n, e in enumerate(intervals, start=1))


def language_table(by_language: dict[str, dict[str, Any]]) -> Table:
    table = Table(title="by language", title_justify="left")
    for column in COLUMNS:
        table.add_column(column, justify="left" if column == "language" else "right")
    for language, figures in sorted(by_language.items()):
        well_formed = figures.get("percent_well_formed")
        table.add_row(language, str(figures.get("tasks", "")), str(figures.get("passed", "")),
                      by_try_text(figures),
                      "-" if well_formed is None else f"{well_formed:.1f}%",
                      str(figures.get("malformed_replies", 0)),
                      str(figures.get("truncated_replies", 0)), cost_text(figures))
    return table
