"""Non-model contenders as model specs: compiler:fastjsonschema, library:jsonschema(-rs).

They answer the spec-to-code prompt with generated or delegating code, so they are graded by
the same suite, in the same tables, as the models they are compared with.
"""

from __future__ import annotations

from codetrial.core import InfraError
from codetrial.models.base import Model, Reply, Request
from codetrial.models.registry import ModelOptions, backend


class ContenderModel(Model):
    def __init__(self, spec: str) -> None:
        from codetrial.suites.jsonschema.contenders import check_contender

        self.name = check_contender(spec)

    async def generate(self, request: Request) -> Reply:
        from codetrial.suites.jsonschema.prompt import contender_reply

        try:
            return Reply(text=contender_reply(self.name, request.messages or []))
        except (ValueError, StopIteration) as exc:
            raise InfraError(f"{self.name} answers only jsonschema prompts: {exc}") from exc


@backend("compiler")
def _compiler(rest: str, options: ModelOptions) -> Model:
    return ContenderModel(f"compiler:{rest}")


@backend("library")
def _library(rest: str, options: ModelOptions) -> Model:
    return ContenderModel(f"library:{rest}")
