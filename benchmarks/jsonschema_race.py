"""The study's uniqueItems finding, on Python contenders: a naive validator (a set of sorted
JSON dumps, no early exit) against early-exit ones, over lists of 1 to 1000 items.

Best case: equal items (an early-exit validator stops at the second item). Worst case: all
distinct (every validator must look at everything; a pairwise early-exit one is quadratic).
Prints validations per second, the naive/early-exit time ratios and the crossover sizes.
Usage: python benchmarks/jsonschema_race.py [--sizes 1,3,10,30,100,300,1000] [--point-seconds 1]
"""

from __future__ import annotations

import argparse
import asyncio

from codetrial.perf.cases import CASES, SIZES
from codetrial.perf.race import RaceResult, Settings, run_race
from codetrial.perf.stats import crossover, render, series

# Early exit by comparing each item with the ones before it, with JSON equality (O(n^2) worst).
PAIRWISE = """\
def _equal(a, b):
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    if type(a) is not type(b):
        return False
    if isinstance(a, list):
        return len(a) == len(b) and all(map(_equal, a, b))
    if isinstance(a, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return a == b


def validate(instance):
    if not isinstance(instance, list):
        return True
    for i, item in enumerate(instance):
        for earlier in instance[:i]:
            if _equal(item, earlier):
                return False
    return True
"""
NAIVE = "hand-written naive"
EARLY = ("hand-written", "pairwise early-exit")


def report(result: RaceResult) -> str:
    lines = [render(result), "", "naive (set of sorted JSON dumps) time / early-exit time:"]
    for (_, scenario), by_name in sorted(series(result.measurements).items()):
        for early in EARLY:
            if NAIVE not in by_name or early not in by_name:
                continue
            sizes = sorted(set(by_name[NAIVE]) & set(by_name[early]))
            ratios = "  ".join(f"{n}:{by_name[NAIVE][n] / by_name[early][n]:.2g}x" for n in sizes)
            flips = crossover(by_name[NAIVE], by_name[early])
            where = ", ".join(f"~{at:g} ({'naive' if w == 'a' else early} faster above)"
                              for at, w in flips) or "none: the same one is faster at every size"
            lines += [f"  {scenario:5} vs {early}: {ratios}", f"        crossover: {where}"]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default=",".join(map(str, SIZES)))
    parser.add_argument("--point-seconds", type=float, default=1.0)
    args = parser.parse_args()
    settings = Settings(sizes=tuple(int(s) for s in args.sizes.split(",")),
                        point_seconds=args.point_seconds)
    extra = {"uniqueItems": {"pairwise early-exit": PAIRWISE}}
    result = asyncio.run(run_race([CASES["uniqueItems"]], extra, settings))
    print(report(result))


if __name__ == "__main__":
    main()
