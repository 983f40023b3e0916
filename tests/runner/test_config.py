"""RunConfig checks every setting on construction and names the one that is wrong; a stored
config (old or new, with what start_run stores beside it) rebuilds the same run on resume."""

from __future__ import annotations

import asyncio
import sqlite3
import subprocess
import sys
from contextlib import closing
from dataclasses import replace

import pytest

from codetrial.core import UsageError
from codetrial.runner import RunConfig, prepare, start_run
from codetrial.store import Store
from tests.suites.exercism_fixture import make_exercises

OUT_OF_BOUNDS = [
    ("samples", 0, "must be >= 1"),
    ("temperature", -0.5, "must be >= 0"),
    ("top_p", 0.0, "must be > 0 and <= 1"),
    ("top_p", 1.01, "must be > 0 and <= 1"),
    ("max_tokens", 0, "must be >= 1"),
    ("concurrency", 0, "must be >= 1"),
    ("max_concurrency", 0, "must be >= 1"),
    ("sandbox_workers", 0, "must be >= 1"),
    ("request_timeout", 0, "must be > 0"),
    ("request_timeout", -3.0, "must be > 0"),
]


@pytest.mark.parametrize(("name", "value", "message"), OUT_OF_BOUNDS)
def test_a_value_out_of_bounds_is_an_error_naming_the_setting(name, value, message):
    with pytest.raises(UsageError) as caught:
        RunConfig(suite="humaneval", **{name: value})
    assert str(caught.value) == f"setting {name!r}: {message}"


def test_the_bounds_themselves_and_none_are_allowed():
    config = RunConfig(suite="humaneval", samples=1, temperature=0, top_p=1, max_tokens=1,
                       concurrency=1, max_concurrency=None, sandbox_workers=1,
                       request_timeout=0.001, executor="ray")
    assert (config.top_p, config.max_concurrency, config.executor) == (1.0, None, "ray")
    assert RunConfig(suite="humaneval", max_concurrency=1).max_concurrency == 1


WRONG_TYPES = [
    ("suite", 5, "must be a string"),
    ("model", None, "must be a string"),
    ("protocol", 3, "must be a string or null"),
    ("samples", True, "must be an integer"),  # a bool is not an int
    ("samples", 2.0, "must be an integer"),
    ("samples", "many", "must be an integer"),
    ("seed", False, "must be an integer or null"),
    ("temperature", True, "must be a number or null"),
    ("temperature", "0.2", "must be a number or null"),
    ("reasoning_effort", "max", "must be one of 'low', 'medium', 'high' or null"),
    ("cache", 1, "must be true or false"),
    ("executor", "dask", "must be one of 'local', 'ray'"),
    ("task_ids", "HumanEval/0", "must be a list of strings or null"),
    ("task_ids", ["HumanEval/0", 1], "must be a list of strings or null"),
    ("suite_options", [], "must be a mapping of names to values"),
    ("suite_options", {1: "x"}, "must be a mapping of names to values"),
]


@pytest.mark.parametrize(("name", "value", "message"), WRONG_TYPES)
def test_a_value_of_the_wrong_type_is_an_error_naming_the_setting(name, value, message):
    fields = {"suite": "humaneval", name: value}
    with pytest.raises(UsageError, match=f"^setting '{name}': {message}, not "):
        RunConfig(**fields)


def test_an_integer_number_is_stored_as_a_float():
    config = RunConfig(suite="humaneval", temperature=1, request_timeout=30)
    assert type(config.temperature) is float and type(config.request_timeout) is float


def test_the_stored_form_round_trips():
    config = RunConfig(suite="exercism", model="openai:m", suite_options={"path": "/x", "n": 2},
                       task_ids=["a", "b"], seed=7, top_p=0.9, max_concurrency=16)
    stored = config.as_dict()
    assert stored["suite_options"] == {"path": "/x", "n": 2} and stored["top_p"] == 0.9
    assert RunConfig.from_dict(stored) == config
    stored["suite_options"]["n"] = 3  # a copy: the config is not changed through it
    assert config.suite_options["n"] == 2


def test_what_start_run_stores_beside_the_config_is_read_past():
    stored = RunConfig(suite="exercism").as_dict() | {
        "suite_version": "v1", "planned_samples": 4, "toolchains": {"python": "3.11"},
        "unskipped": {}, "imported_from": "/tmp/s.jsonl"}
    assert RunConfig.from_dict(stored) == RunConfig(suite="exercism")


def test_a_config_stored_before_later_settings_existed_gets_their_defaults():
    old = {"suite": "humaneval", "model": "reference", "samples": 2, "temperature": 0.0,
           "top_p": 1.0, "max_tokens": 512, "seed": None, "task_ids": None, "limit": 2,
           "concurrency": 4, "sandbox_workers": 2, "cache": True, "protocol": "completion",
           "suite_version": "", "planned_samples": 4}
    config = RunConfig.from_dict(old)
    assert (config.samples, config.request_timeout, config.max_concurrency) == (2, 120.0, None)


@pytest.mark.parametrize(("stored", "message"), [
    ({"suite": "humaneval", "temprature": 0.5}, "setting 'temprature': unknown setting"),
    ({"model": "reference"}, "setting 'suite': missing"),
    ({"suite": "humaneval", "top_p": 7}, "setting 'top_p': must be > 0 and <= 1"),
])
def test_a_bad_stored_config_is_an_error_naming_the_key(stored, message):
    with pytest.raises(UsageError) as caught:
        RunConfig.from_dict(stored)
    assert str(caught.value) == message


def test_a_stored_exercism_run_rebuilds_its_config(tmp_path, ct_home):
    """Exercism stores its toolchains beside the config: a resume must read past them."""
    path = make_exercises(tmp_path / "ex", names=["two-fer"])
    config = RunConfig(suite="exercism", model="reference", suite_options={"path": str(path)},
                       cache=False, sandbox_workers=1)
    store = Store(tmp_path / "runs.sqlite")

    async def started() -> str:
        plan = await prepare(config, None)
        try:
            return start_run(store, plan)
        finally:
            await plan.aclose()

    stored = store.get_run(asyncio.run(started())).config
    assert {"toolchains", "suite_version", "planned_samples"} <= set(stored)
    assert RunConfig.from_dict(stored) == replace(config, protocol="edit")  # the one it chose


def test_a_setting_out_of_range_on_the_command_line_is_one_line_and_stores_nothing(cli, ct_home):
    result = cli("run", "humaneval", "--model", "reference", "--top-p", "2")
    assert result.code == 2, result.stderr
    assert result.stderr.strip().splitlines() == [
        "codetrial: error: setting 'top_p': must be > 0 and <= 1"]
    db = ct_home / "runs.sqlite"
    if db.exists():
        with closing(sqlite3.connect(db)) as con:
            assert con.execute("SELECT COUNT(*) FROM runs").fetchone() == (0,)


def test_the_runner_loads_without_pydantic():
    """Its import was a tenth of a second of every run (typer 0.29 still loads it, for now)."""
    probe = "import sys, codetrial.runner; print(sorted(m for m in sys.modules if 'pydantic' in m))"
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True)
    assert done.returncode == 0 and done.stdout == "[]\n", done.stderr[-2000:]
