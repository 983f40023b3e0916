"""Whether a run finished: a run whose process died must never read as a finished empty one.

A run is finished once the runner marked it so, after its last planned sample was stored; until
then its figures cover only the samples stored so far, and `codetrial run --resume` completes it.
"""

from __future__ import annotations

from typing import Any


def is_finished(summary: dict[str, Any]) -> bool:
    return bool(summary.get("finished"))


def resume_command(run_id: str) -> str:
    return f"codetrial run --resume {run_id}"


def state_text(summary: dict[str, Any]) -> str:
    """`finished`, or `unfinished` with how many samples are stored so far."""
    if is_finished(summary):
        return "finished"
    stored = summary.get("samples", 0)
    planned = summary.get("planned_samples")
    of = f" of {planned}" if planned else ""
    return f"unfinished: {stored}{of} sample{'' if (planned or stored) == 1 else 's'} stored so far"

