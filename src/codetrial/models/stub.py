"""The stub contender: replies with the exercise's files unchanged (in the `whole` format), so a
run with it is the suite's free-pass rate: the exercises whose stubs already pass."""

from __future__ import annotations

import re

from codetrial.core.errors import InfraError
from codetrial.models.base import Model, Reply, Request
from codetrial.models.registry import ModelOptions, backend

FILES_HEADING = "\n\nThe files:\n\n"  # how protocols/edit.first_message introduces them
_BLOCK = re.compile(r"^(?P<path>[^\n`]+)\n```[^\n]*\n(?P<body>.*?)```$", re.S | re.M)


def files_shown(text: str) -> str:
    """The path + fenced block of every file the first message shows, as it showed them."""
    if FILES_HEADING not in text:
        return ""
    section = text.rsplit(FILES_HEADING, 1)[1]
    return "\n".join(m.group(0) + "\n" for m in _BLOCK.finditer(section))


class StubModel(Model):
    name = "stub"

    async def generate(self, request: Request) -> Reply:
        first = next((m for m in request.messages or [] if m.get("role") == "user"), None)
        reply = files_shown(str(first.get("content", ""))) if first else ""
        if not reply:
            raise InfraError("the stub contender answers only code-editing prompts (the edit "
                             "protocol, --edit-format whole)")
        return Reply(text=reply, finish_reason="stop")


@backend("stub")
def _create(rest: str, options: ModelOptions) -> Model:
    return StubModel()
