"""`codetrial report RUN_ID --html FILE --png DIR` through the real command line."""

from __future__ import annotations

from pathlib import Path


def test_report_writes_the_page_and_the_charts(cli, tmp_path: Path):
    run = cli("run", "humaneval-edit", "--model", "reference", "--edit-format", "whole",
              "--limit", "2", "--json")
    assert run.code == 0, run.stderr
    page, pngs = tmp_path / "report.html", tmp_path / "png"
    result = cli("report", run.json()["run_id"], "--html", str(page), "--png", str(pngs))
    assert result.code == 0, result.stderr
    assert page.read_text(encoding="utf-8").startswith("<!DOCTYPE html>")
    assert [p.name for p in pngs.iterdir()] == ["editing.png"]


def test_png_without_html_is_a_usage_error(cli):
    result = cli("report", "any-run", "--png", "somewhere")
    assert result.code == 2 and "--html" in result.stderr
