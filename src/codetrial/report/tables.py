"""HTML tables: the summary of each run and the spec-to-code mistake table.

No cell may be wider than a window: long settings (an Exercism run's 129 exercise names) fold
to a count with the list on demand, and every cell breaks long words.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from codetrial.core import Verdict
from codetrial.report.page import esc, esc_text
from codetrial.report.runs import RunView, settings
from codetrial.report.state import is_finished, resume_command, state_text
from codetrial.report.terminal import format_estimate, verdict_meaning
from codetrial.report.usage_text import cost_text, tokens_text

FOLD_ITEMS = 5  # a setting with more items than this shows its count, the list on demand
FOLD_CHARS = 60


@dataclass(frozen=True)
class Markup:
    """A cell whose HTML is built (and escaped) by the caller."""

    html: str
    css: str = ""


Cell = str | tuple[str, str] | Markup  # text, or (text, css class), escaped when built

SUMMARY_HEADERS = ("run", "contender", "suite", "pass rate (95% CI)", "pass@k (95% CI)",
                   "verdicts (infra errors not counted)",
                   "tasks, samples, tokens, cost, seconds", "state", "settings")


def html_table(headers: tuple[str, ...] | list[str], rows: list[list[Cell]]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return (f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def _cell(cell: Cell) -> str:
    if isinstance(cell, Markup):
        body, css = cell.html, cell.css
    else:
        text, css = cell if isinstance(cell, tuple) else (cell, "")
        body = "<br>".join(esc_text(line) for line in text.split("\n"))
    return f'<td class="{esc(css)}">{body}</td>' if css else f"<td>{body}</td>"


def summary_table(runs: list[RunView]) -> str:
    """The runs, and what each verdict they show means."""
    return (html_table(SUMMARY_HEADERS, [summary_row(run) for run in runs])
            + verdict_legend(runs))


def verdict_legend(runs: list[RunView]) -> str:
    shown = sorted({v for run in runs for v in run.summary.get("verdict_counts") or {}})
    items = "; ".join(esc(f"{v}: {verdict_meaning(v)}") for v in shown if verdict_meaning(v))
    return f'<p class="small">Verdicts: {items}.</p>' if items else ""


def _estimate(estimate: dict[str, float] | None) -> str:
    """The interval under its rate: keeps the table narrow."""
    return format_estimate(estimate).replace("  [", "\n[")


def summary_row(run: RunView) -> list[Cell]:
    s = run.summary
    pass_at = "\n".join(f"pass@{k} {_estimate(e)}"
                        for k, e in s.get("pass_at_interval", {}).items())
    return [
        (run.run_id, "id"), run.contender,
        (f"{run.record.suite}\n{s.get('suite_version') or ''}", "small"),
        (_estimate(s["pass_rate"]), "num"), (pass_at or "-", "num"),
        (_verdicts(s), "num"), (_work(s), "num"),
        state_cell(s), settings_cell(settings(run)),
    ]


def _verdicts(s: dict[str, Any]) -> str:
    """The count of each verdict; infra errors first, being left out of every rate."""
    counts = sorted((s.get("verdict_counts") or {}).items())
    lines = [f"{v} {n}" for v, n in counts if not Verdict(v).is_infra]
    return "\n".join([f"infra errors {s['infra_errors']}", *lines])


def _work(s: dict[str, Any]) -> str:
    truncated = s.get("truncated_replies") or 0
    cut = f"\n{truncated} truncated by the output budget" if truncated else ""
    return (f"{s['tasks']} tasks, {s['samples']} samples\n{tokens_text(s)}, "
            f"{cost_text(s)}\nmodel {s['model_seconds']:.1f} s, tests "
            f"{s['test_seconds']:.1f} s{cut}")


def state_cell(summary: dict[str, Any]) -> Cell:
    if is_finished(summary):
        return state_text(summary)
    return Markup(f"<b>{esc(state_text(summary))}</b><br>complete it with "
                  f"<code>{esc(resume_command(str(summary['run_id'])))}</code>", "unfinished")


def unfinished_note(summaries: list[dict[str, Any]]) -> str:
    """A warning above the runs table naming each unfinished run; empty when all finished."""
    items = "".join(f"<li><b>{esc(s['run_id'])}</b>: {esc(state_text(s))}; complete it with "
                    f"<code>{esc(resume_command(str(s['run_id'])))}</code></li>"
                    for s in summaries if not is_finished(s))
    return (f'<div class="warning" id="unfinished"><p>Unfinished runs: their figures cover only '
            f"the samples stored so far.</p><ul>{items}</ul></div>") if items else ""


def settings_cell(chosen: dict[str, Any]) -> Markup:
    """`key=value` lines; a long list folds to `key: N items` that opens on a click."""
    return Markup("<br>".join(_setting(k, v) for k, v in chosen.items()), "small")


def _setting(key: str, value: Any) -> str:
    items = _items(value)
    if len(items) <= FOLD_ITEMS and (len(items) == 1 or len(", ".join(items)) <= FOLD_CHARS):
        return esc(f"{key}={', '.join(items) if isinstance(value, list | tuple) else value}")
    return (f'<details class="fold"><summary>{esc(key)}: {len(items)} items</summary>'
            f"{esc(', '.join(items))}</details>")


def _items(value: Any) -> list[str]:
    """A list, or a comma-separated option (`--exercises a,b,c`), as its items."""
    if isinstance(value, list | tuple):
        return [str(v) for v in value]
    text = str(value)
    return [part.strip() for part in text.split(",")] if "," in text else [text]


def mistake_table(runs: list[RunView]) -> str:
    """One row per mistake, one column per contender: samples tagged (of which wrong)."""
    tables = {run.label: {r["tag"]: r for r in run.summary.get("mistakes", [])} for run in runs}
    tags = dict.fromkeys(t for by_tag in tables.values() for t in by_tag if t != "unexplained")
    rows: list[list[Cell]] = []
    for tag in tags:
        first = next(by_tag[tag] for by_tag in tables.values() if tag in by_tag)
        rows.append([tag, first["title"], *(_mistake_cell(t.get(tag)) for t in tables.values()),
                     _examples(t.get(tag) for t in tables.values())])
    rows.append(["unexplained", "wrong suite tests no mistake explains",
                 *((str(t.get("unexplained", {}).get("probes_hit", 0)), "num")
                   for t in tables.values()), ""])
    return html_table(["mistake", "what it is", *tables, "examples"], rows)


def _mistake_cell(row: dict[str, Any] | None) -> Cell:
    return (f"{row['samples']} ({row['wrong_on_suite']} wrong)", "num") if row else ("-", "num")


def _examples(rows: Any) -> str:
    examples = [e for row in rows if row for e in row.get("examples", [])]
    return "\n".join(f"{e.get('task', '')}: {e.get('instance', '')} expected "
                     f"{e.get('expected', '')}, got {e.get('got', '')}" for e in examples[:3])
