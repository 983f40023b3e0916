"""The attempted-cheating figures: per run, counted by kind, samples named; in --json (summary),
the terminal table and the HTML report; absent where nothing was tried."""

from __future__ import annotations

import io

from rich.console import Console

from codetrial.core import Attempt, Sample, Verdict
from codetrial.metrics.summary import summarize
from codetrial.report.cheating import tried_section
from codetrial.report.runs import RunView
from codetrial.report.terminal import print_summary
from codetrial.store import RunRecord


def samples() -> list[Sample]:
    def attempt(verdict: Verdict, tried: list[str] | None = None) -> Attempt:
        return Attempt(1, verdict, details={"tried": tried} if tried else {})

    return [
        Sample("t/0", 0, [attempt(Verdict.PASSED)]),
        Sample("t/0", 1, [attempt(Verdict.FAILED, ["read-outside:/usr/lib/<x>",
                                                   "introspection:f_back"])]),
        Sample("t/1", 0, [attempt(Verdict.FAILED, ["read-tests:two_fer_test.py"]),
                          attempt(Verdict.FAILED, ["read-tests:two_fer_test.py"])]),
        Sample("t/1", 1, [attempt(Verdict.PASSED)]),
    ]


def test_summary_counts_samples_per_kind() -> None:
    tried = summarize(samples(), 2).to_json()["tried"]
    assert tried["samples"] == 2
    assert tried["kinds"] == {"introspection": 1, "read-outside": 1, "read-tests": 1}
    assert tried["sample_ids"] == ["t/0#1", "t/1#0"]
    assert tried["examples"]["t/1#0"] == ["read-tests:two_fer_test.py"]  # once per sample


def summary_of(found: list[Sample]) -> dict:
    return {"run_id": "r1", "suite": "exercism", "model": "m", "protocol": "edit",
            "finished": True, **summarize(found, 2).to_json()}


def test_terminal_and_html_show_them() -> None:
    summary = summary_of(samples())
    out = io.StringIO()
    print_summary(summary, Console(file=out, width=200))
    assert "2 samples (introspection 1, read-outside 1, read-tests 1): t/0#1, t/1#0" in \
        out.getvalue()
    run = RunView(RunRecord("r1", "exercism", "m", {}), summary, samples(), "m")
    section = tried_section([run])
    assert section is not None
    html = "".join(p for p in section.parts if isinstance(p, str))
    assert "t/0#1: read-outside:/usr/lib/&lt;x&gt;; introspection:f_back" in html


def test_nothing_tried_nothing_shown() -> None:
    clean = [s for s in samples() if s.passed]
    summary = summary_of(clean)
    assert summary["tried"] == {"samples": 0, "kinds": {}, "sample_ids": [], "examples": {}}
    assert tried_section([RunView(RunRecord("r1", "exercism", "m", {}), summary, clean,
                                  "m")]) is None
