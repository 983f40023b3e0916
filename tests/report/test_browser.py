"""The HTML report opened in a real headless Chromium: every chart drawn, nothing logged, no
model output run as code; a screenshot is kept under artifacts/ for people to look at."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from codetrial.report.html_report import write_html_report
from codetrial.store import Store
from tests.jsonschema.fixture import make_suite
from tests.report import chromium
from tests.report.builders import (
    HOSTILE_NAME,
    completion_run,
    edit_run,
    perf_file,
    synth_state,
)

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
SYNTH_CASES = Path(__file__).resolve().parents[1] / "synth" / "cases"

pytestmark = pytest.mark.skipif(
    chromium.chromium() is None,
    reason="Debian's chromium is not installed (bash scripts/setup.sh --test installs it)")


def run_json(cli, *args: str) -> str:
    result = cli("run", *args, "--model", "reference", "--json")
    assert result.code == 0, result.stderr
    return result.json()["run_id"]


@pytest.fixture
def report_runs(cli, ct_home: Path, tmp_path: Path) -> tuple[Store, list[str]]:
    """Real runs of every kind the report draws, and stored ones real runs never make."""
    cases = shutil.copytree(SYNTH_CASES, tmp_path / "cases")
    synth_state(cases)
    ids = [
        run_json(cli, "humaneval", "--limit", "10"),
        run_json(cli, "humaneval-edit", "--edit-format", "diff", "--limit", "5", "-o", "tries=2",
                 "--repeat", "2"),
        run_json(cli, "jsonschema", "-o", f"suite_path={make_suite(tmp_path / 'schemas')}",
                 "-o", "contender=compiler:fastjsonschema"),
        run_json(cli, "yaml", "--path", str(cases)),
    ]
    store = Store(ct_home / "runs.sqlite")
    ids.append(edit_run(store, "edits-x", HOSTILE_NAME, [[1, 2, None, 2, 1], [1, 1, None, 2, 2]]))
    ids.append(completion_run(store))
    return store, ids


def test_report_renders_every_chart_without_errors(report_runs, tmp_path: Path):
    store, ids = report_runs
    page = write_html_report(store, ids, tmp_path / "report.html", png_dir=tmp_path / "png",
                             perf_files=[perf_file(tmp_path / "race.json")])

    dom, console = chromium.load(page)
    drawn = chromium.charts(dom)
    ARTIFACTS.mkdir(exist_ok=True)
    shutil.copy(page, ARTIFACTS / "report.html")
    chromium.screenshot(page, ARTIFACTS / "report.png")

    assert set(drawn) == {"chart-editing", "chart-spec-groups", "chart-speed",
                          "chart-synth-funnel", "chart-synth-pass-at"}
    assert all(drawn.values()), f"charts with no <svg>/<canvas>: {drawn}"
    assert f'data-charts-done="{len(drawn)}"' in dom
    assert console == [], f"the page logged: {console}"
    made = chromium.elements(dom)
    assert not [attrs for _, attrs in made if {"data-errors", "data-pwned"} & set(attrs)]
    assert not [tag for tag, attrs in made if tag == "img" or attrs.get("id") == "injected"]
    assert "&lt;/script&gt;&lt;script&gt;document.documentElement" in dom  # shown as text
    assert sorted(p.name for p in (tmp_path / "png").iterdir()) == sorted(
        f"{name.removeprefix('chart-')}.png" for name in drawn)
    assert (ARTIFACTS / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
