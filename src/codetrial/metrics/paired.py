"""Paired comparison of two runs on the same tasks: McNemar's exact test, paired bootstrap."""

from __future__ import annotations

import random
from collections import defaultdict
from dataclasses import dataclass
from math import comb

from codetrial.core import Sample
from codetrial.metrics.intervals import Estimate

Key = tuple[str, int]


@dataclass
class Comparison:
    pairs: int
    rate_a: float
    rate_b: float
    difference: Estimate  # rate_b - rate_a with a 95% paired-bootstrap interval
    a_only: list[Key]  # passed in A, failed in B
    b_only: list[Key]
    p_value: float


def mcnemar_exact(b: int, c: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (binomial, p = 1/2)."""
    n = b + c
    if n == 0:
        return 1.0
    tail = sum(comb(n, i) for i in range(min(b, c) + 1)) / 2**n
    return min(1.0, 2 * tail)


def outcomes(samples: list[Sample]) -> dict[Key, bool]:
    """Graded samples only: an infra error has no outcome to compare."""
    return {(s.task_id, s.index): s.passed for s in samples if not s.is_infra_error}


def compare(a: list[Sample], b: list[Sample], resamples: int = 2000, seed: int = 0) -> Comparison:
    oa, ob = outcomes(a), outcomes(b)
    keys = sorted(oa.keys() & ob.keys())
    a_only = [k for k in keys if oa[k] and not ob[k]]
    b_only = [k for k in keys if ob[k] and not oa[k]]
    n = max(len(keys), 1)
    rate_a = sum(oa[k] for k in keys) / n
    rate_b = sum(ob[k] for k in keys) / n
    return Comparison(len(keys), rate_a, rate_b,
                      _bootstrap_difference(keys, oa, ob, resamples, seed), a_only, b_only,
                      mcnemar_exact(len(a_only), len(b_only)))


def _bootstrap_difference(keys: list[Key], oa: dict[Key, bool], ob: dict[Key, bool],
                          resamples: int, seed: int) -> Estimate:
    """Resample whole tasks, so samples of one task stay together (they are not independent)."""
    by_task: dict[str, list[int]] = defaultdict(list)
    for k in keys:
        by_task[k[0]].append(int(ob[k]) - int(oa[k]))
    tasks = list(by_task.values())
    if not tasks:
        return Estimate(0.0, 0.0, 0.0)
    rng = random.Random(seed)

    def mean_diff(chosen: list[list[int]]) -> float:
        return sum(map(sum, chosen)) / sum(map(len, chosen))

    diffs = sorted(mean_diff(rng.choices(tasks, k=len(tasks))) for _ in range(resamples))
    return Estimate(mean_diff(tasks), diffs[int(0.025 * resamples)],
                    diffs[int(0.975 * resamples) - 1])
