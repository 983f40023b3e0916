"""Running case programs and documented examples in the sandbox.

Examples run in batches: one sandboxed program execs many probes, each in a fresh namespace,
so DuckDB is imported (or a Spark session started) once per batch instead of once per example.
An example that takes the engine down (a dead JVM) ends its batch: the rest run in a fresh one.
A batch that dies itself (timeout, crash) is split in halves until the culprit runs alone.
"""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any

from codetrial.sandbox.judged import judged_program
from codetrial.sandbox.types import Limits, Outcome, Program
from codetrial.synth.cases import context_imports, holds_data
from codetrial.synth.engines import Engine

if TYPE_CHECKING:
    from codetrial.sandbox import Sandbox

SECONDS_PER_PROBE = 1.0

BATCH_RUNNER = '''
if "engine_alive" not in globals():  # engines may define these in their preamble
    def engine_alive():
        return True
if "engine_reset" not in globals():
    def engine_reset():
        pass
_BASE = dict(globals())
__results__ = []
for _source in PROBES:
    _ns = dict(_BASE, __name__="__main__")
    try:
        exec(compile(_source, "<example>", "exec"), _ns)
        __results__.append({"ok": True, "output": _ns.get("__results__")})
    except BaseException as _exc:  # an example's failure is a result, not the batch's end
        __results__.append({"ok": False, "error": f"{type(_exc).__name__}: {_exc}"[:800]})
        if not engine_alive():  # it took the engine down: the rest run in a fresh batch
            break
    engine_reset()  # settings an example changed must not leak into the next one
    del _ns
'''


@dataclass(frozen=True)
class ProbeResult:
    ok: bool
    output: Any = None
    error: str = ""


async def run_case_program(sandbox: Sandbox, engine: Engine, code: str,
                           limits: Limits | None = None) -> Outcome:
    """A program on an engine: its hidden preamble first, then the code, with its limits."""
    program = Program(code=engine.preamble + code, env=engine.env())
    return await sandbox.run(program, limits or engine.limits)


async def run_with_test(sandbox: Sandbox, engine: Engine, code: str, test: str, *,
                        context: str) -> Outcome:
    """Filled code (`context` with its hole filled), then the case's test. A fill that is data
    (a string literal's body) runs no code of its own: code and test are one program. A fill of
    Python could lie to the test (an object equal to anything, a patched repr): the test then
    runs apart from it, on plain values (codetrial_judge.check_names), with the modules the
    context imports imported by the judge."""
    if holds_data(context):
        return await run_case_program(sandbox, engine, f"{code}\n{test}")
    spec = {"test": test, "imports": context_imports(context)}
    program = Program(code=judged_program("check_names", engine.preamble + code),
                      env=engine.env(), stdin=json.dumps(spec))
    return await sandbox.run(program, engine.limits)


async def run_probes(sandbox: Sandbox, engine: Engine, probes: list[str]) -> list[ProbeResult]:
    batch = engine.batch
    chunks = [probes[i:i + batch] for i in range(0, len(probes), batch)]
    results = await asyncio.gather(*(_run_chunk(sandbox, engine, c) for c in chunks))
    return [r for chunk in results for r in chunk]


async def _run_chunk(sandbox: Sandbox, engine: Engine, probes: list[str]) -> list[ProbeResult]:
    code = f"PROBES = {probes!r}\n{BATCH_RUNNER}"
    outcome = await run_case_program(sandbox, engine, code, _batch_limits(engine, len(probes)))
    report = outcome.report
    if outcome.status == "ok" and isinstance(report, list) and 0 < len(report) <= len(probes):
        done = [ProbeResult(r["ok"], r.get("output"), r.get("error", "")) for r in report]
        rest = probes[len(done):]
        return done + (await _run_chunk(sandbox, engine, rest) if rest else [])
    if len(probes) == 1:
        detail = (outcome.detail or outcome.stderr)[-800:]
        return [ProbeResult(False, error=f"{outcome.status}: {detail}".strip())]
    half = len(probes) // 2
    return (await _run_chunk(sandbox, engine, probes[:half])
            + await _run_chunk(sandbox, engine, probes[half:]))


def _batch_limits(engine: Engine, n: int) -> Limits:
    """CPU time per example as a case has; wall time three times that, so that a busy machine
    does not turn slow examples into failed ones."""
    base = engine.limits
    cpu = base.cpu_seconds + SECONDS_PER_PROBE * n
    return replace(base, cpu_seconds=cpu, wall_seconds=max(base.wall_seconds, 3 * cpu),
                   max_output_bytes=max(base.max_output_bytes, 1_000_000))
