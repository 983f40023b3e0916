"""One try of the agent: ask, carry out the calls, answer them, until it submits or a budget
runs out. Everything is kept in the transcript, one entry per reply with its calls."""

from __future__ import annotations

import json
import posixpath
import re
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from codetrial.agent import textcalls
from codetrial.agent.budget import Budget, Spent
from codetrial.agent.shell import Ran, Toolchain, run_command
from codetrial.agent.tools import (
    TOOLS,
    Call,
    checked,
    edit_file,
    list_files,
    read_file,
    workspace_path,
    write_file,
)
from codetrial.agent.tried import command_tried, path_tried
from codetrial.models.base import Reply, ToolCall
from codetrial.protocols.base import SampleContext, ask

NO_CALL = ("Your reply called no tool. Call one of the tools ({names}); call submit when the "
           "files are ready to be tested.")
SKIPPED = "not run: the try's step budget ran out"
AFTER_SUBMIT = "not run: it came after submit"
EMPTY_REPLY = "(no reply)"
_API_NAME = re.compile(r"[^A-Za-z0-9_-]")


@dataclass
class Workspace:
    """The agent's files and how its commands run."""

    files: dict[str, str]
    toolchain: Toolchain
    hidden_names: list[str]


@dataclass
class TryLog:
    """What one try did, for the attempt's details and the figures."""

    transcript: list[dict[str, Any]] = field(default_factory=list)
    tool_calls: Counter[str] = field(default_factory=Counter)
    malformed_calls: int = 0
    failed_commands: int = 0
    tool_seconds: float = 0.0
    tried: list[str] = field(default_factory=list)
    ended_by: str = ""

    def details(self) -> dict[str, Any]:
        return {"transcript": self.transcript, "tool_calls": dict(self.tool_calls),
                "steps": sum(self.tool_calls.values()) + self.malformed_calls,
                "malformed_calls": self.malformed_calls, "failed_commands": self.failed_commands,
                "tool_seconds": self.tool_seconds, "ended_by": self.ended_by,
                **({"tried": self.tried} if self.tried else {})}


class Session:
    """A sample's conversation and workspace, kept across its tries."""

    def __init__(self, ctx: SampleContext, workspace: Workspace, budget: Budget,
                 messages: list[dict[str, Any]], native: bool, reference: list[Call]) -> None:
        self.ctx, self.ws, self.budget, self.native = ctx, workspace, budget, native
        self.messages = messages
        self.reference = reference  # the reference contender's calls, one per reply
        self.turns = 0
        self.initial = dict(workspace.files)  # what a try's graded changes are shown against

    async def attempt(self, spent: Spent, log: TryLog) -> list[Reply]:
        """Run the loop until submit or a budget; returns the replies (for the usage)."""
        replies: list[Reply] = []
        while not log.ended_by:
            log.ended_by = spent.exhausted() or ""
            if log.ended_by:
                break
            request = self.ctx.request(kind="chat", messages=list(self.messages),
                                       tools=TOOLS if self.native else None,
                                       stop=[] if self.native else list(textcalls.STOPS),
                                       reference=self._reference(len(replies)))
            reply, failed = await ask(self.ctx, request)
            if failed:
                log.ended_by = "infra_error"
                log.transcript.append({"error": failed.output})
                break
            replies.append(reply)
            spent.tokens += reply.usage.prompt_tokens + reply.usage.completion_tokens
            await self._turn(reply, len(replies), spent, log)
        return replies

    async def _turn(self, reply: Reply, step: int, spent: Spent, log: TryLog) -> None:
        calls = self._calls(reply, step)
        self.messages.append(self._assistant(reply, calls))
        entry: dict[str, Any] = {"reply": reply.text, "finish_reason": reply.finish_reason,
                                 "prompt_tokens": reply.usage.prompt_tokens,
                                 "completion_tokens": reply.usage.completion_tokens,
                                 "model_seconds": reply.latency_seconds,
                                 "cached": reply.cached, "calls": []}
        log.transcript.append(entry)
        if reply.finish_reason == "context_window":
            log.ended_by = "context_window"
            return
        if not calls:
            log.malformed_calls += 1
            spent.steps += 1
            self.messages.append({"role": "user", "content": NO_CALL.format(
                names=", ".join(t["function"]["name"] for t in TOOLS))})
            return
        answers = []
        for call in calls:
            if spent.exhausted() == "steps" or log.ended_by:
                answers.append((call, AFTER_SUBMIT if log.ended_by else SKIPPED))
                continue
            spent.steps += 1
            answer = await self._carry_out(call, log)
            entry["calls"].append({**call.to_dict(), "answer": answer[0], "ok": answer[1],
                                   "seconds": answer[2]})
            answers.append((call, answer[0]))
        self._answer(answers)

    async def _carry_out(self, call: Call, log: TryLog) -> tuple[str, bool, float]:
        start = time.perf_counter()
        if call.problem:
            log.malformed_calls += 1
            return f"error: {call.problem}", False, 0.0
        log.tool_calls[call.name] += 1
        if call.name == "submit":
            log.ended_by = "submit"
            return "submitted: the hidden tests run now", True, 0.0
        text, ok = await self._tool(call, log)
        seconds = time.perf_counter() - start
        log.tool_seconds += seconds
        return text, ok, seconds

    def _hidden(self) -> list[str]:
        """The hidden tests' names, less those the agent gave files of its own (its tests)."""
        own = {posixpath.basename(p) for p in self.ws.files}
        return [n for n in self.ws.hidden_names if n not in own]

    async def _tool(self, call: Call, log: TryLog) -> tuple[str, bool]:
        args = call.arguments
        if call.name == "run":
            log.tried += command_tried(args["command"], self._hidden())
            ran = await self._run(args["command"])
            if ran.failed or ran.exit_code != 0:
                log.failed_commands += 1
            return ran.answer(self.budget.command_timeout), not ran.failed and ran.exit_code == 0
        raw = str(args.get("path", "."))
        path = workspace_path(raw)
        hidden = [] if call.name == "write_file" else self._hidden()  # writing one: not looking
        log.tried += path_tried(call.name, raw, path is None, hidden)
        if path is None:
            return f"error: {raw!r} is outside the exercise's folder", False
        files = self.ws.files
        if call.name == "read_file":
            return read_file(files, path)
        if call.name == "write_file":
            return write_file(files, path, args["content"])
        if call.name == "edit_file":
            return edit_file(files, path, args["search"], args["replace"])
        return list_files(files, path)

    async def _run(self, command: str) -> Ran:
        ran = await run_command(self.ctx.sandbox, self.ws.files, command, self.ws.toolchain,
                                self.budget.command_timeout)
        if ran.files is not None:
            self.ws.files = ran.files
        return ran

    def _calls(self, reply: Reply, step: int) -> list[Call]:
        self.turns += 1  # ids stay unique across the tries of one conversation
        if not self.native:
            return textcalls.parse(reply.text, self.turns)
        return [checked(c.name, c.arguments, c.id or f"call-{self.turns}-{i}")
                for i, c in enumerate(reply.tool_calls)]

    def _assistant(self, reply: Reply, calls: list[Call]) -> dict[str, Any]:
        """The reply as the conversation keeps it. APIs refuse an empty turn, a tool name
        outside [A-Za-z0-9_-] and arguments that are not JSON: a malformed call goes back
        named and shaped so that they accept it (the transcript keeps what the model sent)."""
        if not self.native or not calls:
            return {"role": "assistant", "content": reply.text.strip() and reply.text
                    or EMPTY_REPLY}
        raw = {c.id: c for c in reply.tool_calls}
        return {"role": "assistant", "content": reply.text or None, "tool_calls": [
            {"id": call.id, "type": "function", "function": {
                "name": _API_NAME.sub("_", call.name)[:64] or "unknown",
                "arguments": raw[call.id].arguments if call.id in raw and not call.problem
                else json.dumps(call.arguments)}} for call in calls]}

    def _answer(self, answers: list[tuple[Call, str]]) -> None:
        if self.native:
            self.messages += [{"role": "tool", "tool_call_id": call.id, "content": text}
                              for call, text in answers]
        else:
            self.messages.append({"role": "user",
                                  "content": textcalls.results_message(answers)})

    def _reference(self, index: int) -> Reply:
        call = self.reference[min(index, len(self.reference) - 1)]
        if self.native:
            return Reply(tool_calls=[ToolCall(call.name, json.dumps(call.arguments))])
        return Reply(text=textcalls.written(call))
