"""Code-editing section: pass rate per model x edit format, split at the try-1 rate."""

from __future__ import annotations

from collections import Counter
from typing import Any

from codetrial.metrics.editing import COUNTERS
from codetrial.report.charts import Rows, edit_chart, percent
from codetrial.report.page import Figure, Section
from codetrial.report.runs import RunView
from codetrial.report.tables import Cell, html_table
from codetrial.report.usage_text import cost_text

# The editing figures aider's benchmark reports, in words; truncated replies stay apart from
# malformed ones (a reply cut short may still have applied).
COUNTER_HEADERS = {"malformed_replies": "malformed replies",
                   "truncated_replies": "truncated by the output budget",
                   "syntax_errors": "syntax errors", "indentation_errors": "indentation errors",
                   "lazy_comments": "lazy comments", "test_timeouts": "test timeouts",
                   "exhausted_context_windows": "context window exhausted"}
assert set(COUNTER_HEADERS) == set(COUNTERS)
FIGURE_HEADERS = ("run", "model", "edit format", "well-formed", *COUNTER_HEADERS.values(),
                  "cost", "seconds per case")


def is_edit_run(run: RunView) -> bool:
    return bool(run.summary.get("pass_rate_by_try"))


def edit_rows(runs: list[RunView]) -> Rows:
    """Per run and try: the bar segment gained by that try and its 95% interval.

    Whiskers come from the spread over repeats when the run was repeated (a t interval), else
    from the Wilson interval over the run's exercises; the tooltip says which. A polyglot run
    (its summary has `by_language`) gives one bar per language.
    """
    pairs = Counter((_model(r, runs), _format(r)) for r in runs)
    rows: Rows = []
    for run in runs:
        fmt = _format(run)
        label = fmt if pairs[(_model(run, runs), fmt)] == 1 else f"{fmt} ({run.run_id})"
        by_language = run.summary.get("by_language") or {}
        for language, figures in sorted(by_language.items()):
            rows += _run_rows(run, _model(run, runs), f"{label} · {language}", figures)
        if not by_language:
            rows += _run_rows(run, _model(run, runs), label)
    return rows


def _model(run: RunView, runs: list[RunView]) -> str:
    """The model, and its suite when the edit runs come from several (Exercism, HumanEval)."""
    several = len({r.record.suite for r in runs}) > 1
    return f"{run.record.model} ({run.record.suite})" if several else run.record.model


def _format(run: RunView) -> str:
    return str(run.summary.get("edit_format") or "?")


def _run_rows(run: RunView, model: str, fmt: str, figures: dict[str, Any] | None = None) -> Rows:
    s = run.summary if figures is None else figures
    repeats = s.get("pass_rate_by_try_repeats")
    intervals = repeats or s.get("pass_rate_by_try_interval") or []
    source = f"t over {s.get('repeats')} repeats" if repeats else "Wilson (one repeat)"
    rows, before = [], 0.0
    for index, (rate, interval) in enumerate(zip(s["pass_rate_by_try"], intervals,
                                                 strict=False), start=1):
        if percent(rate) is None:
            continue
        rows.append({"model": model, "format": fmt, "run": run.run_id,
                     "try": "try 1" if index == 1 else f"try {index}", "start": before,
                     "end": percent(rate), "rate": percent(rate), "interval": source,
                     **_bounds(interval)})
        before = percent(rate) or 0.0
    return rows


def _bounds(interval: dict[str, Any]) -> dict[str, float | None]:
    """Interval ends in percent, clipped to 0-100 (a t interval over few repeats can spill)."""
    def clip(v: float | None) -> float | None:
        p = percent(v)
        return None if p is None else min(100.0, max(0.0, p))

    return {"low": clip(interval.get("low")), "high": clip(interval.get("high"))}


def editing_section(runs: list[RunView]) -> Section | None:
    edits = [r for r in runs if is_edit_run(r)]
    rows = edit_rows(edits)
    if not rows:
        return None
    caption = ("Solid: passed on the first try; lighter: passed after the test output was "
               "shown. Whiskers: 95% interval of the rate after each try.")
    parts = [Figure("editing", "Pass rate by model and edit format", edit_chart(rows), caption),
             figures_table(edits)]
    agents = [r for r in edits if "steps_per_case" in r.summary]
    if agents:
        parts.append(agent_table(agents))
    return Section("editing", "Code editing", parts)


AGENT_HEADERS = ("run", "model", "steps per case", "tokens per case", "tool calls",
                 "malformed calls", "failed commands", "tries ended by", "model s / tool s")


def agent_table(runs: list[RunView]) -> str:
    """The agent protocol's figures, a row per run (see metrics/agent.py)."""
    def counts(value: Any) -> str:
        return ", ".join(f"{k} {n}" for k, n in (value or {}).items())

    rows: list[list[Cell]] = []
    for run in runs:
        s = run.summary
        rows.append([run.run_id, run.record.model, (f"{s['steps_per_case']:.1f}", "num"),
                     (f"{s.get('tokens_per_case', 0):.0f}", "num"), counts(s.get("tool_calls")),
                     (str(s.get("malformed_calls", 0)), "num"),
                     (str(s.get("failed_commands", 0)), "num"), counts(s.get("tries_ended_by")),
                     str(s.get("model_seconds_vs_tool_seconds", ""))])
    return ("<h3>Agent runs</h3>" + html_table(AGENT_HEADERS, rows))


def figures_table(runs: list[RunView]) -> str:
    """A row per run, or per run and language for a polyglot run."""
    rows: list[list[Cell]] = []
    for run in runs:
        by_language = run.summary.get("by_language") or {}
        parts = sorted(by_language.items()) or [("", run.summary)]
        for language, figures in parts:
            fmt = _format(run) + (f" · {language}" if language else "")
            rows.append([run.run_id, run.record.model, fmt, *_figure_cells(figures)])
    return html_table(FIGURE_HEADERS, rows)


def _figure_cells(s: dict[str, Any]) -> list[Cell]:
    well_formed = s.get("percent_well_formed")
    return [("-" if well_formed is None else f"{well_formed:.1f}%", "num"),
            *[(str(s.get(name, 0)), "num") for name in COUNTER_HEADERS],
            (cost_text(s), "num"), (f"{s.get('seconds_per_case', 0.0):.1f}", "num")]
