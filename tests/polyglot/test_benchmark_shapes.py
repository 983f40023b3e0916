"""The classes of exercise that aider's polyglot benchmark has and a grader easily gets wrong
(see benchmark_shapes.py): each passes with its reference where the track's own runner passes
it, a wrong solution still fails, and the reference lands where the track puts it."""

from __future__ import annotations

from pathlib import Path

import pytest

from codetrial.core import Verdict
from codetrial.languages import get_language
from codetrial.languages.cpp import DEFINED, compiled_lines
from codetrial.languages.grading import NO_TESTS
from codetrial.languages.layout import reference_paths
from codetrial.suites import create_suite
from tests.polyglot.benchmark_shapes import (
    CPP_STACK,
    CPP_STACK_H,
    GO_WRITE_TESTS,
    JAVA_HANDS,
    REFERENCE_PLACES,
    SHAPES,
)
from tests.polyglot.exercises import write_all


@pytest.fixture(scope="module")
def shapes_root(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return write_all(tmp_path_factory.mktemp("shapes") / "exercises", SHAPES)


def _tasks(root: Path) -> dict:
    suite = create_suite("exercism", {"path": str(root)})
    return suite, {t.id: t for t in suite.load_tasks()}


def test_reference_files_land_where_the_track_puts_them(shapes_root):
    """A header-only example replaces the header (the .cpp stub stays as shipped); a Java
    example of three classes, listed helpers first, lands as three files by class name."""
    suite, tasks = _tasks(shapes_root)
    for task_id, expected in REFERENCE_PLACES.items():
        assert suite.reference_files(tasks[task_id]) == expected


@pytest.mark.parametrize("solution, example, given, expected", [
    (["x.cpp", "x.h"], [".meta/example.h"], set(), {".meta/example.h": "x.h"}),
    (["x.cpp", "x.h"], [".meta/example.cpp", ".meta/example.h"], set(),
     {".meta/example.cpp": "x.cpp", ".meta/example.h": "x.h"}),
    (["src/main/java/Poker.java"], [".meta/src/reference/java/Card.java",
                                    ".meta/src/reference/java/Poker.java"], set(),
     {".meta/src/reference/java/Poker.java": "src/main/java/Poker.java",
      ".meta/src/reference/java/Card.java": "src/main/java/Card.java"}),
    (["src/main/java/Connect.java"], [".meta/src/reference/java/Connect.java",
                                      ".meta/src/reference/java/Winner.java"],
     {"src/main/java/Winner.java"},  # an editor file: shipped, kept as shipped
     {".meta/src/reference/java/Connect.java": "src/main/java/Connect.java"}),
    (["src/lib.rs", "Cargo.toml"], [".meta/example.rs"], set(), {".meta/example.rs": "src/lib.rs"}),
    (["two-fer.js"], [".meta/proof.ci.js"], set(), {".meta/proof.ci.js": "two-fer.js"}),
])
def test_reference_paths(solution, example, given, expected):
    assert reference_paths(solution, example, given) == expected


def test_tests_behind_an_undefined_macro_are_not_expected():
    text = CPP_STACK.tests["stack_test.cpp"]
    kept = compiled_lines(text, DEFINED)
    assert "size counts" in kept and "benchmark" not in kept and "EXERCISM_TEST_SUITE" not in kept
    assert get_language("cpp").expected({"stack_test.cpp": text}) == ["push_then_top",
                                                                      "size counts"]
    nested = "#if 0\n#else\n#ifndef A\nTEST_CASE(\"x\")\n#endif\n#endif\n#if FOO > 2\nY\n#endif"
    assert compiled_lines(nested, frozenset()).splitlines() == ['TEST_CASE("x")', "Y"]


def test_a_file_the_model_adds_is_built_only_where_the_track_builds_sources():
    java, cpp = get_language("java"), get_language("cpp")
    shipped = {"src/main/java/Poker.java": "", "build.gradle": ""}
    assert java.may_add("src/main/java/Card.java", shipped)
    assert not java.may_add("src/test/java/PokerTest.java", shipped)  # a test
    assert not java.may_add("src/main/java/Poker.java", shipped)  # shipped already
    assert not java.may_add("Card.java", shipped)  # javac is given src/main only
    assert not java.may_add("src/main/java/.Card.java", shipped)
    assert not java.may_add("src/main/java/notes.txt", shipped)
    assert cpp.may_add("helpers.h", {}) and not cpp.may_add("test/catch.hpp", {})
    assert not cpp.may_add("CMakeLists.txt", {})


@pytest.mark.parametrize("fmt", ["whole", "diff"])
def test_the_reference_passes_every_shape(cli, shapes_root, fmt):
    result = cli("run", "exercism", "--path", str(shapes_root), "--model", "reference",
                 "--edit-format", fmt, "--tries", "1", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["tasks"] == len(SHAPES) and summary["passed"] == len(SHAPES), summary


def test_the_stub_passes_only_the_exercise_without_tests(cli, shapes_root):
    result = cli("run", "exercism", "--path", str(shapes_root), "--model", "stub",
                 "--edit-format", "whole", "--tries", "1", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["passed_unchanged"] == [GO_WRITE_TESTS.task_id]
    assert summary["graded_without_tests"] == [GO_WRITE_TESTS.task_id]


def test_wrong_solutions_still_fail(grade, shapes_root):
    """A section that fails fails its test case; a helper class the model adds is compiled
    (a wrong one fails); a write-the-tests exercise whose code does not build fails, and says
    how it was graded."""
    wrong_top = CPP_STACK_H.replace("items_.back()", "items_.front()")
    wrong_card = JAVA_HANDS.example["src/reference/java/Card.java"].replace(
        "Integer.parseInt(text)", "text.length()")  # every hand ties
    helpers = {f"src/main/java/{n}.java": JAVA_HANDS.example[f"src/reference/java/{n}.java"]
               for n in ("Hand", "Hands")}
    stack, hands, added, tally = grade([
        (CPP_STACK, {**CPP_STACK.solution, "stack.h": wrong_top}),
        (JAVA_HANDS, {**helpers, "src/main/java/Card.java": wrong_card}),
        (JAVA_HANDS, {**helpers, "src/main/java/Card.java": JAVA_HANDS.example[
            "src/reference/java/Card.java"], "src/test/java/HandsTest.java": "class HandsTest {}"}),
        (GO_WRITE_TESTS, {"tally.go": "package tally\n\nfunc broken( {\n"}),
    ], timeout=60, root=shapes_root)
    assert stack.verdict == Verdict.FAILED
    assert {t.name: t.verdict for t in stack.tests}["push_then_top/two values"] == Verdict.FAILED
    assert hands.verdict == Verdict.FAILED and any(t.verdict == Verdict.PASSED
                                                   for t in hands.tests), hands.output
    assert added.verdict == Verdict.PASSED and len(added.tests) == 2  # the test file: pristine
    assert tally.verdict == Verdict.FAILED and tally.details["no_tests"] == NO_TESTS
