"""A fixed number of model calls in flight, apart from the number of samples in flight.

Samples wait for a model slot here, so the runner can keep more samples going than the model
takes calls: when the model answers at once (the reference, cached replies) the sandbox still
has a queue of programs, and when it is slow the calls stay at `--concurrency`.
"""

from __future__ import annotations

import asyncio

from codetrial.models.base import Model, ModelWrapper, Reply, Request


class GatedModel(ModelWrapper):
    """At most `slots` calls of `inner` at once."""

    def __init__(self, inner: Model, slots: int) -> None:
        super().__init__(inner)
        self.slots = slots
        self._free = asyncio.Semaphore(slots)

    async def generate(self, request: Request) -> Reply:
        async with self._free:
            return await self.inner.generate(request)
