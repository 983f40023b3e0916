"""A real (short) race in the sandbox, and `codetrial perf jsonschema RUN_ID` on a stored run."""

import asyncio
import json
from pathlib import Path

from typer.testing import CliRunner

from codetrial.perf.cases import CASES, pick_cases
from codetrial.perf.cli import app
from codetrial.perf.race import Settings, run_race
from tests.jsonschema.fixture import make_suite

QUICK = Settings(sizes=(1, 30), point_seconds=0.05, min_rounds=3, min_batch_seconds=0.001)
ALWAYS_TRUE = "def validate(instance):\n    return True\n"
BROKEN = "def validate(instance)\n"


def test_race_times_every_contender_and_checks_answers():
    extra = {"uniqueItems": {"always true": ALWAYS_TRUE, "broken": BROKEN}}
    result = asyncio.run(run_race([CASES["uniqueItems"]], extra, QUICK))
    names = {m.contender for m in result.measurements}
    assert names == {"jsonschema", "fastjsonschema", "jsonschema-rs", "hand-written",
                     "hand-written naive", "always true"}
    assert all(m.correct for m in result.measurements if m.contender != "always true")
    assert not all(m.correct for m in result.measurements if m.contender == "always true")
    assert any("broken: SyntaxError" in p for p in result.problems)
    best = {m.contender: m.ns for m in result.measurements
            if m.scenario == "best" and m.size == 30}
    assert best["hand-written naive"] > 2 * best["hand-written"]  # early exit wins


def test_perf_command_races_the_runs_passing_validators(cli, ct_home, tmp_path):
    root = make_suite(tmp_path / "suite")
    run = cli("run", "jsonschema", "--path", str(root), "--model", "reference", "--json")
    assert run.code == 0, run.stderr
    run_id = run.json()["run_id"]
    out = tmp_path / "race.json"
    result = CliRunner().invoke(app, [
        "jsonschema", run_id, "--store", str(ct_home / "runs.sqlite"), "--sizes", "1,10",
        "--point-seconds", "0.05", "--cases", "uniqueItems,oneOf", "--out", str(out)])
    assert result.exit_code == 0, result.output
    assert "uniqueItems (best case)" in result.output
    data = json.loads(Path(out).read_text())
    generated = {m["contender"] for m in data["measurements"] if m["contender"].startswith("ref")}
    assert generated == {"reference uniqueItems/0#0", "reference oneOf/0#0"}
    assert data["run_id"] == run_id and data["slopes"]


def test_unknown_case_is_a_usage_error():
    import pytest

    from codetrial.core import UsageError

    with pytest.raises(UsageError, match="unknown race case"):
        pick_cases(["nope"])
