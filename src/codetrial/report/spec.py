"""Spec-to-code section: the suite's own chart (suites/jsonschema/chart.py), a panel per
contender with a column per keyword group, and the mistake table."""

from __future__ import annotations

from typing import Any

import altair as alt

from codetrial.report.charts import top_headers
from codetrial.report.page import Figure, Section
from codetrial.report.runs import RunView
from codetrial.report.tables import mistake_table
from codetrial.suites.jsonschema.chart import chart


def is_spec_run(run: RunView) -> bool:
    return "groups" in run.summary or any(_schema_details(s) for s in run.samples)


def _schema_details(sample: Any) -> dict[str, Any] | None:
    details = sample.attempts[-1].details if sample.attempts else {}
    return details if "schema_verdict" in details else None


def group_chart(runs: list[RunView]) -> alt.TopLevelMixin:
    return top_headers(chart(*({**run.summary, "contender": run.label} for run in runs)))


def _has_mistakes(run: RunView) -> bool:
    """The suite always lists `unexplained`; the table matters once anything was found."""
    return any(row["tag"] != "unexplained" or row.get("probes_hit")
               for row in run.summary.get("mistakes", []))


def spec_section(runs: list[RunView]) -> Section | None:
    specs = [r for r in runs if is_spec_run(r)]
    if not specs:
        return None
    parts: list[str | Figure] = [Figure(
        "spec-groups", "Tests right per schema, by keyword group", group_chart(specs),
        "One panel per contender, one dot per schema (nudged apart where they would cover each "
        "other). Colour: ok (every test right), partial, failure (none right) or compile (did "
        "not load: a red cross at 0). Hover a dot for the schema and its tests.")]
    if any(_has_mistakes(r) for r in specs):
        parts += ["<h3>Mistakes</h3>", mistake_table(specs)]
    return Section("spec", "Spec-to-code (JSON Schema)", parts)
