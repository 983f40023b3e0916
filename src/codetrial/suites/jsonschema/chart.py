"""The seed study's chart: a column per keyword group (`allOf`, `enum`, ...), a dot per schema
at its percent of tests right, coloured by verdict, one panel per contender.

A compile error is a red cross at 0, never a missing bar. Dots that would cover each other (same
group, same percent) are nudged apart in a small grid, so each can be counted and hovered. The
schemas' text is the same for every contender, so it is kept once and looked up by task.

Input is what `codetrial run/report --json` prints for a jsonschema run (its `groups` rows), so
the report can build the chart from stored runs alone.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path
from typing import Any

import altair as alt

VERDICT_COLOURS = {"ok": "#2ca02c", "partial": "#ff7f0e", "failure": "#8c564b",
                   "compile": "#d62728"}
VERDICT_SHAPES = {"ok": "circle", "partial": "circle", "failure": "square", "compile": "cross"}
MAX_TOOLTIP_TESTS = 12
STEP = 22  # pixels per group column
DOT = 5  # pixels between dots side by side
ROW_GAP = 3.5  # pixels between rows of dots: they overlap a little, and stay countable
PER_ROW = 4  # dots side by side in a column before a new row starts
HEIGHT = 260

Rows = list[dict[str, Any]]


def contender_label(summary: dict[str, Any]) -> str:
    return str(summary.get("contender") or summary.get("model") or summary.get("run_id", "?"))


def chart_data(*summaries: dict[str, Any]) -> tuple[Rows, Rows]:
    """(marks, schemas): a mark per contender and schema, and each schema's text once."""
    marks: Rows = []
    schemas: dict[str, dict[str, Any]] = {}
    for summary in summaries:
        label = contender_label(summary)
        for group in summary.get("groups", []):
            schemas.setdefault(group["task"], {
                "task": group["task"], "description": group.get("description", ""),
                "schema": group.get("schema", "")})
            marks.append(mark_row(label, group))
    nudge(marks)
    return marks, list(schemas.values())


def mark_row(contender: str, group: dict[str, Any]) -> dict[str, Any]:
    passed, failed = group["passed"], group["failed"]
    verdict = group["verdict"]
    percent = 0.0 if verdict == "compile" else group["percent"]
    total = len(passed) + len(failed)
    return {"contender": contender, "task": group["task"], "sample": group.get("sample", 0),
            "group": group.get("file") or group["task"].rsplit("/", 1)[0],
            "verdict": verdict, "percent": percent,
            "right": f"{len(passed)} of {total} ({percent:g}%)" if total else "no tests run",
            "tests": tests_text(failed, passed)}


def tests_text(failed: list[str], passed: list[str]) -> str:
    """❌ lines first (what went wrong), then ✅, at most MAX_TOOLTIP_TESTS in all."""
    lines = [f"\u274c {name}" for name in failed] + [f"\u2705 {name}" for name in passed]
    more = len(lines) - MAX_TOOLTIP_TESTS
    shown = lines[:MAX_TOOLTIP_TESTS] + ([f"... {more} more"] if more > 0 else [])
    return "\n".join(shown) or "-"


def nudge(marks: Rows) -> None:
    """Spread dots of one contender, group and percent in a grid: up to PER_ROW side by side
    (dx, in pixels), further rows inward from 0 and 100, else alternately below and above (y,
    the height drawn, moved by ROW_GAP pixels a row; the tooltip says the true percent)."""
    buckets: dict[tuple[str, str, float], Rows] = defaultdict(list)
    for row in marks:
        buckets[(row["contender"], row["group"], row["percent"])].append(row)
    for (_, _, percent), rows in buckets.items():
        for i, row in enumerate(rows):
            line, col = divmod(i, PER_ROW)
            width = min(PER_ROW, len(rows) - line * PER_ROW)
            row["dx"] = STEP / 2 + (col - (width - 1) / 2) * DOT  # from the column's left
            row["y"] = round(percent - _row_offset(line, percent) * ROW_GAP * 100 / HEIGHT, 2)


def _row_offset(line: int, percent: float) -> float:
    if percent >= 100:
        return line  # downwards, inside the plot
    if percent <= 0:
        return -line
    return (line + 1) // 2 * (1 if line % 2 == 0 else -1)


def groups_in_order(marks: Rows) -> list[str]:
    """Alphabetical, as the suite's files are, whatever order the samples were stored in."""
    return sorted({row["group"] for row in marks}, key=lambda g: (g.lower(), g))


def by_verdict(channel: type, table: dict[str, str], **options: Any) -> Any:
    """A colour or shape encoding of the verdict, in the fixed order ok .. compile."""
    return channel("verdict:N", title="verdict", scale=alt.Scale(
        domain=list(table), range=list(table.values())), **options)


TOOLTIP = [alt.Tooltip("group:N"), alt.Tooltip("task:N"), alt.Tooltip("verdict:N"),
           alt.Tooltip("right:N", title="tests right"), alt.Tooltip("description:N"),
           alt.Tooltip("schema:N"), alt.Tooltip("tests:N")]


def chart(*summaries: dict[str, Any]) -> alt.FacetChart:
    marks, schemas = chart_data(*summaries)
    return alt.Chart(alt.Data(values=marks)).transform_lookup(
        lookup="task", from_=alt.LookupData(alt.Data(values=schemas), key="task",
                                            fields=["description", "schema"]),
    ).mark_point(filled=True, opacity=0.8).encode(
        x=alt.X("group:N", sort=groups_in_order(marks), title="keyword group",
                scale=alt.Scale(paddingInner=0, paddingOuter=0),
                axis=alt.Axis(labelAngle=-90, labelLimit=150, grid=True)),
        xOffset=alt.XOffset("dx:Q", scale=None),
        y=alt.Y("y:Q", title="tests right (%)", scale=alt.Scale(domain=[0, 100], padding=6)),
        color=by_verdict(alt.Color, VERDICT_COLOURS, legend=alt.Legend(orient="top")),
        shape=by_verdict(alt.Shape, VERDICT_SHAPES),
        size=alt.condition(alt.datum.verdict == "compile", alt.value(70), alt.value(26)),
        tooltip=TOOLTIP,
    ).properties(width=alt.Step(STEP), height=HEIGHT).facet(
        row=alt.Row("contender:N", title=None,
                    sort=list(dict.fromkeys(row["contender"] for row in marks))))


def save_html(figure: alt.TopLevelMixin, path: Path | str) -> Path:
    """A standalone page (Vega-Lite from its CDN when opened)."""
    target = Path(path)
    figure.save(str(target), format="html")
    return target
