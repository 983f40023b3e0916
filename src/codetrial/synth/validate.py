"""Validation stage: can a model rebuild the code from the instruction (plus hints)?

A model sees the case as a test-taker would, plus the function's name and definition as
hints, and fills the hole. Its program runs in the sandbox against the case's test: a pass
keeps the case; anything else sends it to the review queue, where a person decides whether
the instruction or the model is at fault.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from codetrial.core import InfraError
from codetrial.models import Model, Reply, Request
from codetrial.protocols.infill import extract_fill, fill_messages
from codetrial.suites.grading import failure_text
from codetrial.synth.cases import HOLE, fill_hole
from codetrial.synth.execute import run_with_test
from codetrial.synth.seeds import Seed
from codetrial.synth.state import State

if TYPE_CHECKING:
    from codetrial.sandbox import Sandbox
    from codetrial.synth.sources.base import Source

STAGE = "validation"


@dataclass(frozen=True)
class Validation:
    passed: bool
    fill: str
    detail: str


def validation_request(source: Source, seed: Seed, instruction: str) -> Request:
    prefix, suffix = seed.draft.context(instruction).split(HOLE)
    return Request(kind="chat", messages=fill_messages(prefix, suffix, source.hints(seed)),
                   temperature=0.0, max_tokens=160, reference=Reply(text=seed.draft.canonical))


async def validate(state: State, sandbox: Sandbox, model: Model, source: Source, seed: Seed,
                   instruction: str, expected: Any) -> Validation:
    """Reuse the recorded validation of an earlier run, else ask once and run the answer."""
    done = state.steps(seed.id, STAGE)
    if done:
        return Validation(done[0]["verdict"] == "passed", **done[0]["result"])
    request = validation_request(source, seed, instruction)
    reply = await model.generate(request)
    prefix, suffix = seed.draft.context(instruction).split(HOLE)
    fill = extract_fill(reply.text, prefix, suffix)
    context = seed.draft.context(instruction)
    outcome = await run_with_test(sandbox, source.runtime, fill_hole(context, fill),
                                  seed.draft.test(expected), context=context)
    if outcome.status == "sandbox_error":  # the harness's fault: nothing recorded, resumable
        raise InfraError(f"sandbox failed validating {seed.id}: {outcome.detail}")
    passed = outcome.status == "ok"
    detail = "" if passed else f"{outcome.status}: {failure_text(outcome, 1500)}"
    state.record_step(seed.id, STAGE, 0, model.name, request.cache_key_fields(), reply.text,
                      {"fill": fill, "detail": detail}, "passed" if passed else "failed")
    return Validation(passed, fill, detail)
