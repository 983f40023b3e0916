"""The ten hand-checked YAML cases through the real command line, sandbox and store."""

import json
import sqlite3
from pathlib import Path

import pytest

CASES = Path(__file__).parents[1] / "synth" / "cases"
HEADER = "# Databricks notebook source"


def attempts(home: Path, run_id: str) -> list[tuple[str, dict, dict]]:
    """(task, request, details) of every stored attempt of a run."""
    db = sqlite3.connect(home / "runs.sqlite")
    rows = db.execute("SELECT task_id, request, details FROM attempts WHERE run_id = ?",
                      (run_id,)).fetchall()
    return [(task, json.loads(request), json.loads(details)) for task, request, details in rows]


@pytest.mark.parametrize("protocol", ["fim", "fill-chat"])
def test_reference_fills_every_hole(cli, protocol):
    result = cli("run", "yaml", "--path", str(CASES), "--model", "reference",
                 "--protocol", protocol, "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert (summary["tasks"], summary["passed"], summary["infra_errors"]) == (10, 10, 0)
    assert summary["most_failed"] == []


def test_local_model_fim_with_samples_and_a_header(cli, ct_home):
    result = cli("run", "yaml", "--path", str(CASES), "--model", "local", "--protocol", "fim",
                 "-n", "2", "--temperature", "0.2", "--top-p", "0.95", "--max-tokens", "16",
                 "-o", f"header={HEADER}", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert (summary["tasks"], summary["samples"], summary["infra_errors"]) == (10, 20, 0)
    interval = summary["pass_at_interval"]["1"]
    assert interval["low"] <= summary["pass_at"]["1"] <= interval["high"]
    assert sum(row["failed"] for row in summary["most_failed"]) == 20 - summary["passed"]
    for _, request, details in attempts(ct_home, summary["run_id"]):
        assert request["prompt"].startswith(HEADER + "\n")  # SmolLM2: the prefix format
        assert "<here>" not in request["prompt"]
        assert (request["temperature"], request["top_p"]) == (0.2, 0.95)
        assert details.get("fill") is not None


def test_local_model_fill_chat(cli, ct_home):
    result = cli("run", "yaml", "--path", str(CASES), "--model", "local",
                 "--protocol", "fill-chat", "--max-tokens", "16", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert (summary["tasks"], summary["samples"], summary["infra_errors"]) == (10, 10, 0)
    for _, request, _ in attempts(ct_home, summary["run_id"]):
        content = request["messages"][0]["content"]
        assert "<here>" in content and "missing code only" in content


def test_named_fim_format_shapes_the_prompt(cli, ct_home):
    result = cli("run", "yaml", "--path", str(CASES), "--model", "reference", "--protocol",
                 "fim", "-o", "fim_format=starcoder", "--tasks", "python_gcd", "--json")
    assert result.code == 0, result.stderr
    [(_, request, _)] = attempts(ct_home, result.json()["run_id"])
    assert request["prompt"] == (
        "<fim_prefix>import math\n\n# The greatest common divisor of 84 and 36.\nresult = "
        "<fim_suffix>\n<fim_middle>")
    assert request["stop"] == ["<|endoftext|>", "<file_sep>"]
