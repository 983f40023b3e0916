"""The reference passes every fixture exercise through the real command line, in `whole` and in
`diff`; task ids name the language and the run records each toolchain."""

from __future__ import annotations

import pytest

from tests.polyglot.exercises import ALL


@pytest.mark.parametrize("fmt", ["whole", "diff"])
def test_reference_passes_every_language(cli, poly_root, fmt):
    result = cli("run", "exercism", "--path", str(poly_root), "--model", "reference",
                 "--edit-format", fmt, "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["tasks"] == len(ALL) and summary["passed"] == len(ALL), summary
    assert summary["percent_well_formed"] == 100.0
    toolchains = summary["toolchains"]  # recorded by every attempt, Python's too
    assert set(toolchains) == {"cpp", "go", "java", "javascript", "python", "rust"}
    assert toolchains["python"]["toolchain"].startswith("python Python 3.")
    assert summary["passed_unchanged"] == []  # the reference changes every stub


def test_languages_selects(cli, poly_root):
    result = cli("run", "exercism", "--path", str(poly_root), "--model", "reference",
                 "--languages", "go", "--exercises", "leap", "--json")
    assert result.code == 0, result.stderr
    assert result.json()["tasks"] == 1 and result.json()["passed"] == 1
    bad = cli("run", "exercism", "--path", str(poly_root), "--model", "reference",
              "--languages", "kotlin")
    assert bad.code == 2 and "--languages: unknown language(s) kotlin" in bad.stderr
