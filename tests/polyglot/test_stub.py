"""The stub contender sends the files back unchanged: its passes are the free passes, which the
summary names, with figures per language and the toolchains the attempts recorded."""

from __future__ import annotations

import dataclasses

from tests.polyglot.exercises import GO_LEAP, JS_SHAPES, write_all


def test_stub_finds_the_free_passes(cli, tmp_path):
    solved = dataclasses.replace(GO_LEAP, solution=GO_LEAP.reference())  # a refactoring task
    root = write_all(tmp_path / "exercises", [solved, JS_SHAPES])
    result = cli("run", "exercism", "--path", str(root), "--model", "stub", "--edit-format",
                 "whole", "--tries", "1", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["passed"] == 1 and summary["passed_unchanged"] == ["go/leap"], summary
    assert summary["percent_well_formed"] == 100.0
    by_language = summary["by_language"]
    assert by_language["go"]["passed"] == 1 and by_language["javascript"]["passed"] == 0
    assert by_language["javascript"]["pass_rate_by_try"] == [0.0]
    assert by_language["go"]["cost_usd"] == 0 and by_language["go"]["test_timeouts"] == 0
    assert by_language["go"]["test_seconds_per_case"] > 0
    assert "go1." in summary["toolchains"]["go"]["toolchain"]
    assert "xtest" in summary["toolchains"]["javascript"]["unskipped"]
    assert set(summary["toolchains"]) == {"go", "javascript"}
