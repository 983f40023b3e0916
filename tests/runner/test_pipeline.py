"""The model's concurrency bounds its calls, not the samples being graded: with a model that
answers at once the sandbox has a queue, and a slow model never sees more calls than allowed."""

from __future__ import annotations

import asyncio
import os
from pathlib import Path
from typing import Any

import pytest

from codetrial.core import UsageError
from codetrial.models.base import Model, Reply, Request
from codetrial.runner import RunConfig, execute, executors, pending, prepare, start_run
from codetrial.runner.gate import GatedModel
from codetrial.sandbox import Sandbox
from codetrial.sandbox.procs import descendants
from codetrial.store import Store


class Counted(Sandbox):
    """A real sandbox that counts the programs handed to it and not yet finished."""

    in_flight = 0
    peak = 0

    async def run(self, *args: Any, **kwargs: Any) -> Any:
        Counted.in_flight += 1
        Counted.peak = max(Counted.peak, Counted.in_flight)
        try:
            return await super().run(*args, **kwargs)
        finally:
            Counted.in_flight -= 1


async def reference_run(store: Store) -> str:
    config = RunConfig(suite="humaneval", model="reference", limit=12, concurrency=1,
                       sandbox_workers=2, cache=False)
    plan = await prepare(config, None)
    run_id = start_run(store, plan)
    await execute(store, run_id, plan, pending(store, run_id, plan))
    return run_id


def test_an_instant_model_keeps_the_sandbox_queue_full_at_concurrency_one(tmp_path,
                                                                          monkeypatch, ct_home):
    monkeypatch.setattr(executors, "Sandbox", Counted)
    store = Store(tmp_path / "runs.sqlite")
    run_id = asyncio.run(reference_run(store))
    samples = store.load_samples(run_id)
    assert len(samples) == 12 and all(s.passed for s in samples)
    assert Counted.peak > 2  # both workers busy and programs waiting: not one sample at a time


class Slow(Model):
    name = "slow"

    def __init__(self) -> None:
        self.in_flight = self.peak = 0

    async def generate(self, request: Request) -> Reply:
        self.in_flight += 1
        self.peak = max(self.peak, self.in_flight)
        await asyncio.sleep(0.02)
        self.in_flight -= 1
        return Reply(text=request.prompt or "")


def test_a_slow_model_never_sees_more_calls_than_its_slots():
    inner = Slow()
    gated = GatedModel(inner, 2)

    async def ask_all() -> list[Reply]:
        return await asyncio.gather(*(gated.generate(Request(kind="completion", prompt=str(i)))
                                      for i in range(10)))

    replies = asyncio.run(ask_all())
    assert [r.text for r in replies] == [str(i) for i in range(10)]
    assert inner.peak == 2 and gated.name == "slow"


class Kept(Sandbox):
    """A real sandbox that remembers itself, to check it was stopped."""

    made: list[Sandbox] = []

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        Kept.made.append(self)


def test_the_sandbox_starts_during_prepare_and_stops_when_no_run_follows(monkeypatch, ct_home):
    Kept.made = []
    monkeypatch.setattr(executors, "Sandbox", Kept)
    config = RunConfig(suite="humaneval", model="reference", limit=2, cache=False)

    async def prepared_then_dropped() -> list[int]:
        plan = await prepare(config, None)
        assert plan.executor is not None
        sandbox = (await plan.executor).sandbox  # warm: every worker starting, none waited for
        for _ in range(200):
            if len(sandbox.worker_pids) == 2:
                break
            await asyncio.sleep(0.05)
        pids = sandbox.worker_pids
        await plan.aclose()
        return pids

    pids = asyncio.run(prepared_then_dropped())
    [sandbox] = Kept.made
    assert len(pids) == 2 and sandbox._closed and sandbox.worker_pids == []
    assert not any(Path(f"/proc/{pid}").exists() for pid in pids)


def test_closing_while_workers_start_leaves_none_running() -> None:
    before = set(descendants(os.getpid()))  # what other fixtures keep running
    sandbox = Sandbox(workers=3)
    sandbox.start()  # nothing waits for these starts
    sandbox.close()
    assert sandbox.worker_pids == []
    assert all(slot.starting is None and slot.worker is None for slot in sandbox._slots)
    assert not set(descendants(os.getpid())) - before  # no worker (nor bwrap) left running


def test_a_prepare_that_fails_after_the_start_stops_the_sandbox(monkeypatch, ct_home):
    Kept.made = []
    monkeypatch.setattr(executors, "Sandbox", Kept)
    config = RunConfig(suite="humaneval", model="no-such-backend", limit=2, cache=False)
    with pytest.raises(UsageError, match="unknown model backend"):
        asyncio.run(prepare(config, None))
    assert [s._closed for s in Kept.made] == [True]
