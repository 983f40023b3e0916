"""A misbehaving OpenAI-compatible server: the run completes, every sample is answered or an
infra error (never a model failure), and a resume retries the infra errors to the end."""

from __future__ import annotations

import asyncio
import json
import sqlite3

import pytest

from codetrial.core import InfraError
from codetrial.models.base import Request
from codetrial.models.openai_compat import OpenAICompatibleModel
from codetrial.models.registry import ModelOptions
from codetrial.suites.humaneval import read_problems
from tests.hardening.openai_loopback import SLOW_SECONDS, FaultyOpenAI

LIMIT = 12
PROBLEMS = read_problems()[:LIMIT]
CANONICAL = {p["prompt"]: p["canonical_solution"] for p in PROBLEMS}
TASK_OF = {p["prompt"]: int(p["task_id"].split("/")[1]) for p in PROBLEMS}
# HumanEval/<n>: the faults of its first attempts; the runner's limiter retries them.
PASSING = {0: ["429"], 1: ["500"], 2: ["503", "503"], 3: ["slow"], 4: ["reset"],
           5: ["empty"], 6: ["reset", "500", "429-now"]}
PERSISTENT = {7: "500-now", 8: "429-now", 9: "503-now", 10: "truncated"}


def answer(body: dict) -> str:
    return CANONICAL[body["prompt"]]


def first_run_fault(body: dict, attempt: int) -> str | None:
    task = TASK_OF[body["prompt"]]
    if task in PERSISTENT:
        return PERSISTENT[task]
    faults = PASSING.get(task, [])
    return faults[attempt - 1] if attempt <= len(faults) else None


def sample_rows(db) -> list[tuple[str, str]]:
    with sqlite3.connect(db) as con:
        return con.execute("SELECT task_id, verdict FROM samples ORDER BY task_id").fetchall()


def test_faults_end_answered_or_infra_and_resume_retries_them(cli, ct_home):
    with FaultyOpenAI(answer, first_run_fault) as api:
        first = cli("run", "humaneval", "--model", "openai:x", "--base-url", api.base_url,
                    "--limit", str(LIMIT), "--concurrency", "4", "--max-attempts", "4", "--json",
                    timeout=300)
        assert first.code == 0, first.stderr
        summary = first.json()
        injected = dict(api.injected)
        asked = {TASK_OF[json.loads(key)]: n for key, n in api.attempts.items()}
        assert all(asked[task] == 4 for task in PERSISTENT), asked  # --max-attempts 4
        api.fault = lambda body, attempt: None  # the provider recovers
        rows = dict(sample_rows(ct_home / "runs.sqlite"))
        assert len(rows) == LIMIT  # no sample lost
        infra = {t for t, v in rows.items() if v == "infra-error"}
        assert {v for v in rows.values()} <= {"passed", "infra-error"}, rows
        assert infra == {f"HumanEval/{n}" for n in PERSISTENT}
        assert summary["infra_errors"] == len(PERSISTENT)
        assert summary["passed"] == LIMIT - len(PERSISTENT)

        resumed = cli("run", "--resume", summary["run_id"], "--json", timeout=300)
        assert resumed.code == 0, resumed.stderr
        again = resumed.json()
    assert (again["samples"], again["passed"], again["infra_errors"]) == (LIMIT, LIMIT, 0)
    rows = sample_rows(ct_home / "runs.sqlite")
    assert len(rows) == LIMIT and {v for _, v in rows} == {"passed"}
    print(f"\nfaults injected: {sum(injected.values())} {json.dumps(injected)}; samples lost: 0")
    assert set(injected) == {"429", "500", "503", "429-now", "500-now", "503-now", "slow",
                             "reset", "empty", "truncated"}


def test_a_reply_slower_than_the_timeout_is_an_infra_error():
    async def ask(api: FaultyOpenAI) -> None:
        options = ModelOptions(base_url=api.base_url, timeout_seconds=SLOW_SECONDS / 3,
                               max_retries=0)
        model = OpenAICompatibleModel("x", options)
        try:
            with pytest.raises(InfraError, match="Timeout"):
                await model.generate(Request(kind="completion", prompt=PROBLEMS[0]["prompt"]))
        finally:
            await model.aclose()

    with FaultyOpenAI(answer, lambda body, attempt: "slow") as api:
        asyncio.run(ask(api))
