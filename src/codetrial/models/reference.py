"""The reference contender: replies with what the protocol says a perfect answer is."""

from __future__ import annotations

from codetrial.core.errors import InfraError
from codetrial.models.base import Model, Reply, Request
from codetrial.models.registry import ModelOptions, backend


class ReferenceModel(Model):
    name = "reference"
    supports_tools = True

    async def generate(self, request: Request) -> Reply:
        if request.reference is None:
            raise InfraError("this protocol offers no reference answer")
        return Reply(
            text=request.reference.text,
            tool_calls=list(request.reference.tool_calls),
            finish_reason="stop",
        )


@backend("reference")
def _create(rest: str, options: ModelOptions) -> Model:
    return ReferenceModel()
