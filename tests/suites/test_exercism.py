"""Exercism layouts, the edit loop through every format, and grading that cannot be fooled."""

import json

import pytest

from codetrial.core import UsageError
from codetrial.suites import create_suite
from tests.suites.exercism_fixture import make_exercises

FORMATS = ["whole", "diff", "udiff", "whole-func", "diff-func"]


@pytest.mark.parametrize("layout", ["flat", "track", "multi"])
def test_layouts_are_found(tmp_path, layout):
    root = make_exercises(tmp_path, layout)
    tasks = create_suite("exercism", {"path": str(root)}).load_tasks()
    assert sorted(t.id for t in tasks) == ["area-tools", "two-fer"]
    area = next(t for t in tasks if t.id == "area-tools")
    assert area.prompt.startswith("Geometry helpers.") and "Areas are floats." in area.prompt
    assert sorted(area.data["stubs"]) == ["area_tools.py", "geometry.py"]
    assert "_test" not in "".join(area.data["stubs"])


def test_exercise_filter_and_unknown_name(tmp_path):
    root = make_exercises(tmp_path)
    suite = create_suite("exercism", {"path": str(root), "exercises": "two-fer"})
    assert [t.id for t in suite.load_tasks()] == ["two-fer"]
    with pytest.raises(UsageError, match="nope"):
        create_suite("exercism", {"path": str(root), "exercises": "nope"}).load_tasks()


@pytest.mark.parametrize("content,field", [
    ("{not json", "invalid JSON"),
    (json.dumps({"nofiles": 1}), "'files'"),
    (json.dumps({"files": {"solution": ["two_fer.py"], "test": []}}), "files.test"),
    (json.dumps({"files": {"solution": ["gone.py"], "test": ["two_fer_test.py"],
                           "example": [".meta/example.py"]}}), "gone.py"),
])
def test_broken_config_names_file_and_field(tmp_path, content, field):
    root = make_exercises(tmp_path, names=["two-fer"])
    config = root / "two-fer" / ".meta" / "config.json"
    config.write_text(content)
    with pytest.raises(UsageError) as err:
        create_suite("exercism", {"path": str(root)}).load_tasks()
    assert str(config) in str(err.value) and field in str(err.value)


@pytest.mark.parametrize("fmt", FORMATS)
def test_reference_passes_exercism_fixture_in_every_format(cli, tmp_path, fmt):
    root = make_exercises(tmp_path / "ex", "track")
    result = cli("run", "exercism", "--path", str(root), "--model", "reference",
                 "--edit-format", fmt, "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["passed"] == 2 and summary["pass_rate_by_try"][0] == 1.0
    assert summary["percent_well_formed"] == 100.0 and summary["edit_format"] == fmt


@pytest.mark.parametrize("fmt", FORMATS)
def test_reference_passes_humaneval_edit_in_every_format(cli, fmt):
    result = cli("run", "humaneval-edit", "--model", "reference", "--edit-format", fmt, "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert (summary["tasks"], summary["passed"]) == (164, 164)
    assert summary["malformed_replies"] == 0
