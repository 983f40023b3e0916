"""The suite's figures for a run, recomputed from stored samples: verdicts, tests, augmented
score beside the suite score, flagged replies apart, the mistake table and the chart rows."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from codetrial.core import Sample, SchemaVerdict, TestResult, Verdict

EXAMPLES = 3
SCHEMA_CHARS = 300


def compact(value: Any, limit: int = SCHEMA_CHARS) -> str:
    text = json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return text if len(text) <= limit else text[:limit - 1] + "\u2026"


def test_counts(results: list[TestResult]) -> dict[str, int]:
    return {"tests_total": len(results),
            "tests_passed": sum(r.verdict == Verdict.PASSED for r in results)}


def failures(results: list[TestResult], limit: int = 10) -> str:
    wrong = [r for r in results if r.verdict != Verdict.PASSED]
    lines = [f"{r.name}: {r.message}" for r in wrong[:limit]]
    if len(wrong) > limit:
        lines.append(f"... and {len(wrong) - limit} more")
    return "\n".join(lines)


def example(instance: Any, expected: bool, answer: Any) -> dict[str, Any]:
    return {"instance": compact(instance, 200), "expected": expected,
            "got": answer.value if answer.kind == "bool" else f"{answer.kind}: {answer.value}"}


def graded(samples: list[Sample]) -> list[tuple[Sample, dict[str, Any]]]:
    """Samples with a schema verdict; a reply without code counts as compile (no validate).

    Infra errors are left out. A reply without code never reached the tests, so its tests
    are not in tests_total (see `not_generated`).
    """
    out = []
    for s in samples:
        details = s.attempts[-1].details if s.attempts else {}
        if "schema_verdict" in details and not s.is_infra_error:
            out.append((s, details))
        elif s.verdict == Verdict.NOT_GENERATED:
            out.append((s, {"schema_verdict": SchemaVerdict.COMPILE.value, "not_generated": True,
                            "file": s.task_id.rsplit("/", 1)[0], "tests_passed": 0,
                            "tests_total": 0}))
    return out


def summarize(samples: list[Sample]) -> dict[str, Any]:
    rows = graded(samples)
    clean = [(s, d) for s, d in rows if not d.get("flags")]
    return {
        "verdicts": verdict_counts(rows),
        "tests_passed": sum(d["tests_passed"] for _, d in rows),
        "tests_total": sum(d["tests_total"] for _, d in rows),
        "not_generated": sum(bool(d.get("not_generated")) for _, d in rows),
        "selection": {"files": len({d["file"] for _, d in rows}),
                      "schemas": len({s.task_id for s, _ in rows}),
                      "tests": sum(d["tests_total"] for _, d in rows)},
        "scores": side_by_side(rows),
        "flagged": flagged(rows),
        "verdicts_unflagged": verdict_counts(clean),
        "mistakes": mistake_table(samples),
        "groups": chart_rows(samples),
    }


def verdict_counts(rows: list[tuple[Sample, dict[str, Any]]]) -> dict[str, int]:
    counts = Counter(d["schema_verdict"] for _, d in rows)
    return {v.value: counts.get(v.value, 0) for v in SchemaVerdict}


def side_by_side(rows: list[tuple[Sample, dict[str, Any]]]) -> dict[str, Any]:
    """The suite score and the score with augmented instances, as EvalPlus reports them."""
    ok = sum(d["schema_verdict"] == SchemaVerdict.OK for _, d in rows)
    ok_plus = sum(d["schema_verdict"] == SchemaVerdict.OK
                  and d.get("augmented_passed", 0) == d.get("augmented_total", 0)
                  for _, d in rows)
    tests = sum(d["tests_total"] for _, d in rows)
    extra = sum(d.get("augmented_total", 0) for _, d in rows)
    extra_passed = sum(d.get("augmented_passed", 0) for _, d in rows)
    n = len(rows)
    return {
        "suite": {"ok": ok, "ok_rate": ratio(ok, n), "tests_passed": sum(
            d["tests_passed"] for _, d in rows), "tests_total": tests},
        "augmented": {"ok": ok_plus, "ok_rate": ratio(ok_plus, n),
                      "extra_passed": extra_passed, "extra_total": extra},
    }


def ratio(a: int, b: int) -> float | None:
    return round(a / b, 4) if b else None


def flagged(rows: list[tuple[Sample, dict[str, Any]]]) -> dict[str, Any]:
    marked = [(s, d) for s, d in rows if d.get("flags")]
    kinds = Counter(f for _, d in marked for f in d["flags"])
    return {"samples": len(marked), "kinds": dict(kinds), "verdicts": verdict_counts(marked),
            "tasks": sorted({s.task_id for s, _ in marked})[:50]}


def mistake_table(samples: list[Sample]) -> list[dict[str, Any]]:
    """One row per mistake: samples tagged, how many of those the suite failed, examples."""
    table: dict[str, dict[str, Any]] = {}
    unexplained = 0
    for sample, details in graded(samples):
        unexplained += details.get("unexplained", 0)
        wrong = details["schema_verdict"] != SchemaVerdict.OK
        for m in details.get("mistakes", []):
            row = table.setdefault(m["tag"], {"tag": m["tag"], "title": m["title"],
                                              "samples": 0, "wrong_on_suite": 0, "probes_hit": 0,
                                              "examples": []})
            row["samples"] += 1
            row["wrong_on_suite"] += wrong
            row["probes_hit"] += m["hits"]
            if len(row["examples"]) < EXAMPLES:
                row["examples"].append({"task": sample.task_id, **m["example"]})
    rows = sorted(table.values(), key=lambda r: (-r["samples"], r["tag"]))
    return rows + [{"tag": "unexplained", "title": "wrong suite tests no mistake explains",
                    "samples": 0, "wrong_on_suite": 0, "probes_hit": unexplained,
                    "examples": []}]


def render_mistakes(tables: dict[str, list[dict[str, Any]]]) -> str:
    """A plain-text table, one column per model: samples tagged (of which wrong on the suite)."""
    tags = [r["tag"] for rows in tables.values() for r in rows if r["tag"] != "unexplained"]
    order = list(dict.fromkeys(tags))
    models = list(tables)
    width = max([len("mistake"), *map(len, order), len("unexplained tests")])
    lines = ["mistake".ljust(width) + "".join(f"  {m:>16}" for m in models)]
    for tag in order:
        cells = []
        for m in models:
            row = next((r for r in tables[m] if r["tag"] == tag), None)
            cells.append(f"{row['samples']} ({row['wrong_on_suite']} wrong)" if row else "-")
        lines.append(tag.ljust(width) + "".join(f"  {c:>16}" for c in cells))
    last = [next((r["probes_hit"] for r in tables[m] if r["tag"] == "unexplained"), 0)
            for m in models]
    lines.append("unexplained tests".ljust(width) + "".join(f"  {c:>16}" for c in last))
    return "\n".join(lines)


def chart_rows(samples: list[Sample]) -> list[dict[str, Any]]:
    """Per graded sample: percent of the group's tests right, verdict, tooltip material."""
    rows = []
    for sample, d in graded(samples):
        tests = sample.attempts[-1].tests
        rows.append({
            "task": sample.task_id, "sample": sample.index, "file": d["file"],
            "description": d.get("description", ""), "schema": d.get("schema", ""),
            "verdict": d["schema_verdict"],
            "percent": percent(d),
            "passed": [t.name for t in tests if t.verdict == Verdict.PASSED],
            "failed": [t.name for t in tests if t.verdict != Verdict.PASSED],
        })
    return rows


def percent(details: dict[str, Any]) -> float:
    if not details["tests_total"]:
        return 100.0 if details["schema_verdict"] == SchemaVerdict.OK else 0.0
    return round(100 * details["tests_passed"] / details["tests_total"], 1)
