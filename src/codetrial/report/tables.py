"""HTML tables: the summary of each run and the spec-to-code mistake table."""

from __future__ import annotations

from typing import Any

from codetrial.report.page import esc
from codetrial.report.runs import RunView, settings
from codetrial.report.terminal import format_estimate

Cell = str | tuple[str, str]  # text, or (text, css class); escaped when the table is built

SUMMARY_HEADERS = ("run", "contender", "suite", "pass rate (95% CI)", "pass@k (95% CI)",
                   "infra errors (not counted)", "tasks / samples", "tokens", "cost",
                   "model s / test s", "finished", "settings")


def html_table(headers: tuple[str, ...] | list[str], rows: list[list[Cell]]) -> str:
    head = "".join(f"<th>{esc(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(_cell(c) for c in row) + "</tr>" for row in rows)
    return (f'<div class="wide"><table><thead><tr>{head}</tr></thead>'
            f"<tbody>{body}</tbody></table></div>")


def _cell(cell: Cell) -> str:
    text, css = cell if isinstance(cell, tuple) else (cell, "")
    lines = "<br>".join(esc(line) for line in text.split("\n"))
    return f'<td class="{esc(css)}">{lines}</td>' if css else f"<td>{lines}</td>"


def summary_table(runs: list[RunView]) -> str:
    return html_table(SUMMARY_HEADERS, [summary_row(run) for run in runs])


def _estimate(estimate: dict[str, float] | None) -> str:
    """The interval under its rate: keeps the table narrow."""
    return format_estimate(estimate).replace("  [", "\n[")


def summary_row(run: RunView) -> list[Cell]:
    s = run.summary
    pass_at = "\n".join(f"pass@{k} {_estimate(e)}"
                        for k, e in s.get("pass_at_interval", {}).items())
    return [
        run.run_id, run.contender, (f"{run.record.suite}\n{s.get('suite_version') or ''}", "small"),
        (_estimate(s["pass_rate"]), "num"), (pass_at or "-", "num"),
        (str(s["infra_errors"]), "num"), (f"{s['tasks']} / {s['samples']}", "num"),
        (str(s["tokens"]), "num"), (f"${s['cost_usd']:.4f}", "num"),
        (f"{s['model_seconds']:.1f} / {s['test_seconds']:.1f}", "num"),
        "yes" if s.get("finished") else "no (resumable)",
        ("\n".join(f"{k}={v}" for k, v in settings(run).items()), "small"),
    ]


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
