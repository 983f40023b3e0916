"""Per-test results from JUnit XML reports (Catch2's junit reporter, the JUnit console's
--reports-dir). The report is written by a process the model's code runs in: parse it as
untrusted data (expat refuses entity expansion bombs; anything malformed reports nothing)."""

from __future__ import annotations

import re
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


_OPEN = re.compile(r"<testsuites\b")
_CLOSE = "</testsuites>"


def report_in_output(text: str) -> tuple[str, list[str]]:
    """The one JUnit document a test binary printed on stdout (Catch2's `-r junit`), and what
    in that output no honest run prints: a second report, a report after the end of the first.
    Printed lines of the tests themselves may surround it."""
    starts = [m.start() for m in _OPEN.finditer(text)]
    if not starts:
        return "", []
    end = text.find(_CLOSE, starts[0])
    document = text[starts[0]:end + len(_CLOSE)] if end >= 0 else ""
    forged = [f"{len(starts)} JUnit reports in the test binary's output"] if len(starts) > 1 else []
    return document, forged


def failure_count(text: str) -> int | None:
    """failures + errors of a report's root element (Catch2 counts failed assertions)."""
    try:
        root = ET.fromstring(text)
    except (ET.ParseError, ValueError):
        return None
    suites = [root] if root.tag == "testsuite" else list(root.iter("testsuite"))
    return sum(int(s.get("failures") or 0) + int(s.get("errors") or 0) for s in suites
               if (s.get("failures") or "0").isdigit() and (s.get("errors") or "0").isdigit())
