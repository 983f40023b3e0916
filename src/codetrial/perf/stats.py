"""What a race means: ratios to the fastest, log-log slopes (empirical complexity) and the
sizes where one contender overtakes another; as a table and as JSON for charts."""

from __future__ import annotations

import math
from collections import defaultdict
from itertools import combinations
from typing import Any

from codetrial.perf.race import Measurement, RaceResult

Series = dict[str, dict[int, float]]  # contender -> size -> ns per call


def series(measurements: list[Measurement]) -> dict[tuple[str, str], Series]:
    """(case, scenario) -> contender -> size -> ns per call, correct contenders only."""
    out: dict[tuple[str, str], Series] = defaultdict(lambda: defaultdict(dict))
    for m in measurements:
        if m.correct:
            out[(m.case, m.scenario)][m.contender][m.size] = m.ns
    return out


def ratios(measurements: list[Measurement]) -> list[dict[str, Any]]:
    """Each correct contender's time over the fastest one's at the same point."""
    best: dict[tuple[str, str, int], float] = {}
    for m in measurements:
        if m.correct:
            key = (m.case, m.scenario, m.size)
            best[key] = min(best.get(key, math.inf), m.ns)
    return [{"case": m.case, "scenario": m.scenario, "size": m.size, "contender": m.contender,
             "ratio": round(m.ns / best[(m.case, m.scenario, m.size)], 2)}
            for m in measurements if m.correct]


def slope(points: dict[int, float]) -> float | None:
    """Least-squares slope of log(time) on log(size): ~0 constant, ~1 linear, ~2 quadratic.
    Fitted on sizes of at least 10 when there are three of them (the asymptotic part)."""
    sizes = sorted(points)
    large = [s for s in sizes if s >= 10]
    used = large if len(large) >= 3 else sizes
    if len(used) < 2:
        return None
    xs = [math.log(s) for s in used]
    ys = [math.log(points[s]) for s in used]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    var = sum((x - mx) ** 2 for x in xs)
    return round(sum((x - mx) * (y - my) for x, y in zip(xs, ys, strict=True)) / var, 2)


def slopes(measurements: list[Measurement]) -> list[dict[str, Any]]:
    return [{"case": case, "scenario": scenario, "contender": name, "slope": slope(points)}
            for (case, scenario), by_name in series(measurements).items()
            for name, points in by_name.items() if slope(points) is not None]


NOISE = math.log(1.15)  # gaps under 15% are ties: a crossover needs a clear lead either side


def crossover(a: dict[int, float], b: dict[int, float]) -> list[tuple[float, str]]:
    """Sizes (interpolated in log-log) where the faster of a and b clearly changes, with who
    wins above: [(size, "a" or "b"), ...]. Sizes where they tie are skipped over."""
    gaps = [(s, math.log(a[s]) - math.log(b[s])) for s in sorted(set(a) & set(b))]
    clear = [(s, d) for s, d in gaps if abs(d) >= NOISE]
    found = []
    for (s0, d0), (s1, d1) in zip(clear, clear[1:], strict=False):
        if d0 * d1 < 0:
            at = math.exp(math.log(s0) + (math.log(s1) - math.log(s0)) * d0 / (d0 - d1))
            found.append((round(at, 1), "a" if d1 < 0 else "b"))
    return found


def crossovers(measurements: list[Measurement]) -> list[dict[str, Any]]:
    out = []
    for (case, scenario), by_name in series(measurements).items():
        for a, b in combinations(sorted(by_name), 2):
            for at, winner in crossover(by_name[a], by_name[b]):
                above, below = (a, b) if winner == "a" else (b, a)
                out.append({"case": case, "scenario": scenario, "size": at,
                            "faster_above": above, "faster_below": below})
    return out


def race_json(result: RaceResult) -> dict[str, Any]:
    return {**result.to_json(), "ratios": ratios(result.measurements),
            "slopes": slopes(result.measurements), "crossovers": crossovers(result.measurements)}


def rate(per_second: float) -> str:
    for unit, scale in (("M", 1e6), ("k", 1e3)):
        if per_second >= scale:
            return f"{per_second / scale:.3g}{unit}"
    return f"{per_second:.3g}"


def render(result: RaceResult) -> str:
    """Validations per second per size, the slope, then the crossovers and problems."""
    lines = []
    slope_of = {(s["case"], s["scenario"], s["contender"]): s["slope"]
                for s in slopes(result.measurements)}
    grouped: dict[tuple[str, str], list[Measurement]] = defaultdict(list)
    for m in result.measurements:
        grouped[(m.case, m.scenario)].append(m)
    for (case, scenario), rows in grouped.items():
        sizes = sorted({m.size for m in rows})
        names = list(dict.fromkeys(m.contender for m in rows))
        width = max(len(n) for n in names) + 2
        lines.append(f"{case} ({scenario} case), validations per second")
        lines.append("contender".ljust(width) + "".join(f"{s:>9}" for s in sizes) + "    slope")
        for name in names:
            cells = {m.size: m for m in rows if m.contender == name}
            text = "".join(f"{cell_text(cells.get(s)):>9}" for s in sizes)
            s = slope_of.get((case, scenario, name))
            lines.append(name.ljust(width) + text + (f"{s:>9.2f}" if s is not None else ""))
        lines.append("")
    lines += [f"crossover {c['case']} {c['scenario']}: {c['faster_below']} faster below "
              f"size ~{c['size']:g}, {c['faster_above']} above" for c in crossovers(
                  result.measurements)]
    lines += [f"problem: {p}" for p in result.problems]
    return "\n".join(lines)


def cell_text(m: Measurement | None) -> str:
    if m is None:
        return "-"
    return rate(m.per_second) if m.correct else "wrong"
