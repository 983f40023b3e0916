"""`codetrial report RUN_ID... --html FILE`: one self-contained page for the runs.

Each section appears only when its data is there: code editing for edit runs, spec-to-code
for jsonschema runs, speed for `codetrial perf` files, doc synthesis for `yaml` runs.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from codetrial.report.cheating import tried_section
from codetrial.report.drilldown import drilldown_section
from codetrial.report.editing import editing_section
from codetrial.report.page import Figure, Section, javascript_bundle, render_page
from codetrial.report.runs import RunView, load_runs
from codetrial.report.spec import spec_section
from codetrial.report.speed import speed_section
from codetrial.report.synthesis import synthesis_section
from codetrial.report.tables import summary_table, unfinished_note
from codetrial.store import Store


def build_sections(runs: list[RunView], perf_files: Sequence[Path] = ()) -> list[Section]:
    runs_part = [unfinished_note([r.summary for r in runs]), summary_table(runs)]
    found = [Section("summary", "Runs", runs_part), editing_section(runs),
             spec_section(runs), speed_section(list(perf_files)), synthesis_section(runs),
             tried_section(runs), drilldown_section(runs)]
    return [s for s in found if s is not None]


def figures(sections: list[Section]) -> list[Figure]:
    return [f for s in sections for f in s.figures()]


def write_utf8(path: Path, text: str) -> None:
    """Beside the target, then renamed over it (never half a page), in the page's charset
    whatever the locale says."""
    tmp = path.with_name(f".{path.name}.tmp")
    tmp.write_text(text, encoding="utf-8")
    tmp.replace(path)


def write_html_report(store: Store, run_ids: Sequence[str], path: Path,
                      png_dir: Path | None = None, perf_files: Sequence[Path] = ()) -> Path:
    """Write the page, and each chart as `PNG_DIR/NAME.png` when png_dir is given."""
    runs = load_runs(store, list(run_ids))
    sections = build_sections(runs, perf_files)
    page = render_page(f"codetrial report: {len(runs)} run{'s' if len(runs) > 1 else ''}",
                       sections, javascript_bundle())
    write_utf8(path, page)
    if png_dir is not None:
        from codetrial.report.png import write_pngs

        write_pngs(figures(sections), png_dir)
    return path
