"""Seed filtering: keep an example only if it is a fair test.

It must run in the pinned environment, give the same output on two separate runs, not call a
function whose result changes by nature (random, uuid, now, current_*, version, user, ...) or
that the library marks volatile, and, where the docs show output, match it as text. Last, an
example that is the same test as one already kept (an alias's example with the alias's name
changed to the target's) is a duplicate: it would count one test twice. The first reason that
applies is the one counted, in the order of REASONS.
"""

from __future__ import annotations

import asyncio
import re
from collections import Counter
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codetrial.synth.execute import ProbeResult, run_probes
from codetrial.synth.seeds import Seed

if TYPE_CHECKING:
    from codetrial.sandbox import Sandbox
    from codetrial.synth.sources.base import Source

REASONS = ("error", "unstable", "nondeterministic", "volatile", "mismatch", "duplicate")

NONDETERMINISTIC = re.compile(r"""^(
    random|rand|randn|randint|randrange|randstr|getrandbits|uniform|gauss|normal|shuffle
    |choice|choices|sample|setseed|seed
    |uuid|uuid\d|uuidv\d|gen_random_uuid|randomuuid
    |now|today|curdate|curtime|localtime|localtimestamp|sysdate|time|perf_counter|monotonic
    |current_\w+|get_current_\w+|transaction_timestamp|statement_timestamp|unix_timestamp
    |txid_current|version|user|session_user|system_user
    |nextval|currval|setval|sleep|sleep_ms
    |monotonically_increasing_id|spark_partition_id|input_file_\w+|reflect|java_method
)$""", re.X | re.I)


@dataclass(frozen=True)
class Filtered:
    seed: Seed
    reason: str | None  # None: kept
    output: Any = None
    detail: str = ""

    @property
    def kept(self) -> bool:
        return self.reason is None


async def filter_seeds(sandbox: Sandbox, source: Source, seeds: list[Seed]) -> list[Filtered]:
    """Run every example twice, in two separate sandboxed runs, and judge each."""
    probes = [s.draft.probe() for s in seeds]
    first, second = await asyncio.gather(run_probes(sandbox, source.runtime, probes),
                                         run_probes(sandbox, source.runtime, probes))
    judged = [judge(source, s, a, b) for s, a, b in zip(seeds, first, second, strict=True)]
    return drop_duplicates(source, judged)


def judge(source: Source, seed: Seed, first: ProbeResult, second: ProbeResult) -> Filtered:
    if not (first.ok and second.ok):
        return Filtered(seed, "error", detail=first.error or second.error)
    if first.output != second.output:
        return Filtered(seed, "unstable", first.output, f"second run: {second.output!r}"[:800])
    if NONDETERMINISTIC.match(seed.short_name):
        return Filtered(seed, "nondeterministic", first.output)
    if seed.volatile:
        return Filtered(seed, "volatile", first.output)
    if not source.matches(seed, first.output):
        return Filtered(seed, "mismatch", first.output, f"documented: {seed.documented!r}")
    return Filtered(seed, None, first.output)


def drop_duplicates(source: Source, results: list[Filtered]) -> list[Filtered]:
    """Keep the first of each test, preferring a function's own example to an alias's."""
    results = list(results)
    kept = [i for i, r in enumerate(results) if r.kept]
    seen: set[str] = set()
    for i in sorted(kept, key=lambda i: source.is_alias(results[i].seed)):
        key = source.test_key(results[i].seed)
        if key in seen:
            results[i] = Filtered(results[i].seed, "duplicate", results[i].output)
        seen.add(key)
    return results


def counts(results: list[Filtered]) -> dict[str, Any]:
    """The figures the filter reports: examples and functions in, dropped per reason, kept."""
    dropped = Counter(r.reason for r in results if not r.kept)
    kept = [r for r in results if r.kept]
    return {
        "examples": len(results),
        "functions": len({r.seed.function for r in results}),
        "dropped": {reason: dropped.get(reason, 0) for reason in REASONS},
        "kept_examples": len(kept),
        "kept_functions": len({r.seed.function for r in kept}),
    }
