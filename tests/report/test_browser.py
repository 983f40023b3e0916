"""The HTML report opened in a real headless Chromium, on real runs the test makes: every chart
drawn, nothing logged, no model output run as code, the spec chart's groups, marks and tooltips,
no table cell wider than the window, unfinished runs labelled. Screenshots of the page and PNGs
of each chart are kept under artifacts/ for people to look at."""

from __future__ import annotations

import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codetrial.report.html_report import write_html_report
from codetrial.store import Store
from tests.jsonschema.fixture import GROUPS, group, make_suite
from tests.report import chromium
from tests.report.builders import (
    HOSTILE_NAME,
    completion_run,
    edit_run,
    perf_file,
    synth_state,
)
from tests.suites.exercism_fixture import make_exercises

ARTIFACTS = Path(__file__).resolve().parents[2] / "artifacts"
SYNTH_CASES = Path(__file__).resolve().parents[1] / "synth" / "cases"
TRACK_SIZE = 129
# fastjsonschema cannot compile a pattern Python's re rejects: a compile error, drawn at 0
SCHEMAS = {**GROUPS, "pattern": [*GROUPS["pattern"], group(
    "unicode property escape", {"pattern": "\\p{L}+"}, ("letters", "ab", True),
    ("digits", "12", False))]}
VIEWPORT = (1280, 1400)  # the width a person's window has; tall enough to hover the chart

pytestmark = pytest.mark.skipif(
    chromium.chromium() is None,
    reason="Debian's chromium is not installed (bash scripts/setup.sh --test installs it)")


def run_json(cli, *args: str) -> str:
    result = cli("run", *args, "--model", "reference", "--json")
    assert result.code == 0, result.stderr
    return result.json()["run_id"]


def track(root: Path) -> tuple[Path, list[str]]:
    """An Exercism track of TRACK_SIZE exercises (copies of two-fer under other names)."""
    make_exercises(root, "track", names=["two-fer"])
    practice = root / "exercises" / "practice"
    names = ["two-fer"] + [f"two-fer-{i:03d}" for i in range(1, TRACK_SIZE)]
    for name in names[1:]:
        shutil.copytree(practice / "two-fer", practice / name)
    return root, names


def killed_run(ct_home: Path) -> str:
    """A real run whose process is SIGKILLed once it has stored a few samples."""
    env = {**os.environ, "CODETRIAL_HOME": str(ct_home)}
    proc = subprocess.Popen([sys.executable, "-m", "codetrial", "run", "humaneval", "--model",
                             "reference", "--concurrency", "1"], env=env,
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                            start_new_session=True)
    try:
        deadline = time.time() + 120
        while stored(ct_home / "runs.sqlite") < 3:
            assert proc.poll() is None and time.time() < deadline, "the run ended by itself"
            time.sleep(0.05)
    finally:
        os.killpg(proc.pid, signal.SIGKILL)
        proc.wait()
    with sqlite3.connect(ct_home / "runs.sqlite") as db:
        [(run_id,)] = db.execute("SELECT run_id FROM runs WHERE finished IS NULL").fetchall()
    return run_id


def stored(path: Path) -> int:
    if not path.exists():
        return 0
    with sqlite3.connect(path) as db:
        try:
            return db.execute("SELECT count(*) FROM samples s JOIN runs r USING (run_id) "
                              "WHERE r.finished IS NULL").fetchone()[0]
        except sqlite3.OperationalError:  # the tables are not made yet
            return 0


@pytest.fixture
def report_runs(cli, ct_home: Path, tmp_path: Path) -> tuple[Store, list[str], str]:
    """Real runs of every kind the report draws, an unfinished one, and stored ones real runs
    never make (hostile model output)."""
    cases = shutil.copytree(SYNTH_CASES, tmp_path / "cases")
    synth_state(cases)
    schemas = str(make_suite(tmp_path / "schemas", SCHEMAS))
    exercises, names = track(tmp_path / "track")
    unfinished = killed_run(ct_home)
    ids = [
        run_json(cli, "humaneval", "--limit", "10"),
        run_json(cli, "humaneval-edit", "--edit-format", "diff", "--limit", "5", "-o", "tries=2",
                 "--repeat", "2"),
        run_json(cli, "exercism", "--path", str(exercises), "--exercises", ",".join(names),
                 "--limit", "3", "--edit-format", "udiff"),
        run_json(cli, "jsonschema", "-o", f"suite_path={schemas}",
                 "-o", "contender=library:jsonschema"),
        run_json(cli, "jsonschema", "-o", f"suite_path={schemas}",
                 "-o", "contender=compiler:fastjsonschema"),
        run_json(cli, "yaml", "--path", str(cases)),
        unfinished,
    ]
    store = Store(ct_home / "runs.sqlite")
    ids.append(edit_run(store, "edits-x", HOSTILE_NAME, [[1, 2, None, 2, 1], [1, 1, None, 2, 2]]))
    ids.append(completion_run(store))
    return store, ids, unfinished


def test_report_in_a_browser(report_runs, cli, tmp_path: Path):
    store, ids, unfinished = report_runs
    ARTIFACTS.mkdir(exist_ok=True)
    png = ARTIFACTS / "charts"
    shutil.rmtree(png, ignore_errors=True)
    page = write_html_report(store, ids, tmp_path / "report.html", png_dir=png,
                             perf_files=[perf_file(tmp_path / "race.json")])
    shutil.copy(page, ARTIFACTS / "report.html")

    dom, console = chromium.load(page)
    drawn = chromium.charts(dom)
    assert set(drawn) == {"chart-editing", "chart-spec-groups", "chart-speed",
                          "chart-synth-funnel", "chart-synth-pass-at"}
    assert all(drawn.values()), f"charts with no <svg>/<canvas>: {drawn}"
    assert f'data-charts-done="{len(drawn)}"' in dom
    assert console == [], f"the page logged: {console}"
    made = chromium.elements(dom)
    assert not [attrs for _, attrs in made if {"data-errors", "data-pwned"} & set(attrs)]
    assert not [tag for tag, attrs in made if tag == "img" or attrs.get("id") == "injected"]
    assert "&lt;/script&gt;&lt;script&gt;document.documentElement" in dom  # shown as text
    assert sorted(p.name for p in png.iterdir()) == sorted(
        f"{name.removeprefix('chart-')}.png" for name in drawn)

    seen = chromium.probe(page, ARTIFACTS / "spec-tooltip.png", VIEWPORT)
    assert seen["errors"] == []
    # the spec chart: one x value per keyword group, a mark for every schema of each contender
    assert seen["axis"] == sorted(SCHEMAS)
    marks = seen["marks"]
    schemas = sum(len(groups) for groups in SCHEMAS.values())
    assert len(marks) == 2 * schemas
    by_contender = {m["contender"] for m in marks}
    assert by_contender == {"library:jsonschema", "compiler:fastjsonschema"}
    compiled = [m for m in marks if m["verdict"] == "compile"]
    assert compiled and all(m["percent"] == 0 and m["visible"] for m in compiled)
    assert {m["task"] for m in compiled} >= {"pattern/1"}
    assert all(m["visible"] for m in marks)
    # hovering a compile error shows its group, schema and ❌ test lines
    tip = seen["tooltip"]
    assert tip["visible"] and "pattern" in tip["text"] and "\\\\p{L}+" in tip["text"]
    assert "\u274c letters" in tip["text"] and "\u274c digits" in tip["text"]
    # no table cell wider than a 1280-pixel window; the Exercism list is folded
    assert seen["wide_cells"] == [] and seen["viewport"] == VIEWPORT[0]
    assert seen["summary_width"] <= VIEWPORT[0]
    assert f"exercises: {TRACK_SIZE} items" in dom
    # the unfinished run, in the page and in `codetrial report`
    assert unfinished in seen["unfinished"]
    assert f"codetrial run --resume {unfinished}" in seen["unfinished"]
    shown = cli("report", unfinished)
    assert shown.code == 0, shown.stderr
    assert "unfinished" in shown.stdout
    assert f"codetrial run --resume {unfinished}" in shown.stdout

    chromium.screenshot(page, ARTIFACTS / "report.png", (VIEWPORT[0], 6000))
    assert (ARTIFACTS / "report.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
