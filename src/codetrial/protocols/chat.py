"""Chat code generation: an instruction in, code extracted from the reply's fenced block."""

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
from codetrial.protocols.extract import extract_code


@protocol("chat")
class ChatProtocol(Protocol):
    name = "chat"

    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        suite = ctx.suite
        reference = f"```python\n{suite.reference_code(task)}```\n"
        request = ctx.request(kind="chat", messages=suite.chat_messages(task),
                              reference=Reply(text=reference))
        reply, failed = await ask(ctx, request)
        if failed:
            return Sample(task.id, ctx.index, [failed])
        attempt = attempt_from_reply(1, request, reply)
        code = extract_code(reply.text, task.data.get("entry_point"))
        if code is not None:
            attempt = await graded(ctx, task, attempt, suite.program_from_code(task, code))
        return Sample(task.id, ctx.index, [attempt])
