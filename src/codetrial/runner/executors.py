"""Where sandboxed grading runs: `local` (this machine's warm Sandbox) or `ray` (one per node).

Protocols and suites only call `await executor.run(program, limits)`, exactly the Sandbox's
method, so they do not know which executor graded their program.
"""

from __future__ import annotations

import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import TYPE_CHECKING, Protocol

from codetrial.sandbox import Limits, Outcome, Program, Sandbox

if TYPE_CHECKING:
    from codetrial.runner.config import RunConfig


class Executor(Protocol):
    """Runs programs under limits somewhere; `capacity` is how many run at once."""

    capacity: int

    @property
    def mode(self) -> str: ...

    async def run(self, program: Program, limits: Limits = ...) -> Outcome: ...

    async def aclose(self) -> None: ...


class LocalExecutor:
    """This machine's Sandbox: `workers` warm worker processes."""

    def __init__(self, workers: int, preload: tuple[str, ...] = (),
                 hidden: tuple[str, ...] = ()) -> None:
        self.sandbox = Sandbox(workers=workers, preload=preload, hidden=hidden)
        self.capacity = workers

    @property
    def mode(self) -> str:
        return self.sandbox.mode

    @property
    def unmasked(self) -> list[str]:
        return self.sandbox.unmasked

    async def run(self, program: Program, limits: Limits = Limits()) -> Outcome:  # noqa: B008
        return await self.sandbox.run(program, limits)

    async def aclose(self) -> None:
        await self.sandbox.aclose()


@asynccontextmanager
async def open_executor(config: RunConfig, preload: tuple[str, ...] = (),
                        hidden: tuple[str, ...] = ()) -> AsyncIterator[Executor]:
    """The run's executor, started before the first sample and stopped after the last; its
    workers import `preload` once (the suite's programs would each import them) and mask
    `hidden` (the suite's answer keys)."""
    executor: Executor
    if config.executor == "ray":
        from codetrial.runner.ray_executor import RayExecutor

        executor = await RayExecutor.start(config.ray_address, preload=preload, hidden=hidden)
    else:
        executor = LocalExecutor(config.sandbox_workers, preload, hidden)
    if unmasked := getattr(executor, "unmasked", []):
        print(f"codetrial: warning: the {executor.mode} sandbox cannot mask these answer keys "
              f"(only file permissions guard them): {', '.join(unmasked)}", file=sys.stderr)
    try:
        yield executor
    finally:
        await executor.aclose()
