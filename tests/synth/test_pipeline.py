"""`codetrial synth` end to end: real sources, the real sandbox, the embedded model, the store."""

import json
import sqlite3
from pathlib import Path

from codetrial.synth.state import State
from codetrial.synth.writer import write_seed_case

STATES = {"written", "review", "no-instruction"}


def run_reference(cli, path: Path) -> dict:
    result = cli("run", "yaml", "--path", str(path), "--model", "reference", "--json")
    assert result.code == 0, result.stderr
    return result.json()


def steps(out: Path) -> list[tuple]:
    db = sqlite3.connect(out / "synth.sqlite")
    return db.execute("SELECT seed_id, stage, try, model, request, reply FROM steps").fetchall()


def materialize(source_dir: Path, out: Path, every: int = 1) -> int:
    """Write kept seeds as cases through the pipeline's own writer, with a stand-in instruction
    (the model stages are tested elsewhere): proves the case shape for every kind of seed."""
    out.mkdir()
    (out / "synth.sqlite").write_bytes((source_dir / "synth.sqlite").read_bytes())
    state = State(out)
    kept = [f for f in state.filtered() if f.kept][::every]
    for f in kept:
        state.record_step(f.seed.id, "instruction", 0, "test", {}, "", "Compute the result.",
                          "ok")
        write_seed_case(state, f, "test", "written")
    state.close()
    return len(kept)


def test_reference_passes_duckdb_cases(cli, duckdb_dir, tmp_path):
    out, _ = duckdb_dir
    n = materialize(out, tmp_path / "cases", every=4)
    summary = run_reference(cli, tmp_path / "cases")
    assert (summary["tasks"], summary["passed"]) == (n, n) and n > 90


def test_python_statistics_end_to_end(cli, tmp_path):
    out = tmp_path / "stats"
    result = cli("synth", "python:statistics", "--author-model", "local",
                 "--validator-model", "reference", "--limit", "2", "--tries", "1",
                 "--out", str(out), "--json")
    assert result.code == 0, result.stderr
    report = result.json()
    assert report["filter"] == {
        "examples": 39, "functions": 18,
        "dropped": {"error": 0, "unstable": 0, "nondeterministic": 0, "volatile": 0,
                    "mismatch": 2, "duplicate": 0},  # linear_regression's docs elide digits
        "kept_examples": 37, "kept_functions": 17,
    }
    assert sum(report["cases"].values()) == 2 and set(report["cases"]) <= STATES
    for _, stage, _, model, request, reply in steps(out):
        assert model.startswith("local:" if stage == "instruction" else "reference")
        assert json.loads(request)["messages"] and isinstance(reply, str)
    written = sorted(out.glob("*.yaml"))
    assert len(written) == report["cases"].get("written", 0)
    for path in written:
        text = path.read_text()
        assert "source: python:statistics" in text and "sha256:" in text and "example:" in text
    every = tmp_path / "every"
    n = materialize(out, every)
    assert n == 37 and run_reference(cli, every)["passed"] == 37


def test_duckdb_end_to_end_with_the_local_model_then_resume(cli, tmp_path):
    out = tmp_path / "duck"
    args = ("duckdb", "--author-model", "local", "--functions", "abs,upper", "--limit", "2",
            "--tries", "1", "--out", str(out), "--json")
    first = cli("synth", *args)
    assert first.code == 0, first.stderr
    report = first.json()
    assert report["filter"]["kept_examples"] == 2
    assert sum(report["cases"].values()) == 2 and set(report["cases"]) <= STATES
    recorded = steps(out)
    assert recorded and all(model.startswith("local:") for _, _, _, model, _, _ in recorded)
    environment = State(out).get("environment")
    assert environment["versions"]["duckdb"] == "2.0.1"
    assert environment["settings"] == {"threads": 1, "TimeZone": "UTC"}

    again = cli("synth", *args)  # resumes: nothing left to ask
    assert again.code == 0, again.stderr
    assert again.json()["cases"] == report["cases"] and steps(out) == recorded

    waiting = cli("synth", "review", str(out)).stdout.split()
    for seed_id in waiting[::2]:
        assert cli("synth", "review", str(out), "accept", seed_id).code == 0
    cases = list(out.glob("*.yaml"))
    assert len(cases) == report["cases"].get("written", 0) + report["cases"].get("review", 0)
    if cases:
        assert run_reference(cli, out)["passed"] == len(cases)


def test_resuming_in_another_environment_is_refused(cli, tmp_path):
    out = tmp_path / "stats"
    assert cli("synth", "python:statistics", "--functions", "mean", "--out", str(out)
                 ).code == 0
    state = State(out)
    state.put("environment", {**state.get("environment"), "versions": {"python": "2.7"}})
    state.close()
    result = cli("synth", "python:statistics", "--functions", "mean", "--out", str(out))
    assert result.code == 2 and "use a new --out directory" in result.stderr


def test_unknown_source_and_missing_module_are_usage_errors(cli, tmp_path):
    for source, message in [("cobol", "unknown synthesis source"),
                            ("python:no_such_module", "cannot import no_such_module"),
                            ("python", "needs a module name")]:
        result = cli("synth", source, "--out", str(tmp_path / "x"))
        assert result.code == 2 and message in result.stderr, result.stderr
