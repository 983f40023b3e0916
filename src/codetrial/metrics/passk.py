"""Unbiased pass@k (Chen et al. 2021), exact and numerically stable."""

from __future__ import annotations

from collections.abc import Sequence
from math import prod


def pass_at_k(n: int, c: int, k: int) -> float | None:
    """Probability that at least one of k samples drawn from n (c correct) passes.

    None when n < k: the estimate is undefined, and callers must say so rather than drop it.
    """
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n} c={c}")
    if k < 1:
        raise ValueError("k must be at least 1")
    if n < k:
        return None
    if n - c < k:
        return 1.0
    return 1.0 - prod(1.0 - k / i for i in range(n - c + 1, n + 1))


def mean_pass_at_k(counts: Sequence[tuple[int, int]], k: int) -> float | None:
    """Mean over tasks of pass@k for (n, c) per task; None if any task has fewer than k samples."""
    values = [pass_at_k(n, c, k) for n, c in counts]
    if not values or any(v is None for v in values):
        return None
    return sum(values) / len(values)  # type: ignore[arg-type]
