"""From answers to verdicts: per test, per schema (ok/partial/failure/compile), per sample."""

from __future__ import annotations

from typing import Any

from codetrial.core import SchemaVerdict, TestResult, Verdict
from codetrial.suites.jsonschema.checking import Answer, Checked

_BY_KIND = {"error": Verdict.ERROR, "timeout": Verdict.TIMEOUT}
_WHOLE_PROGRAM = {"timeout": Verdict.TIMEOUT, "oom": Verdict.OOM,
                  "sandbox_error": Verdict.SANDBOX_ERROR}


def result_of(test: dict[str, Any], answer: Answer) -> TestResult:
    expected = test["valid"]
    if answer.is_right(expected):
        return TestResult(test["description"], Verdict.PASSED)
    if answer.kind == "bool":
        said = "valid" if answer.value else "invalid"
        return TestResult(test["description"], Verdict.FAILED,
                          f"said {said}, expected {'valid' if expected else 'invalid'}")
    return TestResult(test["description"], _BY_KIND.get(answer.kind, Verdict.ERROR),
                      str(answer.value))


def results_of(tests: list[dict[str, Any]], checked: Checked) -> list[TestResult]:
    if checked.status != "ok":  # the program died: every test shares its fate
        verdict = _WHOLE_PROGRAM.get(checked.status, Verdict.ERROR)
        return [TestResult(t["description"], verdict, checked.load) for t in tests]
    if not checked.loaded:
        return [TestResult(t["description"], Verdict.ERROR, checked.load) for t in tests]
    return [result_of(t, a) for t, a in zip(tests, checked.answers, strict=False)]


def schema_verdict(checked: Checked, results: list[TestResult]) -> SchemaVerdict:
    if checked.status == "ok" and not checked.loaded:
        return SchemaVerdict.COMPILE
    passed = sum(r.verdict == Verdict.PASSED for r in results)
    if passed == len(results):
        return SchemaVerdict.OK
    return SchemaVerdict.FAILURE if passed == 0 else SchemaVerdict.PARTIAL


def sample_verdict(checked: Checked, verdict: SchemaVerdict) -> Verdict:
    """Passed only when every test is right; a dead sandbox is infra, never the model's fault."""
    if checked.status in _WHOLE_PROGRAM:
        return _WHOLE_PROGRAM[checked.status]
    if verdict == SchemaVerdict.OK:
        return Verdict.PASSED
    return Verdict.ERROR if verdict == SchemaVerdict.COMPILE else Verdict.FAILED
