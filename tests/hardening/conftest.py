"""Shared by the hardening tests: a model whose replies are scripted, runs through the real
runner (protocol, sandbox, SQLite store), and the checks that nothing was left behind."""

from __future__ import annotations

import asyncio
import os
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from codetrial.core import Sample
from codetrial.models.base import Model, Reply, Request
from codetrial.protocols import PROTOCOLS
from codetrial.runner import Plan, RunConfig, execute, executors, pending, start_run
from codetrial.sandbox import Sandbox
from codetrial.sandbox.procs import descendants
from codetrial.store import Store
from codetrial.suites import create_suite, select_tasks
from tests.conftest import host_leftovers


class ScriptedModel(Model):
    """Stands in for a model: `answer(request)` is the reply's text."""

    name = "scripted"

    def __init__(self, answer: Callable[[Request], str]) -> None:
        self.answer = answer
        self.requests: list[Request] = []

    async def generate(self, request: Request) -> Reply:
        self.requests.append(request)
        return Reply(text=self.answer(request))


@dataclass
class Run:
    run_id: str
    samples: list[Sample]
    sandboxes: list[Sandbox] = field(default_factory=list)
    store: Store | None = None

    def by_index(self) -> dict[int, Sample]:
        return {s.index: s for s in self.samples}


def run_scripted(store_path: Path, suite: str, answer: Callable[[Request], str], *,
                 task_ids: list[str] | None = None, samples: int = 1, protocol: str | None = None,
                 options: dict[str, Any] | None = None, workers: int = 2,
                 monkeypatch: pytest.MonkeyPatch | None = None) -> Run:
    """One run of `suite` through the runner, with the sandboxes it started kept for checks."""
    sandboxes: list[Sandbox] = []
    if monkeypatch is not None:
        class Recorded(Sandbox):
            def __init__(self, *args: Any, **kwargs: Any) -> None:
                super().__init__(*args, **kwargs)
                sandboxes.append(self)

        monkeypatch.setattr(executors, "Sandbox", Recorded)
    config = RunConfig(suite=suite, model="scripted", protocol=protocol,
                       suite_options=options or {}, samples=samples, task_ids=task_ids,
                       sandbox_workers=workers, concurrency=workers, cache=False)
    suite_obj = create_suite(suite, config.suite_options)
    tasks = select_tasks(suite_obj.load_tasks(), task_ids, None)
    plan = Plan(config, suite_obj, tasks, ScriptedModel(answer),
                PROTOCOLS.get(protocol or suite_obj.default_protocol)())
    store = Store(store_path)
    run_id = start_run(store, plan)
    asyncio.run(execute(store, run_id, plan, pending(store, run_id, plan)))
    return Run(run_id, store.load_samples(run_id), sandboxes, store)


def fenced(code: str) -> str:
    return f"Here you go:\n\n```python\n{code}\n```\n"


def open_fds() -> set[str]:
    return set(os.listdir("/proc/self/fd"))


def children() -> set[int]:
    return descendants(os.getpid())


def leftovers(sandboxes: list[Sandbox], children_before: set[int]) -> list[str]:
    """Processes of the sandboxes' uids, files they own in shared dirs, new children of ours."""
    found = host_leftovers({uid for sb in sandboxes for uid in sb.uids})
    if new := children() - children_before:
        found.append(f"new children of the harness: {sorted(new)}")
    return found
