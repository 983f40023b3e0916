"""Attempted cheating: per run, how many samples tried what, and which (never a verdict).

Shown only when some run's code tried anything (see metrics.summary.tried_figures).
"""

from __future__ import annotations

from codetrial.report.page import Section
from codetrial.report.runs import RunView
from codetrial.report.tables import html_table

HEADERS = ("run", "contender", "samples that tried", "kinds (samples)", "what they tried")
NOTE = ('<p class="note">What the model\'s code tried while it was graded: reading files '
        "outside its directory, looking at its caller's frames, patching test machinery. "
        "Recorded apart: it never changes a verdict (the sandbox and the judges stop it).</p>")


def tried_rows(runs: list[RunView]) -> list[list[str | tuple[str, str]]]:
    rows: list[list[str | tuple[str, str]]] = []
    for run in runs:
        tried = run.summary.get("tried") or {}
        if not tried.get("samples"):
            continue
        kinds = "\n".join(f"{kind} {n}" for kind, n in tried["kinds"].items())
        listed = "\n".join(f"{sample}: {'; '.join(what)}"
                           for sample, what in (tried.get("examples") or {}).items())
        rows.append([run.run_id, run.contender, (str(tried["samples"]), "num"), kinds,
                     (listed, "small")])
    return rows


def tried_section(runs: list[RunView]) -> Section | None:
    rows = tried_rows(runs)
    if not rows:
        return None
    return Section("tried", "Attempted cheating", [NOTE, html_table(HEADERS, rows)])
