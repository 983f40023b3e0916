"""The review queue: cases whose validation failed wait here for a person's decision.

Accepting writes the case file (marked as accepted in review); rejecting records the decision
and removes the file if one was written. Either decision is kept in the state, so a resumed
pipeline never asks about the case again.
"""

from __future__ import annotations

from pathlib import Path

from codetrial.core import UsageError
from codetrial.synth.cases import dump_case
from codetrial.synth.state import State
from codetrial.synth.validate import STAGE as VALIDATION
from codetrial.synth.writer import build_case, case_path, write_seed_case


def queue(state: State) -> list[tuple[str, str]]:
    """(case id, why it is waiting) for every case in review."""
    return [(seed_id, note) for seed_id, _, note in state.cases("review")]


def show(state: State, seed_id: str) -> str:
    """The case as it would be written, then what the validating model answered."""
    filtered = state.seed(seed_id)
    text = dump_case(build_case(state, filtered, "review"))
    for step in state.steps(seed_id, VALIDATION):
        text += (f"\n# validation by {step['model']}: {step['verdict']}\n"
                 f"# its fill: {step['result']['fill']!r}\n")
        detail = step["result"]["detail"].strip()
        if detail:
            text += "".join(f"#   {ln}\n" for ln in detail.splitlines()[-15:])
    state_now = state.case_state(seed_id)
    return text + f"# state: {state_now}\n"


def accept(state: State, seed_id: str) -> Path:
    _require_state(state, seed_id, ("review", "rejected"))
    return write_seed_case(state, state.seed(seed_id), "accepted-in-review", "accepted")


def reject(state: State, seed_id: str) -> None:
    _require_state(state, seed_id, ("review", "written", "accepted"))
    case_path(state, seed_id).unlink(missing_ok=True)
    state.set_case(seed_id, "rejected", note="rejected in review")


def _require_state(state: State, seed_id: str, allowed: tuple[str, ...]) -> None:
    current = state.case_state(seed_id)
    if current not in allowed:
        raise UsageError(f"case {seed_id!r} is {current or 'not a synthesized case'}; "
                         f"only a case that is {' or '.join(allowed)} can be changed so")
