"""Speed section: the curves of `codetrial perf ... --out FILE`, time over the fastest vs size.

A race is not stored with runs, so its JSON files are named on the command line.
"""

from __future__ import annotations

import json
from pathlib import Path

from codetrial.core import UsageError
from codetrial.report.charts import Rows, speed_chart
from codetrial.report.page import Figure, Section

FIELDS = ("case", "scenario", "size", "contender", "ratio")


def race_rows(path: Path) -> Rows:
    """The `ratios` rows of one race file (correct contenders only, as perf wrote them)."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        raise UsageError(f"{path}: not a `codetrial perf --out` file ({exc})") from None
    race = str(data.get("run_id") or path.stem)
    return [{**{k: row[k] for k in FIELDS}, "race": race} for row in data.get("ratios", [])
            if all(k in row for k in FIELDS) and row["ratio"] > 0 and row["size"] > 0]


def speed_section(perf_files: list[Path]) -> Section | None:
    rows = [row for path in perf_files for row in race_rows(path)]
    if not rows:
        return None
    return Section("speed", "Speed of generated code", [Figure(
        "speed", "Time over the fastest contender by input size", speed_chart(rows),
        "Both axes logarithmic; 1 is the fastest at that size. A rising line falls behind the "
        "fastest as inputs grow.")])
