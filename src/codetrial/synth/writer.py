"""Turn a seed that made it through every stage into its YAML case file, with provenance."""

from __future__ import annotations

import importlib.metadata
from dataclasses import replace
from pathlib import Path
from typing import Any

from codetrial.core import UsageError
from codetrial.synth.cases import Case, hashes, write_case
from codetrial.synth.filtering import Filtered
from codetrial.synth.instruct import STAGE as INSTRUCTION
from codetrial.synth.state import State
from codetrial.synth.validate import STAGE as VALIDATION


def case_path(state: State, seed_id: str) -> Path:
    return state.directory / f"{seed_id}.yaml"


def build_case(state: State, filtered: Filtered, verdict: str) -> Case:
    """The case as recorded in the state: its accepted instruction, expected output, steps."""
    seed = filtered.seed
    instruction = next((s for s in state.steps(seed.id, INSTRUCTION) if s["verdict"] == "ok"),
                       None)
    if instruction is None:
        raise UsageError(f"case {seed.id!r} has no accepted instruction")
    validation = state.steps(seed.id, VALIDATION)
    environment = state.get("environment")
    meta: dict[str, Any] = {
        "source": environment["source"],
        "versions": {**environment["versions"],
                     "codetrial": importlib.metadata.version("codetrial")},
        "settings": environment["settings"],
        "seed": {"id": seed.id, "function": seed.function, "example": seed.example,
                 "documented_output": seed.documented, "output": filtered.output,
                 **{k: v for k, v in seed.info.items() if k != "description"}},
        "instruction": {"model": instruction["model"], "try": instruction["try"]},
        "validation": {"model": validation[0]["model"] if validation else None,
                       "verdict": verdict},
    }
    case = seed.case(instruction["result"], filtered.output, meta)
    return replace(case, meta={**case.meta, "hashes": hashes(case)})


def write_seed_case(state: State, filtered: Filtered, verdict: str, case_state: str) -> Path:
    path = case_path(state, filtered.seed.id)
    write_case(build_case(state, filtered, verdict), path)
    state.set_case(filtered.seed.id, case_state, path.name, verdict)
    return path
