"""Spec-to-code section: a panel per contender of schema groups, and the mistake table.

The chart is the jsonschema suite's own (`suites/jsonschema/chart.py`) when it is installed;
otherwise the rows are rebuilt here from the stored samples' details.
"""

from __future__ import annotations

from typing import Any

import altair as alt

from codetrial.core import Verdict
from codetrial.report.charts import Rows, top_headers, verdict_chart
from codetrial.report.page import Figure, Section
from codetrial.report.runs import RunView
from codetrial.report.tables import mistake_table

TOOLTIP_TESTS = 12


def is_spec_run(run: RunView) -> bool:
    return "groups" in run.summary or any(_schema_details(s) for s in run.samples)


def _schema_details(sample: Any) -> dict[str, Any] | None:
    details = sample.attempts[-1].details if sample.attempts else {}
    return details if "schema_verdict" in details else None


def group_chart(runs: list[RunView]) -> alt.TopLevelMixin:
    try:
        from codetrial.suites.jsonschema.chart import chart
    except ImportError:
        figure = verdict_chart([row for run in runs for row in sample_rows(run)])
    else:
        figure = chart(*({**run.summary, "contender": run.label} for run in runs))
    return top_headers(figure)


def sample_rows(run: RunView) -> Rows:
    """Chart rows from the samples alone: what the suite's chart shows, without the suite."""
    rows = []
    for sample in run.samples:
        details = _schema_details(sample)
        if details is None or sample.is_infra_error:
            continue
        tests = sample.attempts[-1].tests
        passed = [t.name for t in tests if t.verdict == Verdict.PASSED]
        rows.append({"contender": run.label, "task": sample.task_id,
                     "verdict": details["schema_verdict"], "schema": details.get("schema", ""),
                     "percent": round(100 * len(passed) / len(tests), 1) if tests else 0.0,
                     "passed": _names(passed),
                     "failed": _names([t.name for t in tests if t.verdict != Verdict.PASSED])})
    return rows


def _names(names: list[str]) -> str:
    more = len(names) - TOOLTIP_TESTS
    return "; ".join(names[:TOOLTIP_TESTS]) + (f"; ... {more} more" if more > 0 else "") or "-"


def _has_mistakes(run: RunView) -> bool:
    """The suite always lists `unexplained`; the table matters once anything was found."""
    return any(row["tag"] != "unexplained" or row.get("probes_hit")
               for row in run.summary.get("mistakes", []))


def spec_section(runs: list[RunView]) -> Section | None:
    specs = [r for r in runs if is_spec_run(r)]
    if not specs:
        return None
    parts: list[str | Figure] = [Figure(
        "spec-groups", "Tests right per schema group", group_chart(specs),
        "One panel per contender; colour: ok, partial, failure or compile (did not load).")]
    if any(_has_mistakes(r) for r in specs):
        parts += ["<h3>Mistakes</h3>", mistake_table(specs)]
    return Section("spec", "Spec-to-code (JSON Schema)", parts)
