"""Doc-synthesis section: the funnel of `codetrial synth` and pass@k of the `yaml` runs.

The funnel is read from the synthesis state (synth.sqlite) in the case directory a run used;
hand-written case directories have none, and then only pass@k is shown.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codetrial.report.charts import Rows, funnel_chart, pass_at_chart, percent
from codetrial.report.page import Figure, Section
from codetrial.report.runs import RunView

SUITE = "yaml"
STAGES = ("documented functions", "seeds", "instructions", "validated", "cases")
CASE_STATES = ("written", "accepted")


def funnel(directory: Path) -> dict[str, int] | None:
    """Counts per stage, or None where no synthesis ran (or the synth package is absent)."""
    try:
        from codetrial.synth.instruct import STAGE as INSTRUCTION
        from codetrial.synth.state import STATE_FILE, State
        from codetrial.synth.validate import STAGE as VALIDATION
    except ImportError:
        return None
    if not (directory / STATE_FILE).is_file():
        return None
    state = State(directory)
    try:
        filtered = state.filtered()
        kept = [f.seed.id for f in filtered if f.kept]
        return dict(zip(STAGES, (
            len({f.seed.function for f in filtered}), len(kept),
            sum(_any_step(state, s, INSTRUCTION, "ok") for s in kept),
            sum(_any_step(state, s, VALIDATION, "passed") for s in kept),
            sum(case_state in CASE_STATES for _, case_state, _ in state.cases()),
        ), strict=True))
    finally:
        state.close()


def _any_step(state: Any, seed_id: str, stage: str, verdict: str) -> bool:
    return any(step["verdict"] == verdict for step in state.steps(seed_id, stage))


def funnel_rows(runs: list[RunView]) -> Rows:
    directories = dict.fromkeys(Path(p) for r in runs
                                if (p := (r.record.config.get("suite_options") or {}).get("path")))
    rows: Rows = []
    for directory in directories:
        counts = funnel(directory)
        rows += [{"directory": str(directory), "stage": stage, "order": i, "count": counts[stage]}
                 for i, stage in enumerate(STAGES)] if counts else []
    return rows


def pass_at_rows(runs: list[RunView]) -> Rows:
    return [{"contender": run.label, "run": run.run_id, "k": f"pass@{k}",
             **{name: percent(estimate[name]) for name in ("value", "low", "high")}}
            for run in runs for k, estimate in run.summary.get("pass_at_interval", {}).items()
            if estimate]


def synthesis_section(runs: list[RunView]) -> Section | None:
    synth = [r for r in runs if r.record.suite == SUITE]
    if not synth:
        return None
    parts: list[str | Figure] = []
    if rows := funnel_rows(synth):
        parts.append(Figure("synth-funnel", "Synthesis funnel", funnel_chart(rows),
                            "From documented functions to written cases, per case directory."))
    if rows := pass_at_rows(synth):
        parts.append(Figure("synth-pass-at", "pass@k per model", pass_at_chart(rows),
                            "Whiskers: 95% bootstrap interval over cases."))
    return Section("synthesis", "Doc-synthesized cases", parts) if parts else None
