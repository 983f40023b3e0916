"""Infill: the model fills a `<here>` hole in code it sees on both sides.

`fim` sends a raw completion prompt in the model family's FIM format (see fim_formats.py);
`fill-chat` asks a chat model for the missing code only. Both read the same suite hooks:

    infill_parts(task) -> (prefix, suffix)     code before and after the hole
    reference_infill(task) -> str              what a perfect fill is
    program_from_infill(task, fill) -> str     the program the grader runs

Options (from `-o KEY=VALUE`): `fim_format` (a name from fim_formats.FORMATS, else detected
from the model name) and `header`, a line put before the code (the Spark study found
`# Databricks notebook source` changes the scores a lot).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codetrial.core import Sample, Task, UsageError
from codetrial.models.base import Reply, Request
from codetrial.protocols.base import (
    Protocol,
    SampleContext,
    ask,
    attempt_from_reply,
    graded,
    protocol,
)
from codetrial.protocols.extract import fenced_blocks, truncate_at_stops
from codetrial.protocols.fim_formats import fim_format

if TYPE_CHECKING:
    from codetrial.suites.base import Suite

HOLE = "<here>"
HOOKS = ("infill_parts", "reference_infill", "program_from_infill")
FILL_REQUEST = (
    "The code below has a hole marked {hole}. Write the code that belongs in the hole so that "
    "the program does what its comments say. Reply with the missing code only: not the code "
    "around the hole, and no explanation."
)


def infill_suite(suite: Suite) -> Any:
    if not all(hasattr(suite, hook) for hook in HOOKS):
        raise UsageError(f"suite {suite.name!r} has no holes to fill: the fim and fill-chat "
                         "protocols need a suite of infill cases (yaml)")
    return suite


def with_header(prefix: str, header: str | None) -> str:
    return f"{header}\n{prefix}" if header else prefix


def fill_messages(prefix: str, suffix: str, hints: str = "") -> list[dict[str, str]]:
    """The chat request to fill a hole; `hints` (name, documentation) come from synthesis."""
    text = FILL_REQUEST.format(hole=HOLE)
    if hints:
        text += f"\n\n{hints}"
    return [{"role": "user", "content": f"{text}\n\n```\n{prefix}{HOLE}{suffix}```"}]


def extract_fill(reply: str, prefix: str, suffix: str) -> str:
    """The fill in a chat reply (its first fenced block, if any).

    Models often echo the code around the hole: when the hole's line (`result = <here>`)
    reappears, the fill is what stands where the hole was on it.
    """
    blocks = [body for _, body in fenced_blocks(reply)]
    text = "\n".join(ln.rstrip() for ln in (blocks[0] if blocks else reply).splitlines())
    before = prefix.rsplit("\n", 1)[-1].strip()
    after = suffix.split("\n", 1)[0].strip()
    if before and before in text:
        text = text.split(before, 1)[1]
        text = text.split(after, 1)[0] if after else text.split("\n", 1)[0]
    elif after and text.rstrip().endswith(after):
        text = text.rstrip()[: -len(after)]
    text = text.strip("\n")
    return text.strip().strip("`") if "\n" not in text else text


async def run_infill(task: Task, ctx: SampleContext, request: Request, fill_of: Any) -> Sample:
    """Ask, read the fill out of the reply with `fill_of`, grade the filled program."""
    suite = infill_suite(ctx.suite)
    reply, failed = await ask(ctx, request)
    if failed:
        return Sample(task.id, ctx.index, [failed])
    attempt = attempt_from_reply(1, request, reply)
    fill = fill_of(reply.text)
    attempt.details["fill"] = fill
    if fill.strip():
        attempt = await graded(ctx, task, attempt, suite.program_from_infill(task, fill))
    return Sample(task.id, ctx.index, [attempt])


def hole_of(task: Task, ctx: SampleContext) -> tuple[Any, str, str]:
    """The suite, the code before the hole (after the optional header line) and after it."""
    suite = infill_suite(ctx.suite)
    prefix, suffix = suite.infill_parts(task)
    return suite, with_header(prefix, ctx.options.get("header")), suffix


@protocol("fim")
class FimProtocol(Protocol):
    name = "fim"
    output_budget = 1024  # the middle of a file
    request_kind = "completion"

    def check(self, suite: Suite, options: dict[str, Any], model_name: str) -> None:
        infill_suite(suite)
        fim_format(options.get("fim_format"), model_name)

    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        suite, prefix, suffix = hole_of(task, ctx)
        fmt = fim_format(ctx.options.get("fim_format"), ctx.model.name)
        stops = fmt.stops(prefix, suffix)
        request = ctx.request(kind="completion", prompt=fmt.prompt(prefix, suffix), stop=stops,
                              reference=Reply(text=suite.reference_infill(task)))
        sample = await run_infill(task, ctx, request, lambda text: truncate_at_stops(text, stops))
        sample.details["fim_format"] = fmt.name
        return sample


@protocol("fill-chat")
class FillChatProtocol(Protocol):
    name = "fill-chat"
    output_budget = 2048

    def check(self, suite: Suite, options: dict[str, Any], model_name: str) -> None:
        infill_suite(suite)

    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        suite, prefix, suffix = hole_of(task, ctx)
        request = ctx.request(kind="chat", messages=fill_messages(prefix, suffix),
                              reference=Reply(text=suite.reference_infill(task)))
        return await run_infill(task, ctx, request,
                                lambda text: extract_fill(text, prefix, suffix))
