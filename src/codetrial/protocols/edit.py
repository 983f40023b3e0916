"""The edit loop: instructions and stub files in, edits out, tests run, output fed back.

Try 1 sends the instructions and the files; when an edit cannot be applied the error goes
back to the model (at most `MAX_REFLECTIONS` times a try); when tests fail the next try sends
the cleaned test output, in the same conversation.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any

from codetrial.core import Attempt, Sample, Task, UsageError, Verdict
from codetrial.editformats import EditFormat, MalformedReply, get_format
from codetrial.editformats import reflection_message as apply_error_message
from codetrial.editformats.lazy import lazy_comments
from codetrial.editformats.text import language_for
from codetrial.models.base import Reply
from codetrial.protocols.base import Protocol, SampleContext, ask, attempt_from_reply, protocol
from codetrial.suites.base import Suite
from codetrial.suites.editing import EditSuite, clean_test_output

MAX_REFLECTIONS = 3
FIRST_REQUEST = (
    "Change the files above so that they solve the task. Keep the names of existing functions "
    "and classes, and use only the {language} standard library."
)
MALFORMED_RETRY = (
    "Your edits could not be applied, so the tests were not run. Try again: send edits that "
    "apply to the files as they are now, exactly in the format the first message described."
)
RETRY_REQUEST = (
    "The tests are correct, so fix the code in the files so that they pass. "
    "Here is what the tests printed:\n\n```\n{output}\n```"
)


def first_message(instructions: str, files: dict[str, str], language: str = "Python",
                  fence: str = "python") -> str:
    """Names the exercise's language; each file's fence is tagged by its extension."""
    shown = "\n\n".join(f"{path}\n```{language_for(path) or fence}\n{text}```"
                         for path, text in files.items())
    request = FIRST_REQUEST.format(language=language)
    return f"{instructions}\n\nThe files:\n\n{shown}\n\n{request}"


@dataclass
class Conversation:
    """The chat so far and the files as the model's edits left them."""

    fmt: EditFormat
    files: dict[str, str]
    messages: list[dict[str, Any]] = field(default_factory=list)

    def add_reply(self, reply: Reply) -> None:
        calls = [c.to_dict() for c in reply.tool_calls]
        self.messages.append({"role": "assistant",
                              "content": reply.text or json.dumps(calls)})

    def add_user(self, text: str) -> None:
        self.messages.append({"role": "user", "content": text})


@protocol("edit")
class EditProtocol(Protocol):
    name = "edit"
    output_budget = 16_384  # a whole file of a few hundred lines, several times over

    def check(self, suite: Suite, options: dict[str, Any], model_name: str) -> None:
        if not isinstance(suite, EditSuite):
            raise UsageError(f"suite {suite.name!r} has no stub files to edit: the edit protocol "
                             "needs an editing suite (exercism, humaneval-edit)")
        get_format(str(options.get("edit_format", "whole")))
        tries = options.get("tries", 2)
        if not str(tries).isdigit() or int(tries) < 1:
            raise UsageError(f"--tries {tries}: give a whole number, 1 or more")

    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        suite = ctx.suite
        if not isinstance(suite, EditSuite):  # check() says so before a run starts
            raise TypeError(f"suite {suite.name} has no stub files to edit")
        fmt = get_format(str(ctx.options.get("edit_format", "whole")))
        tries = int(ctx.options.get("tries", 2))
        conv = Conversation(fmt, suite.edit_files(task))
        conv.messages = [{"role": "system", "content": fmt.system_prompt()}]
        conv.add_user(first_message(suite.instructions(task), conv.files,
                                    *suite.prompt_language(task)))
        sample = Sample(task.id, ctx.index, details={"edit_format": fmt.name, "tries": tries})
        for try_index in range(1, tries + 1):
            attempt = await self._try(task, ctx, conv, try_index)
            sample.attempts.append(attempt)
            if attempt.verdict in (Verdict.PASSED, Verdict.INFRA_ERROR) or try_index == tries:
                break
            if attempt.verdict == Verdict.MALFORMED:
                conv.add_user(MALFORMED_RETRY)
            else:
                conv.add_user(RETRY_REQUEST.format(output=clean_test_output(attempt.output)))
        return sample

    async def _try(self, task: Task, ctx: SampleContext, conv: Conversation,
                   try_index: int) -> Attempt:
        attempt = await self._edit(task, ctx, conv, try_index)
        if attempt.verdict != Verdict.NOT_GENERATED:
            return attempt  # infra error, or malformed after every reflection
        suite: EditSuite = ctx.suite  # type: ignore[assignment]
        grade = await suite.grade_files(task, conv.files, ctx.sandbox)
        attempt.verdict, attempt.tests, attempt.output = grade.verdict, grade.tests, grade.output
        attempt.test_seconds = grade.seconds
        attempt.code = "\n".join(f"# {p}\n{text}" for p, text in conv.files.items())
        attempt.details.update(grade.details)  # e.g. what the code tried ("tried")
        attempt.details["unchanged"] = conv.files == suite.edit_files(task)  # a free pass?
        attempt.details.update(_test_counters(grade.output, grade.verdict))
        return attempt

    async def _edit(self, task: Task, ctx: SampleContext, conv: Conversation,
                    try_index: int) -> Attempt:
        """Ask until the edits apply or the reflections run out; the model side of one try."""
        suite: EditSuite = ctx.suite  # type: ignore[assignment]
        total = Attempt(try_index, Verdict.NOT_GENERATED, details={
            "malformed_replies": 0, "lazy_comments": 0, "exhausted_context_windows": 0,
            "truncated_replies": 0, "replies": [], "applied": [], "cached_usd": 0.0})
        use_tools = conv.fmt.uses_tools and ctx.model.supports_tools
        for _ in range(MAX_REFLECTIONS + 1):
            target = suite.reference_files(task)
            text, calls = conv.fmt.reference_reply(conv.files, {**conv.files, **target})
            request = ctx.request(kind="chat", messages=list(conv.messages),
                                  tools=conv.fmt.tools() if use_tools else None,
                                  reference=Reply(text=text, tool_calls=calls))
            reply, failed = await ask(ctx, request)
            if failed:
                failed.try_index = try_index
                return failed
            _accumulate(total, attempt_from_reply(try_index, request, reply), reply)
            conv.add_reply(reply)
            if reply.finish_reason == "length":  # cut off by the output budget (max_tokens)
                total.details["truncated_replies"] += 1
            if reply.finish_reason == "context_window":
                total.details["exhausted_context_windows"] += 1
                total.verdict = Verdict.MALFORMED
                return total
            problem = self._apply(conv, reply, total)
            if problem is None:
                return total
            total.details["malformed_replies"] += 1
            conv.add_user(problem)
        total.verdict = Verdict.MALFORMED
        return total

    @staticmethod
    def _apply(conv: Conversation, reply: Reply, total: Attempt) -> str | None:
        """Apply the reply's edits; return the message for the model if they did not apply."""
        try:
            edits = conv.fmt.parse(reply.text, reply.tool_calls, list(conv.files))
        except MalformedReply as exc:
            return (f"Your reply could not be used: {exc}\n"
                    "Send the edits again, exactly in the format the first message described.")
        total.details["lazy_comments"] += len(lazy_comments(edits, conv.files))
        result = conv.fmt.apply(edits, conv.files)
        conv.files = dict(result.files)  # with the files it created: the grader picks
        total.details["applied"].extend(result.applied)
        return None if result.ok else apply_error_message(result, conv.files)


def _accumulate(total: Attempt, part: Attempt, reply: Reply) -> None:
    total.request = part.request
    total.reply = (total.reply + "\n\n" if total.reply else "") + reply.text
    total.model_seconds += part.model_seconds
    known = total.cost_known and part.cost_known  # one unpriced reply: the try's cost unknown
    total.cost_usd = (total.cost_usd or 0.0) + (part.cost_usd or 0.0) if known else None
    if part.details.get("cached"):
        total.details["cached_usd"] += part.cost_usd or 0.0
    total.prompt_tokens += part.prompt_tokens
    total.completion_tokens += part.completion_tokens
    total.reasoning_tokens += part.reasoning_tokens
    total.details["replies"].append({"text": reply.text, **part.details})


def _test_counters(output: str, verdict: Verdict) -> dict[str, int]:
    return {
        "syntax_errors": int("SyntaxError" in output),
        "indentation_errors": int("IndentationError" in output),
        "test_timeouts": int(verdict == Verdict.TIMEOUT),
    }
