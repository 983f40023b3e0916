"""Suite files: selection counts, options, and bad files named with their field."""

import json

import pytest

from codetrial.core import UsageError
from codetrial.suites import create_suite
from tests.jsonschema.fixture import GROUPS, counts, make_suite


def load(root, **options):
    return create_suite("jsonschema", {"suite_path": str(root), **options}).load_tasks()


def test_one_task_per_group_with_counts_printed(suite_root, capsys):
    tasks = load(suite_root)
    files, tests = counts()
    assert len(tasks) == files and sum(len(t.data["tests"]) for t in tasks) == tests
    assert f"{files} files, {files} schemas, {tests} tests" in capsys.readouterr().err
    task = next(t for t in tasks if t.id == "type/0")
    assert "validate(instance) -> bool" in task.prompt and '"type": "integer"' in task.prompt
    assert "do not check it" in task.prompt and task.data["entry_point"] == "validate"


def test_include_omit_and_presets(suite_root):
    with_format = {t.id: t for t in load(suite_root, include="format")}
    assert with_format["optional/format/date/0"].data["assert_format"] is True
    assert "reject strings that do not match" in with_format["optional/format/date/0"].prompt
    ids = {t.id for t in load(suite_root, omit="study")}
    assert "refRemote/0" not in ids and "type/0" in ids
    assert {t.id for t in load(suite_root, omit="enum,pattern.json")}.isdisjoint(
        {"enum/0", "pattern/0"})


def test_remote_documents_travel_with_the_task(suite_root):
    task = next(t for t in load(suite_root) if t.id == "refRemote/0")
    url = "http://localhost:1234/draft2020-12/integer.json"
    assert list(task.data["remotes"]) == [url] and url in task.prompt


def test_version_names_origin_selection_and_digest(suite_root, tmp_path):
    suite = create_suite("jsonschema", {"suite_path": str(suite_root)})
    version = suite.version()
    assert "draft2020-12 required" in version and "sha256" in version
    changed = make_suite(tmp_path, {**GROUPS, "extra": GROUPS["type"]})
    assert create_suite("jsonschema", {"path": str(changed)}).version() != version


@pytest.mark.parametrize("options,message", [
    ({"draft": "5"}, "unknown draft"),
    ({"include": "everything"}, "unknown include"),
    ({"omit": "nosuchfile"}, "omit: no file 'nosuchfile'"),
    ({"contender": "library:nope"}, "unknown contender"),
    ({"augment": "maybe"}, "option augment"),
    ({"colour": "red"}, "unknown option 'colour'"),
])
def test_bad_options(suite_root, options, message):
    with pytest.raises(UsageError, match=message):
        load(suite_root, **options)


@pytest.mark.parametrize("content,field", [
    ("[{not json", "invalid JSON"),
    (json.dumps({"description": "x"}), "expected a list"),
    (json.dumps([{"description": "x", "tests": []}]), "group 0: missing field 'schema'"),
    (json.dumps([{"schema": {}, "tests": []}]), "group 0: missing field 'description'"),
    (json.dumps([{"description": "x", "schema": {}, "tests": [{"description": "t", "data": 1}]}]),
     "tests[0]: missing field 'valid'"),
    (json.dumps([{"description": "x", "schema": {},
                  "tests": [{"description": "t", "data": 1, "valid": "yes"}]}]),
     "tests[0]: field 'valid' must be a bool"),
])
def test_bad_suite_file_names_file_and_field(tmp_path, content, field):
    root = make_suite(tmp_path)
    path = root / "json" / "tests" / "draft2020-12" / "enum.json"
    path.write_text(content)
    with pytest.raises(UsageError) as err:
        load(root)
    assert str(path) in str(err.value) and field in str(err.value)


def test_not_a_checkout(tmp_path):
    with pytest.raises(UsageError, match="not a JSON-Schema-Test-Suite checkout"):
        load(tmp_path)
