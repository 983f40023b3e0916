"""Sandboxed grading on a Ray cluster: every node holds its own warm Sandbox in an actor.

The driver keeps the model calls (asynchronous, one shared limiter) and the store; only
programs travel to the nodes and Outcomes back. Each program goes to the node with the fewest
programs outstanding per worker, and `run` awaits the actor's reply, so protocols see the same
`run(program, limits, watch) -> Outcome` as with the local Sandbox and results reach the store as
they finish. A watch goes with its program and judges the output on the node, so a program whose
verdict is decided stops there as it would locally. A node lost mid-program makes that sample
an infra error, retried on resume.

Ray is imported only here and only when this executor is asked for (extra `codetrial[ray]`).
"""

from __future__ import annotations

import asyncio
import logging
from dataclasses import dataclass, field
from typing import Any

from codetrial.core.errors import InfraError, UsageError
from codetrial.sandbox import Limits, Outcome, Program, Sandbox
from codetrial.sandbox.slot import Watch

START_TIMEOUT_SECONDS = 120.0


def import_ray() -> Any:
    try:
        import ray
    except ImportError as exc:
        raise UsageError("the ray executor needs Ray: pip install 'codetrial[ray]'") from exc
    return ray


class SandboxHost:
    """The actor body: one node's Sandbox. Ray runs `run` in up to `max_concurrency` threads."""

    def __init__(self, workers: int, preload: tuple[str, ...] = (),
                 hidden: tuple[str, ...] = ()) -> None:
        self.sandbox = Sandbox(workers=workers, preload=preload, hidden=hidden)
        self.workers = workers

    def describe(self) -> dict[str, Any]:
        import socket

        return {"host": socket.gethostname(), "mode": self.sandbox.mode,
                "workers": self.workers}

    def run(self, program: Program, limits: Limits, watch: Watch | None = None) -> Outcome:
        """`watch` is the driver's, pickled: it judges the output on this node, as it comes."""
        return self.sandbox.run_sync(program, limits, watch)

    def close(self) -> None:
        self.sandbox.close()


@dataclass
class _Host:
    """The driver's view of one node's actor."""

    node_id: str
    handle: Any
    capacity: int
    outstanding: int = 0
    info: dict[str, Any] = field(default_factory=dict)

    def load(self) -> float:
        return self.outstanding / self.capacity


class RayExecutor:
    """`await RayExecutor.start("auto" | "HOST:6379" | None)`, from a node of the cluster.

    None starts a local Ray instance unless this process is already connected to one; only an
    instance started here is shut down by `aclose`. (Ray Client, `ray://`, is not tried.)
    """

    def __init__(self, ray: Any, hosts: list[_Host], owns_ray: bool) -> None:
        self._ray, self._hosts, self._owns_ray = ray, hosts, owns_ray
        self.capacity = sum(h.capacity for h in hosts)

    @classmethod
    async def start(cls, address: str | None, workers_per_node: int | None = None,
                    preload: tuple[str, ...] = (), hidden: tuple[str, ...] = ()
                    ) -> RayExecutor:
        ray = import_ray()
        owns_ray = connect(ray, address)
        try:
            hosts = place_hosts(ray, workers_per_node, preload, hidden)
            await describe_hosts(ray, hosts)
        except BaseException:
            if owns_ray:
                ray.shutdown()
            raise
        return cls(ray, hosts, owns_ray)

    @property
    def mode(self) -> str:
        return ", ".join(sorted({h.info.get("mode", "?") for h in self._hosts}))

    @property
    def nodes(self) -> list[dict[str, Any]]:
        """Per node: host name, sandbox mode, workers, programs outstanding now."""
        return [{**h.info, "node_id": h.node_id, "outstanding": h.outstanding}
                for h in self._hosts]

    async def run(self, program: Program, limits: Limits = Limits(),  # noqa: B008
                  watch: Watch | None = None) -> Outcome:
        """`watch` travels with the program (pickled) and is called on its node, where the
        output is; the driver's own copy is never called."""
        host = min(self._hosts, key=_Host.load)
        host.outstanding += 1
        try:
            return await host.handle.run.remote(program, limits, watch)
        except self._ray.exceptions.RayError as exc:
            self._retire(host, exc)
            raise InfraError(f"ray: the sandbox on {host.info.get('host', host.node_id)} "
                             f"failed: {type(exc).__name__}: {exc}") from exc
        finally:
            host.outstanding -= 1

    def _retire(self, host: _Host, exc: Exception) -> None:
        """A dead actor (its node gone) gets no more programs while other nodes remain."""
        dead = isinstance(exc, self._ray.exceptions.RayActorError)
        if dead and host in self._hosts and len(self._hosts) > 1:
            self._hosts.remove(host)
            self.capacity -= host.capacity

    async def aclose(self) -> None:
        """Stop each node's sandbox workers, then the actors (and Ray, if started here)."""
        ray = self._ray
        closing = [h.handle.close.remote() for h in self._hosts]
        await asyncio.gather(*closing, return_exceptions=True)
        for host in self._hosts:
            ray.kill(host.handle)
        if self._owns_ray:
            ray.shutdown()


def connect(ray: Any, address: str | None) -> bool:
    """Join the cluster at `address` (or start a local instance); True if started here."""
    if ray.is_initialized():
        return False
    try:
        ray.init(address=address, include_dashboard=False, logging_level=logging.WARNING,
                 log_to_driver=False)
    except ConnectionError as exc:
        raise UsageError(f"ray: no cluster at {address!r} ({exc})") from exc
    return True


def place_hosts(ray: Any, workers_per_node: int | None, preload: tuple[str, ...] = (),
                hidden: tuple[str, ...] = ()) -> list[_Host]:
    """One actor per alive node with CPUs, pinned there, reserving the CPUs its workers use."""
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    actor_class = ray.remote(SandboxHost)
    hosts = []
    for node in ray.nodes():
        cpus = int(node.get("Resources", {}).get("CPU", 0))
        if not node.get("Alive") or cpus < 1:
            continue
        workers = workers_per_node or cpus
        handle = actor_class.options(
            num_cpus=min(workers, cpus), max_concurrency=2 * workers, max_restarts=1,
            max_task_retries=1,
            scheduling_strategy=NodeAffinitySchedulingStrategy(node["NodeID"], soft=False),
        ).remote(workers, preload, hidden)
        hosts.append(_Host(node["NodeID"], handle, workers))
    if not hosts:
        raise UsageError("ray: the cluster has no alive node with a CPU to run sandboxes on")
    return hosts


async def describe_hosts(ray: Any, hosts: list[_Host]) -> None:
    """Wait until every actor is up, so a node that cannot host a sandbox fails the run early."""
    try:
        infos = await asyncio.wait_for(
            asyncio.gather(*(h.handle.describe.remote() for h in hosts)), START_TIMEOUT_SECONDS)
    except (TimeoutError, ray.exceptions.RayError) as exc:
        raise UsageError(f"ray: sandbox actors did not start ({type(exc).__name__}: {exc})"
                         ) from exc
    for host, info in zip(hosts, infos, strict=True):
        host.info = info
