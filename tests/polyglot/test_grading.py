"""Every language: the reference passes, a wrong solution fails with per-test results, a
solution that never ends is killed at the limit (the module's sandbox fixture then checks that
no process is left), and the test sources are gone when the model's code runs."""

from __future__ import annotations

import dataclasses
import time

import pytest

from codetrial.core import Verdict
from tests.polyglot.exercises import ALL, GO_LEAP, by_language, write_all

LANGUAGES = sorted({e.language for e in ALL} - {"python"})  # Python's path: tests/suites


def _verdicts(grade) -> dict[str, str]:
    return {t.name: str(t.verdict) for t in grade.tests}


@pytest.mark.parametrize("language", LANGUAGES)
def test_skipped_tests_run_and_wrong_solutions_fail_per_test(grade, language):
    """Each leap exercise skips two of its three tests by its track's convention (xtest,
    #[ignore], @Disabled, EXERCISM_RUN_ALL_TESTS, a bonus build tag): the reference passes all
    three; a wrong solution fails some of them, by name; the untouched stub passes none."""
    leap, shapes = by_language(language)
    reference, wrong, stub = grade([(leap, leap.reference()), (leap, {**leap.solution,
                                    **leap.wrong}), (shapes, dict(shapes.solution))])
    assert reference.verdict == Verdict.PASSED, reference.output
    assert len(reference.tests) == 3 and all(t.verdict == Verdict.PASSED for t in reference.tests)
    assert reference.details["unskipped"]
    assert wrong.verdict == Verdict.FAILED, wrong.output
    by_name = _verdicts(wrong)
    assert sorted(by_name) == sorted(_verdicts(reference)), by_name  # the same three tests
    assert set(by_name.values()) == {"failed", "passed"}, by_name  # y % 4 == 0: half right
    failed = [t for t in wrong.tests if t.verdict == Verdict.FAILED]
    assert any("1900" in t.name or "1900" in t.message or "2100" in t.message for t in failed)
    assert stub.verdict == Verdict.FAILED and stub.tests
    assert all(t.verdict != Verdict.PASSED for t in stub.tests), _verdicts(stub)


HANGS = {"go/leap", "rust/shapes", "cpp/leap", "java/shapes", "javascript/leap"}


def test_never_terminating_solutions_are_killed_at_the_limit(grade):
    """Busy loops and sleeps: each is a timeout at 12 s."""
    chosen = [e for e in ALL if e.task_id in HANGS]
    jobs = [(e, {**e.solution, **e.hang}) for e in chosen]
    started = time.monotonic()
    results = grade(jobs, timeout=12)
    assert [str(r.verdict) for r in results] == ["timeout"] * len(jobs), \
        [(e.task_id, r.verdict, r.output[-300:]) for (e, _), r in zip(jobs, results, strict=True)]
    assert all("Tests timed out!" in r.output for r in results)
    assert all(r.seconds < 12 + 3 for r in results)
    assert time.monotonic() - started < len(jobs) / 2 * 15 + 30  # two at a time


PEEK = {  # the correct answer only while the test source cannot be read at run time
    "go": ("leap.go", 'package leap\n\nimport "os"\n\nfunc IsLeapYear(y int) bool {\n'
                      '\t_, err := os.Stat("leap_test.go")\n'
                      "\treturn err != nil && y%4 == 0 && (y%100 != 0 || y%400 == 0)\n}\n"),
    "rust": ("src/lib.rs", "pub fn is_leap_year(y: u64) -> bool {\n"
                           '    !std::path::Path::new("tests/leap.rs").exists()\n'
                           "        && y % 4 == 0 && (y % 100 != 0 || y % 400 == 0)\n}\n"),
    "cpp": ("leap.cpp", '#include "leap.h"\n#include <fstream>\n#include <string>\n'
                        "#include <unistd.h>\n\nnamespace leap {\nbool is_leap_year(int y) {\n"
                        '  if (std::ifstream("leap_test.cpp")) return false;\n'
                        "  // nor the driver's memory (its report nonce): it is not dumpable\n"
                        '  if (std::ifstream("/proc/" + std::to_string(getppid()) + "/mem")) '
                        "return false;\n"
                        "  return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);\n}\n}\n"),
    "java": ("src/main/java/Leap.java", "class Leap {\n    boolean isLeapYear(int y) {\n"
             '        if (new java.io.File("src/test/java/LeapTest.java").exists()) return false;'
             "\n        return y % 4 == 0 && (y % 100 != 0 || y % 400 == 0);\n    }\n}\n"),
}


def test_test_sources_are_gone_when_the_code_runs(grade):
    jobs = []
    for language, (path, text) in PEEK.items():
        leap, _ = by_language(language)
        files = {**leap.solution, path: text}
        if language == "cpp":
            files["leap.h"] = leap.reference()["leap.h"]
        jobs.append((leap, files))
    results = grade(jobs)
    assert [str(r.verdict) for r in results] == ["passed"] * len(jobs), \
        [r.output[-500:] for r in results]


def test_an_exercise_without_tests_is_graded_by_its_build(grade, tmp_path):
    """go/counter's test file is only a comment: `go test` passes it, and so does aider's
    benchmark; here too, and the grade says how it was decided."""
    empty = dataclasses.replace(GO_LEAP, tests={"leap_test.go": "package leap\n\n// Define "
                                                "your tests here\n"}, other={"go.mod": "module "
                                                "leap\n\ngo 1.18\n"})
    root = write_all(tmp_path / "exercises", [empty])
    [result] = grade([(empty, empty.reference())], root=root)
    assert result.verdict == Verdict.PASSED and result.tests == [], result.output
    assert "define no test" in result.details["no_tests"]
    assert "No test ran" in result.output
