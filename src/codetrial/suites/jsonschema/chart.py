"""Per-group chart: percent of tests right (y) for each schema (x), coloured by verdict, one
panel per contender, with the schema and the passed and failed tests in the tooltip.

Input is what `codetrial run/report --json` prints for a jsonschema run (its `groups` rows), so
the report can build the chart from stored runs alone.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import altair as alt

VERDICT_COLOURS = {"ok": "#2ca02c", "partial": "#ff7f0e", "failure": "#d62728",
                   "compile": "#7f7f7f"}
MAX_TOOLTIP_TESTS = 12


def contender_label(summary: dict[str, Any]) -> str:
    return str(summary.get("contender") or summary.get("model") or summary.get("run_id", "?"))


def chart_data(*summaries: dict[str, Any]) -> list[dict[str, Any]]:
    rows = []
    for summary in summaries:
        label = contender_label(summary)
        for order, group in enumerate(summary.get("groups", [])):
            rows.append({**group, "contender": label, "order": order,
                         "passed": tests_text(group["passed"]),
                         "failed": tests_text(group["failed"])})
    return rows


def tests_text(names: list[str]) -> str:
    shown = names[:MAX_TOOLTIP_TESTS]
    more = len(names) - len(shown)
    return "; ".join(shown) + (f"; ... {more} more" if more > 0 else "") if names else "-"


def chart(*summaries: dict[str, Any]) -> alt.FacetChart:
    data = alt.Data(values=chart_data(*summaries))
    verdicts = list(VERDICT_COLOURS)
    return alt.Chart(data).mark_bar().encode(
        x=alt.X("task:N", sort=alt.EncodingSortField("order"), title="schema group",
                axis=alt.Axis(labels=False, ticks=False)),
        y=alt.Y("percent:Q", title="tests right (%)", scale=alt.Scale(domain=[0, 100])),
        color=alt.Color("verdict:N", scale=alt.Scale(domain=verdicts,
                                                     range=[VERDICT_COLOURS[v] for v in verdicts])),
        tooltip=["task:N", "description:N", "verdict:N", "percent:Q", "schema:N", "passed:N",
                 "failed:N"],
    ).properties(width=900, height=160).facet(row=alt.Row("contender:N", title=None))


def save_html(figure: alt.TopLevelMixin, path: Path | str) -> Path:
    """A standalone page (Vega-Lite from its CDN when opened)."""
    target = Path(path)
    figure.save(str(target), format="html")
    return target
