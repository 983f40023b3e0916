"""Appliers on their own: the matching cascade, udiff recovery, new-file policy, newlines."""

from __future__ import annotations

import pytest

from codetrial.editformats import Edit, get_format
from codetrial.editformats.matching import AmbiguousMatch, NoMatch, replace_once
from codetrial.editformats.text import new_path_problem, resolve_path

CLASS = "class A:\n    def f(self):\n        return 1\n\n    def g(self):\n        return 2\n"


def test_exact_match_wins_over_reindent() -> None:
    text, how = replace_once(CLASS, "        return 1\n", "        return 10\n")
    assert "return 10" in text and how == "replaced line 3"


def test_reindent_both_ways() -> None:
    deeper, how = replace_once(CLASS, "def g(self):\n    return 2\n",
                               "def g(self):\n    x = 2\n    return x\n")
    assert deeper.endswith("    def g(self):\n        x = 2\n        return x\n")
    assert "indentation" in how
    shallower, _ = replace_once("x = 1\ny = 2\n", "    x = 1\n", "    x = 3\n")
    assert shallower == "x = 3\ny = 2\n"


def test_blank_lines_may_differ() -> None:
    text, how = replace_once("a = 1\n\n\nb = 2\n", "a = 1\nb = 2\n", "a = 1\nb = 3\n")
    assert text == "a = 1\nb = 3\n" and "blank lines ignored" in how


def test_elision_needs_the_same_count() -> None:
    with pytest.raises(NoMatch, match="same number"):
        replace_once(CLASS, "    def f(self):\n...\n        return 2\n", "x\n")


def test_ambiguous_and_missing() -> None:
    with pytest.raises(AmbiguousMatch):
        replace_once("a\nb\na\n", "a\n", "c\n")
    with pytest.raises(NoMatch) as caught:
        replace_once("a\n", "zzz\n", "c\n")
    assert caught.value.missing == "zzz\n"


def test_missing_final_newline_is_kept() -> None:
    assert replace_once("a\nb", "b\n", "c\n")[0] == "a\nc"


def test_udiff_splits_a_hunk_whose_changes_are_far_apart() -> None:
    before = {"m.py": "".join(f"line{i}\n" for i in range(20))}
    reply = ("```diff\n--- m.py\n+++ m.py\n@@ @@\n line1\n-line2\n+LINE2\n line3\n"
             " something the model imagined\n line17\n-line18\n+LINE18\n line19\n```\n")
    result = get_format("udiff").edit(reply, [], before)
    assert result.ok, result.errors
    assert "LINE2\n" in result.files["m.py"] and "LINE18\n" in result.files["m.py"]
    assert "smaller hunks" in result.applied[0]


def test_udiff_mixed_forgotten_markers() -> None:
    before = {"m.py": "def f():\n    return 1\n"}
    reply = "```diff\n--- m.py\n+++ m.py\n@@ @@\ndef f():\n-    return 1\n    x = 2\n    return x\n"
    result = get_format("udiff").edit(reply, [], before)
    assert result.files["m.py"] == "def f():\n    x = 2\n    return x\n"


@pytest.mark.parametrize("path,problem", [
    ("helpers.py", None), ("pkg/util.py", None), ("../x.py", "leaves"), ("/etc/passwd", "absolute"),
    (".github/x.yml", "hidden"), ("a b.py", "characters"),
])
def test_new_path_policy(path: str, problem: str | None) -> None:
    found = new_path_problem(path)
    assert (found is None) if problem is None else (problem in found)


def test_resolve_path() -> None:
    known = ["hello_world.py", "pkg/robot.py"]
    assert resolve_path("./hello_world.py", known) == "hello_world.py"
    assert resolve_path("/tmp/ex/pkg/robot.py", known) == "pkg/robot.py"
    assert resolve_path("robot.py", known) == "pkg/robot.py"
    assert resolve_path("hello_wrld.py", known) == "hello_world.py"
    assert resolve_path("hello_world_test.py", known) == "hello_world_test.py"


def test_untouched_files_come_back_byte_for_byte() -> None:
    files = {"a.py": "x = 1\r\n", "b.py": "y = 1\r\n"}
    result = get_format("whole").apply([Edit("a.py", "whole", content="x = 2\n")], files)
    assert result.files == {"a.py": "x = 2\r\n", "b.py": "y = 1\r\n"}
    assert result.touched == {"a.py"}


def test_apply_reports_instead_of_raising() -> None:
    edits = [Edit("a.py", "replace", search="nope\n", replace="x\n"),
             Edit("a.py", "replace", search="x = 1\n", replace="x = 2\n")]
    result = get_format("diff").apply(edits, {"a.py": "x = 1\n"})
    assert result.files["a.py"] == "x = 2\n"
    assert len(result.errors) == 1 and len(result.failures) == 1 and len(result.applied) == 1
