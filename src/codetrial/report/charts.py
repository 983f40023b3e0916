"""Vega-Lite charts (altair) of the report, each built from plain rows with tooltips.

Rates are drawn in percent; every bar of a rate carries a whisker for its 95% interval.
"""

from __future__ import annotations

import math
from typing import Any

import altair as alt

Rows = list[dict[str, Any]]
PERCENT = alt.Scale(domain=[0, 100])


def percent(value: float | None) -> float | None:
    return None if value is None or math.isnan(value) else round(100 * value, 2)


def top_headers(chart: alt.TopLevelMixin) -> alt.TopLevelMixin:
    """Panel titles above their panels, level: model names and paths are long."""
    return chart.configure_header(labelOrient="top", labelAngle=0, labelAnchor="start",
                                  labelFontWeight="bold")


def _whiskers(base: alt.Chart, tooltip: list[str]) -> alt.Chart:
    """The 95% interval as a black rule over its bar."""
    return base.mark_rule(color="black", strokeWidth=1.5).encode(
        y="low:Q", y2="high:Q", tooltip=tooltip)


def edit_chart(rows: Rows) -> alt.LayerChart:
    """A bar per model x edit format, solid up to the try-1 rate, lighter for later tries."""
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X("model:N", title="model"),
        xOffset=alt.XOffset("format:N"),
    )
    tooltip = ["model:N", "format:N", "try:N", "rate:Q", "low:Q", "high:Q", "interval:N",
               "run:N"]
    bars = base.mark_bar().encode(
        y=alt.Y("start:Q", title="exercises passed (%)", scale=PERCENT),
        y2="end:Q",
        color=alt.Color("format:N", title="edit format"),
        opacity=alt.Opacity("try:O", title="passed by", scale=alt.Scale(range=[1.0, 0.4])),
        tooltip=tooltip,
    )
    return (bars + _whiskers(base, tooltip)).properties(height=320)


def pass_at_chart(rows: Rows) -> alt.LayerChart:
    """pass@k per contender, side by side for each k."""
    base = alt.Chart(alt.Data(values=rows)).encode(
        x=alt.X("k:N", title=None),  # pass@1 < pass@10 < pass@100 as text too
        xOffset=alt.XOffset("contender:N"),
    )
    tooltip = ["contender:N", "k:N", "value:Q", "low:Q", "high:Q", "run:N"]
    bars = base.mark_bar().encode(
        y=alt.Y("value:Q", title="tasks passed (%)", scale=PERCENT),
        color=alt.Color("contender:N"), tooltip=tooltip)
    return (bars + _whiskers(base, tooltip)).properties(height=280)


def speed_chart(rows: Rows) -> alt.TopLevelMixin:
    """Time over the fastest contender's against input size, both axes logarithmic."""
    return top_headers(alt.Chart(alt.Data(values=rows)).mark_line(point=True).encode(
        x=alt.X("size:Q", title="input size", scale=alt.Scale(type="log")),
        y=alt.Y("ratio:Q", title="time / fastest", scale=alt.Scale(type="log")),
        color=alt.Color("contender:N"),
        detail="race:N",
        tooltip=["case:N", "scenario:N", "contender:N", "size:Q", "ratio:Q", "race:N"],
    ).properties(width=360, height=240).facet(
        column=alt.Column("case:N", title=None, header=_named("case")),
        row=alt.Row("scenario:N", title=None, header=_named("scenario"))))


def _named(field: str) -> alt.Header:
    """`case: uniqueItems` over a panel rather than a lone value."""
    return alt.Header(labelExpr=f"'{field}: ' + datum.value")


def funnel_chart(rows: Rows) -> alt.TopLevelMixin:
    """How many survive each synthesis stage, one panel per synthesis directory."""
    return top_headers(alt.Chart(alt.Data(values=rows)).mark_bar().encode(
        y=alt.Y("stage:N", sort=alt.EncodingSortField("order"), title=None),
        x=alt.X("count:Q", title="count", axis=alt.Axis(tickMinStep=1, format="d")),
        tooltip=["stage:N", "count:Q", "directory:N"],
    ).properties(width=600).facet(row=alt.Row("directory:N", title=None)))

