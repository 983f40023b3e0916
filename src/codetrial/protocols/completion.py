"""Raw completion: the model continues the task's code prompt; we cut at the stop sequences."""

from __future__ import annotations

from codetrial.core import Sample, Task
from codetrial.models.base import Reply
from codetrial.protocols.base import (
    Protocol,
    SampleContext,
    ask,
    attempt_from_reply,
    graded,
    protocol,
)
from codetrial.protocols.extract import truncate_at_stops

# Where a function body ends in a completion (as in the Codex paper).
STOPS = ["\ndef ", "\nclass ", "\nif __name__", "\nprint(", "\n#", "\nassert "]


@protocol("completion")
class CompletionProtocol(Protocol):
    name = "completion"
    output_budget = 1024  # a function body
    request_kind = "completion"

    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        suite = ctx.suite
        request = ctx.request(
            kind="completion", prompt=suite.completion_prompt(task), stop=STOPS,
            reference=Reply(text=suite.reference_completion(task)),
        )
        reply, failed = await ask(ctx, request)
        if failed:
            return Sample(task.id, ctx.index, [failed])
        attempt = attempt_from_reply(1, request, reply)
        completion = truncate_at_stops(reply.text, STOPS)
        if completion.strip():
            program = suite.program_from_completion(task, completion)
            attempt = await graded(ctx, task, attempt, program)
        return Sample(task.id, ctx.index, [attempt])
