"""The report's editing chart gives a polyglot run one bar per language per model."""

from __future__ import annotations

from codetrial.report.editing import edit_rows
from codetrial.report.runs import load_runs
from codetrial.store import Store
from tests.report.builders import add_run, edit_sample


def test_one_bar_per_language(tmp_path):
    store = Store(tmp_path / "runs.sqlite")
    samples = [edit_sample("go/leap", 0, 1), edit_sample("go/shapes", 0, None),
               edit_sample("rust/leap", 0, 2), edit_sample("leap", 0, 1)]
    run = add_run(store, "poly", "exercism", "m", samples, protocol="edit",
                  suite_options={"edit_format": "diff", "tries": "2"})
    rows = edit_rows(load_runs(store, [run]))
    bars = {(r["format"], r["try"]): r["end"] for r in rows}
    assert {f for f, _ in bars} == {"diff · go", "diff · python", "diff · rust"}
    assert bars[("diff · go", "try 1")] == 50.0 and bars[("diff · rust", "try 2")] == 100.0
    assert bars[("diff · rust", "try 1")] == 0.0 and bars[("diff · python", "try 2")] == 100.0
