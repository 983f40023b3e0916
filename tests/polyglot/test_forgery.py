"""A model-written build file or edited test never reaches the run (aider issue 5681): a wrong
solution sent with a test file that would pass it and a config that would skip the tests still
fails, in every language."""

from __future__ import annotations

import pytest

from codetrial.core import Verdict
from tests.polyglot.exercises import by_language

FORGED = {  # a build file that would make the tool report success without running the tests
    "go": {"go.mod": "module leap\n\ngo 1.18\n", "leap_test.go": "package leap\n",
           "bonus_test.go": "package leap\n"},
    "rust": {"Cargo.toml": '[package]\nname = "leap"\nversion = "0.1.0"\nedition = "2021"\n'
                           "[lib]\ntest = false\n[[test]]\nname = \"leap\"\n"
                           'path = "src/lib.rs"\n',
             "tests/leap.rs": "#[test]\nfn year_1900_is_not_leap() {}\n"},
    "cpp": {"CMakeLists.txt": "add_custom_target(test ALL COMMAND true)\n",
            "leap_test.cpp": '#include "test/catch.hpp"\nTEST_CASE("year 1900 is not a leap '
                             'year") {}\n'},
    "java": {"build.gradle": "test { enabled = false }\n",
             "src/test/java/LeapTest.java": "public class LeapTest {}\n"},
    "javascript": {"package.json": '{"scripts": {"test": "true"}, "jest": {"testMatch": []}}\n',
                   "babel.config.js": "throw new Error('forged');\n",
                   "leap.spec.js": "test('year 1900 is not a leap year', () => {});\n"},
}


@pytest.mark.parametrize("language", sorted(FORGED))
def test_forged_config_and_tests_fail(grade, language):
    leap, _ = by_language(language)
    files = {**leap.solution, **leap.wrong, **FORGED[language]}
    [result] = grade([(leap, files)])
    assert result.verdict == Verdict.FAILED, result.output
    verdicts = {t.name: t.verdict for t in result.tests}
    assert len(verdicts) == 3, verdicts  # the pristine tests, not the forged one
    assert {Verdict.FAILED, Verdict.PASSED} == set(verdicts.values()), verdicts
