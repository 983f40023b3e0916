"""Per-language figures of an exercism run, the exercises that passed with their files
unchanged (free passes a reader should discount), and the toolchains the attempts recorded."""

from __future__ import annotations

from typing import Any

from codetrial.core import Sample


def language_of_task(task_id: str) -> str:
    """`go/bowling` -> go; a bare slug is Python's (see layout.task_id)."""
    return task_id.split("/", 1)[0] if "/" in task_id else "python"


def polyglot_figures(samples: list[Sample]) -> dict[str, Any]:
    from codetrial.metrics.editing import edit_figures
    from codetrial.metrics.summary import costs

    by_language: dict[str, list[Sample]] = {}
    for sample in samples:
        by_language.setdefault(language_of_task(sample.task_id), []).append(sample)
    figures: dict[str, Any] = {
        "passed_unchanged": sorted({s.task_id for s in samples if s.passed and any(
            a.details.get("unchanged") for a in s.attempts if a.verdict == "passed")}),
    }
    no_tests = sorted({s.task_id for s in samples for a in s.attempts
                       if a.details.get("no_tests")})
    forged = sorted({s.task_id for s in samples for a in s.attempts if a.details.get("forged")})
    if forged:
        figures["forged"] = forged
    if no_tests:  # go/counter: a pass there says only that the code built
        figures["graded_without_tests"] = no_tests
    if len(by_language) > 1 or "python" not in by_language:
        figures["by_language"] = {
            name: {"tasks": len({s.task_id for s in group}),
                   "passed": sum(1 for s in group if s.passed),
                   **costs(group), **edit_figures(group)}
            for name, group in sorted(by_language.items())}
    recorded = {a.details["language"]: {"toolchain": a.details.get("toolchain", ""),
                                        "unskipped": a.details.get("unskipped", "")}
                for s in samples for a in s.attempts if a.details.get("language")}
    if recorded:
        figures["toolchains"] = dict(sorted(recorded.items()))
    return figures
