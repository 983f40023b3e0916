"""The suite through the real command line, sandbox and store."""

import json

from tests.jsonschema.fixture import counts, make_suite


def test_reference_scores_everything_on_the_fixture(cli, suite_root):
    result = cli("run", "jsonschema", "--path", str(suite_root), "--model", "reference", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    files, tests = counts()
    assert summary["passed"] == summary["tasks"] == files
    assert summary["verdicts"] == {"ok": files, "partial": 0, "failure": 0, "compile": 0}
    assert summary["tests_passed"] == summary["tests_total"] == tests
    assert summary["scores"]["augmented"]["ok"] == files
    assert summary["flagged"]["samples"] == files  # the reference imports a library
    assert "draft2020-12 required" in summary["suite_version"]
    assert f"{files} schemas, {tests} tests" in result.stderr
    again = cli("report", summary["run_id"], "--json").json()
    assert again["verdicts"] == summary["verdicts"] and len(again["groups"]) == files


def test_compiler_contender_is_graded_in_the_same_tables(cli, suite_root):
    result = cli("run", "jsonschema", "--path", str(suite_root), "--model", "reference",
                 "-o", "contender=compiler:fastjsonschema", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["contender"] == "compiler:fastjsonschema"
    assert summary["contender_version"].startswith("fastjsonschema ")
    assert sum(summary["verdicts"].values()) == counts()[0]
    groups = {g["task"]: g for g in summary["groups"]}
    assert groups["ref/0"]["verdict"] == "partial"  # a draft-07 compiler ignores $ref siblings
    assert groups["ref/0"]["failed"] == ["above the sibling"]
    tags = {row["tag"] for row in summary["mistakes"]}
    assert "ref-siblings-ignored" in tags


def test_bad_suite_file_is_one_line_and_exit_2(cli, tmp_path):
    root = make_suite(tmp_path)
    path = root / "json" / "tests" / "draft2020-12" / "type.json"
    path.write_text(json.dumps([{"description": "no schema", "tests": []}]))
    result = cli("run", "jsonschema", "--path", str(root), "--model", "reference")
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1
    assert str(path) in lines[0] and "'schema'" in lines[0]
