"""Per-test results from JUnit XML reports (Catch2's junit reporter, the JUnit console's
--reports-dir). The report is written by a process the model's code runs in: parse it as
untrusted data (expat refuses entity expansion bombs; anything malformed reports nothing)."""

from __future__ import annotations

import xml.etree.ElementTree as ET

from codetrial.core import TestResult, Verdict


def parse_junit(text: str, strip_parens: bool = False) -> list[TestResult]:
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):
        return []
    results = []
    for case in root.iter("testcase"):
        name = case.get("name", "")
        if strip_parens and name.endswith(")"):
            name = name[: name.index("(")] if "(" in name else name
        problems = [c for c in case if c.tag in ("failure", "error", "skipped")]
        message = "\n".join(f"{p.get('message', '')}\n{p.text or ''}".strip() for p in problems)
        verdict = Verdict.FAILED if problems else Verdict.PASSED
        results.append(TestResult(name, verdict, message[-4000:]))
    return results
