"""codetrial's per-test verdicts against the tool's own (direct.py), on honest and deliberately
wrong solutions of every language's fixtures: the per-run names, the decoys, the strict
reading and JavaScript's separate process change no verdict."""

from __future__ import annotations

import pytest

from codetrial.languages import get_language
from codetrial.languages.grading import reconcile, workspace
from codetrial.suites import create_suite
from tests.polyglot import direct
from tests.polyglot.exercises import ALL, Exercise

COMPILED = sorted({e.language for e in ALL if not get_language(e.language).native})


def mutants(exercise: Exercise) -> dict[str, dict[str, str]]:
    """The reference, the fixture's wrong answer, and the reference with one constant changed."""
    reference = exercise.reference()
    out = {"reference": reference, "wrong": {**reference, **exercise.wrong}}
    for old, new in (("400", "300"), ("* ", "+ "), ("*", "+")):
        changed = {p: t.replace(old, new, 1) for p, t in reference.items()}
        if changed != reference:
            out[f"{old.strip()} -> {new.strip()}"] = changed
            break
    return out


def _verdicts(tests) -> dict[str, str]:
    return {t.name: str(t.verdict) for t in tests}


@pytest.mark.parametrize("language", COMPILED)
def test_per_test_verdicts_match_the_tool_run_directly(grade, poly_root, tmp_path, language):
    suite = create_suite("exercism", {"path": str(poly_root)})
    tasks = {t.id: t for t in suite.load_tasks()}
    lang = get_language(language)
    jobs, expected = [], []
    for exercise in (e for e in ALL if e.language == language):
        data = tasks[exercise.task_id].data
        for kind, files in mutants(exercise).items():
            ws = workspace(lang, data["slug"], data["pristine"], list(data["stubs"]),
                           list(data["test_files"]), files)
            tests, _ = direct.run(lang, ws, tmp_path)
            own = reconcile(lang.expected({p: ws.files[p] for p in ws.tests}), tests)
            jobs.append((exercise, files))
            expected.append((f"{exercise.slug} {kind}", _verdicts(own)))
    graded = grade(jobs, timeout=60)
    for (label, tool), result in zip(expected, graded, strict=True):
        assert _verdicts(result.tests) == tool, (label, result.output[-3000:])
    assert any("failed" in v.values() for _, v in expected)  # the mutants were wrong
    assert any(set(v.values()) == {"passed"} for _, v in expected)
