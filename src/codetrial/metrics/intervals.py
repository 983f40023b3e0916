"""95% intervals: Wilson for proportions, bootstrap for means over tasks, t for repeats."""

from __future__ import annotations

import random
from collections.abc import Sequence
from dataclasses import dataclass
from math import fsum, isnan, sqrt
from statistics import NormalDist, mean, stdev

Z95 = NormalDist().inv_cdf(0.975)


@dataclass(frozen=True)
class Estimate:
    value: float
    low: float
    high: float

    def as_dict(self) -> dict[str, float | None]:
        """JSON-safe: an undefined rate (nothing to count) has value None, not NaN."""
        value = None if isnan(self.value) else self.value
        return {"value": value, "low": self.low, "high": self.high}

    def __str__(self) -> str:
        return f"{self.value:.3f} [{self.low:.3f}, {self.high:.3f}]"


def wilson(successes: float, total: int, z: float = Z95) -> Estimate:
    """Wilson score interval: well-behaved at 0%, 100% and small n, unlike the normal one."""
    if total <= 0:
        return Estimate(float("nan"), 0.0, 1.0)
    p = successes / total
    denom = 1 + z * z / total
    centre = (p + z * z / (2 * total)) / denom
    half = z * sqrt(p * (1 - p) / total + z * z / (4 * total * total)) / denom
    low = 0.0 if successes == 0 else max(0.0, centre - half)
    high = 1.0 if successes == total else min(1.0, centre + half)
    return Estimate(p, low, high)


FEW_TASKS = 30  # below this, a percentile bootstrap's interval is too narrow to trust


def bootstrap_mean(values: Sequence[float], resamples: int = 2000, seed: int = 0) -> Estimate:
    """The mean of per-task fractions in [0, 1] (pass@k), with a 95% interval.

    A percentile bootstrap over tasks, widened for few tasks or equal values, where resampling
    cannot show the spread it has not seen (four failures resample to [0, 0]): there the
    interval also covers Wilson's for the mean as a proportion of the tasks. That bound is
    conservative for fractions: no [0, 1] variable with that mean varies more than a 0/1 one.
    Resample means are fsum / n (statistics.mean's exact fractions cost 3x the bootstrap)."""
    if not values:
        return Estimate(float("nan"), float("nan"), float("nan"))
    n, centre = len(values), mean(values)
    if min(values) == max(values):
        return wilson(centre * n, n)
    rng = random.Random(seed)
    means = sorted(fsum(rng.choices(values, k=n)) / n for _ in range(resamples))
    low, high = means[int(0.025 * resamples)], means[int(0.975 * resamples) - 1]
    if n < FEW_TASKS:
        bound = wilson(centre * n, n)
        low, high = min(low, bound.low), max(high, bound.high)
    return Estimate(centre, low, high)


def t_interval(values: Sequence[float]) -> Estimate:
    """Mean of repeated runs with a Student-t 95% interval."""
    if len(values) < 2:
        v = values[0] if values else float("nan")
        return Estimate(v, float("nan"), float("nan"))
    m, s = mean(values), stdev(values)
    half = t975(len(values) - 1) * s / sqrt(len(values))
    return Estimate(m, m - half, m + half)


_T975 = (12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179,
         2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093, 2.086, 2.080, 2.074, 2.069, 2.064,
         2.060, 2.056, 2.052, 2.048, 2.045, 2.042)


def t975(df: int) -> float:
    """Two-sided 95% Student-t quantile: table to 30 degrees of freedom, Cornish-Fisher above."""
    if df < 1:
        raise ValueError("df must be at least 1")
    if df <= len(_T975):
        return _T975[df - 1]
    return Z95 + (Z95**3 + Z95) / (4 * df)
