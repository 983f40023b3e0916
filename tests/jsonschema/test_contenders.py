"""Non-model contenders on the real suite (the pinned sdist, downloaded once and cached)."""

import asyncio

import pytest

from codetrial.suites import create_suite
from codetrial.suites.jsonschema.compliance import compliance
from codetrial.suites.jsonschema.contenders import contender_names
from codetrial.suites.jsonschema.prompt import contender_reply

# REFERENCE.md: draft2020-12 required tests of the jsonschema 4.26.0 sdist
EXPECTED = {"library:jsonschema": 1256, "compiler:fastjsonschema": 1061,
            "library:jsonschema-rs": 1257}


@pytest.fixture(scope="module")
def real_cache(request, tmp_path_factory):
    """The sdist is cached across test sessions in pytest's cache (first run downloads);
    with the cache plugin off (-p no:cacheprovider) it is downloaded for this session."""
    cache = getattr(request.config, "cache", None)
    if cache is None:
        return tmp_path_factory.mktemp("codetrial-cache")
    return cache.mkdir("codetrial-jsonschema-sdist")


@pytest.fixture(scope="module")
def real_tasks(real_cache):
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("CODETRIAL_CACHE", str(real_cache))
        suite = create_suite("jsonschema", {})
        return suite, suite.load_tasks()


def test_real_suite_selection_counts(real_tasks):
    suite, tasks = real_tasks
    assert len(tasks) == 368 and sum(len(t.data["tests"]) for t in tasks) == 1257
    assert "46 files, 368 schemas, 1257 tests" in suite.version()
    assert "jsonschema 4.26.0 sdist" in suite.version()


def test_contender_compliance_matches_reference_figures(real_tasks, sandbox):
    _, tasks = real_tasks
    for name, expected in EXPECTED.items():
        figures = asyncio.run(compliance(name, tasks, sandbox))
        assert (figures["tests_passed"], figures["tests_total"]) == (expected, 1257), name
    jsonschema = asyncio.run(compliance("library:jsonschema", tasks, sandbox))
    assert jsonschema["failed"] == ["vocabulary/0: no validation: invalid number, but it still "
                                    "validates"]


def test_reference_run_scores_everything(cli, real_cache):
    """The reference answers with a validator that passes the whole suite (jsonschema-rs),
    also where library:jsonschema does not (vocabulary/0)."""
    ids = "vocabulary/0,refRemote/10,dynamicRef/13,uniqueItems/0,const/8"
    result = cli("run", "jsonschema", "--model", "reference", "--tasks", ids, "--json",
                 env={"CODETRIAL_CACHE": str(real_cache)})
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["verdicts"]["ok"] == 5
    assert summary["tests_passed"] == summary["tests_total"]


def test_a_contender_answers_the_prompt_a_model_gets(fixture_suite, tasks):
    for task in tasks.values():
        messages = fixture_suite.chat_messages(task)
        for name in contender_names():
            reference = create_suite("jsonschema", {**fixture_suite.options, "contender": name})
            assert contender_reply(name, messages) == \
                f"```python\n{reference.reference_code(task)}```\n"
