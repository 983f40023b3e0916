"""The suite data cache: built once per data version, read back only when it is ours alone and
whole, and never able to change a verdict."""

from __future__ import annotations

import asyncio
import json
import os

import pytest

from codetrial.sandbox import Sandbox
from codetrial.suites import grading
from codetrial.suites.data_cache import SuiteDataCache
from codetrial.suites.humaneval import LIMITS, HumanEval, call_check, data_file
from codetrial.suites.recorded_calls import check_key, remember_calls

DATA = b"the bytes the checks come from"


@pytest.fixture
def fresh(monkeypatch):
    """No calls recorded in this process yet; counts the recordings made."""
    monkeypatch.setattr(grading, "_recorded", {})
    made = []
    record = grading._record
    monkeypatch.setattr(grading, "_record", lambda check: made.append(check) or record(check))
    return made


def cache_file(home):
    [path] = (home / "suite-data").glob("calls-*.json")
    return path


def test_recorded_once_then_read_back(tmp_path, fresh, checks, monkeypatch):
    remember_calls("calls", DATA, checks, tmp_path)
    assert len(fresh) == 3
    path = cache_file(tmp_path)
    assert path.stat().st_mode & 0o777 == 0o600 and path.parent.stat().st_mode & 0o777 == 0o700
    expected = [grading.record_calls(c) for c in checks]
    monkeypatch.setattr(grading, "_recorded", {})
    remember_calls("calls", DATA, checks, tmp_path)
    assert len(fresh) == 3  # nothing recorded again
    assert [grading.record_calls(c) for c in checks] == expected
    stored = json.loads(path.read_bytes().split(b"\n", 1)[1])
    for check, calls in zip(checks, expected, strict=True):  # what the program reads
        text = grading.calls_text(check, grading.record_calls(check))
        assert text == stored[check_key(check)] and json.loads(text) == calls


def test_other_data_is_another_file(tmp_path, fresh, checks):
    remember_calls("calls", DATA, checks, tmp_path)
    remember_calls("calls", DATA + b"!", checks, tmp_path)
    assert len(list((tmp_path / "suite-data").glob("calls-*.json"))) == 2


def tampered(path) -> None:
    header, body = path.read_bytes().split(b"\n", 1)
    entries = json.loads(body)
    key = next(iter(entries))
    entries[key] = json.dumps([[[123456], {}]])
    path.write_bytes(header + b"\n" + json.dumps(entries).encode())


@pytest.mark.parametrize("spoil", ["body", "header", "mode", "truncated"])
def test_a_file_that_is_not_whole_or_not_ours_alone_is_rebuilt(tmp_path, fresh, checks,
                                                                monkeypatch, spoil):
    remember_calls("calls", DATA, checks, tmp_path)
    path = cache_file(tmp_path)
    if spoil == "body":
        tampered(path)
    elif spoil == "header":
        path.write_bytes(b'{"format": 1}\n' + path.read_bytes().split(b"\n", 1)[1])
    elif spoil == "mode":
        os.chmod(path, 0o666)
    else:
        path.write_bytes(path.read_bytes()[:100])
    monkeypatch.setattr(grading, "_recorded", {})
    remember_calls("calls", DATA, checks, tmp_path)
    assert len(fresh) == 6  # recorded again, not read
    monkeypatch.setattr(grading, "_recorded", {})  # and the rewritten file is read back
    remember_calls("calls", DATA, checks, tmp_path)
    assert len(fresh) == 6


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the folder away")
def test_a_folder_someone_else_owns_is_not_read(tmp_path, fresh, checks, monkeypatch):
    remember_calls("calls", DATA, checks, tmp_path)
    os.chown(tmp_path / "suite-data", 65534, 65534)
    monkeypatch.setattr(grading, "_recorded", {})
    remember_calls("calls", DATA, checks, tmp_path)
    assert len(fresh) == 6


def test_a_forged_list_with_a_valid_digest_changes_no_verdict(tmp_path, fresh, ct_home):
    """Someone who could write the file and recompute its digest gets slower grading (the
    replay sees the test call with other arguments and grades apart), never another verdict."""
    task = HumanEval({}).load_tasks()[0]
    check = call_check(task)
    data = data_file().read_bytes()
    cache = next((ct_home / "suite-data").glob("human-eval-calls-*.json"))
    header, body = cache.read_bytes().split(b"\n", 1)
    entries = json.loads(body)
    forged = [[[[1.0, 2.0]], {"d": []}]]  # not what the test will ask
    entries[check_key(check)] = json.dumps(forged)
    SuiteDataCache("human-eval-calls", json.loads(header)["key"], ct_home).save(entries)
    grading._recorded.clear()  # the fixture's own dict
    remember_calls("human-eval-calls", data, [check])
    assert grading.record_calls(check) == forged  # the forgery was read

    async def grades() -> tuple:
        async with Sandbox(workers=1) as sandbox:
            right = await grading.grade_by_value(check, HumanEval({}).reference_code(task),
                                                 sandbox, LIMITS)
            wrong = await grading.grade_by_value(check, task.prompt + "    return True\n",
                                                 sandbox, LIMITS)
        return right, wrong

    right, wrong = asyncio.run(grades())
    assert right.verdict == "passed" and right.details.get("judged") == "apart"
    assert wrong.verdict == "failed"
