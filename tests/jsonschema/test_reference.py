"""The reference contender is right where the suite is: ECMA-262 patterns included.

The suite's newest files test patterns that Python's `re` reads otherwise than ECMA-262 does
(`\\p{Letter}`, which `re` cannot compile; `\\d`, ASCII digits only; `$`, which does not match
before a final newline). The fixture below is our own, in the suite's layout; the reference
(`--model reference`, no contender named) passes every test of it, library:jsonschema does not.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

import pytest

from codetrial.suites import create_suite
from codetrial.suites.jsonschema.compliance import compliance
from codetrial.suites.jsonschema.contenders import JSONSCHEMA
from tests.jsonschema.fixture import DIALECT, group, make_suite

ECMA_GROUPS = {
    "pattern": [
        group("letters by Unicode property", {"$schema": DIALECT, "type": "string",
                                              "pattern": "^\\p{Letter}+$"},
              ("ASCII letters", "Codetrial", True), ("Greek letters", "λόγος", True),
              ("digits are no letters", "2026", False)),
        group("digits are ASCII digits", {"pattern": "^\\d+$"},
              ("ASCII digits", "0123", True), ("Arabic-Indic digits", "\u0661\u0662", False)),
        group("end of input is the end", {"pattern": "^done$"},
              ("exactly", "done", True), ("a final newline follows", "done\n", False)),
    ],
    "patternProperties": [
        group("property names by Unicode property",
              {"patternProperties": {"^\\p{Lu}": {"type": "integer"}}},
              ("an upper-case name, an integer", {"Ärger": 1}, True),
              ("an upper-case name, a string", {"Ärger": "x"}, False),
              ("a lower-case name is not checked", {"ärger": "x"}, True)),
    ],
}


@pytest.fixture(scope="module")
def ecma_tasks(tmp_path_factory: pytest.TempPathFactory):
    root = make_suite(tmp_path_factory.mktemp("ecma-suite"), ECMA_GROUPS)
    suite = create_suite("jsonschema", {"suite_path": str(root)})
    return suite, suite.load_tasks()


def test_reference_passes_every_ecma_pattern_test(ecma_tasks, sandbox) -> None:
    suite, tasks = ecma_tasks
    figures = asyncio.run(compliance(suite.contender, tasks, sandbox))
    assert figures["failed"] == []
    assert figures["tests_passed"] == figures["tests_total"] == 10


def test_python_re_gets_them_wrong(ecma_tasks, sandbox) -> None:
    """The control: the fixture does hold what a Python validator misses."""
    _, tasks = ecma_tasks
    figures = asyncio.run(compliance(JSONSCHEMA, tasks, sandbox))
    missed = {name.split(": ", 1)[0] for name in figures["failed"]}
    # \p{Letter} and \p{Lu}: re cannot compile them; \d takes any digit; $ a final newline
    assert missed == {"pattern/0", "pattern/1", "pattern/2", "patternProperties/0"}


def test_reference_run_passes_the_fixture(cli, tmp_path: Path) -> None:
    """Through the command line, as a user checks a new suite: 100%."""
    root = make_suite(tmp_path / "suite", ECMA_GROUPS)
    result = cli("run", "jsonschema", "--model", "reference", "-o", f"suite_path={root}",
                 "-o", "augment=false", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["passed"] == summary["samples"] == 4
    assert summary["tests_passed"] == summary["tests_total"] == 10
