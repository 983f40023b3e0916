"""The agent protocol: the model works in the exercise's workspace with tools (run, read_file,
write_file, edit_file, list_files, submit) until it submits; the workspace is then graded as
an edit is (pristine copy, hidden tests). A failed try shows the tests' output and the loop
goes on, in the same conversation and workspace, as the edit loop does.

Tool calls go through the backend's own interface when it has one (OpenAI `tools`, Anthropic
`tool_use`), else as text (agent/textcalls.py); `-o tool_format=native|text` overrides.
"""

from __future__ import annotations

from typing import Any

from codetrial.agent import textcalls
from codetrial.agent.budget import Budget, Spent
from codetrial.agent.session import Session, TryLog, Workspace
from codetrial.agent.tools import Call
from codetrial.core import Attempt, Sample, Task, UsageError, Verdict
from codetrial.models.base import Reply, Request
from codetrial.protocols.base import Protocol, SampleContext, attempt_from_reply, protocol
from codetrial.protocols.edit import _accumulate, _test_counters
from codetrial.suites.base import Suite
from codetrial.suites.editing import EditSuite, clean_test_output

SYSTEM = (
    "You solve a programming exercise by working in its folder through tools. The folder holds "
    "the files to change, the instructions and the build files; the exercise's tests are "
    "hidden and run when you call submit. You may compile the code and run experiments and "
    "tests of your own with `run` (no network). Call submit when the files are ready.")
FIRST = (
    "Exercise: {task_id}\n\n{instructions}\n\nThe folder holds:\n{listing}\n\nChange {stubs} "
    "so that they solve the task, in {language} with its standard library only, keeping the "
    "names of existing functions and classes. Those files, and source files you add, are "
    "built with the hidden tests: leave no scratch program with a main of its own in the "
    "folder. Then call submit.")
RETRY = (
    "The hidden tests failed. Here is what they printed:\n\n```\n{output}\n```\n\nThe tests "
    "are correct: fix the files, then call submit again.")
CHECKS = {  # what the reference contender runs before it submits: a quick compile
    "python": "python3 -m py_compile {path}", "javascript": "node --check {path}",
    "cpp": "g++ -std=c++17 -fsyntax-only {path}", "go": "go vet ./...",
    "rust": "cargo build --offline --quiet",
    "java": "mkdir -p .tmp && javac -d .tmp $(find src/main/java -name '*.java')"}
TOOL_FORMATS = ("auto", "native", "text")


@protocol("agent")
class AgentProtocol(Protocol):
    name = "agent"
    output_budget = 16_384  # a whole file in a write_file call

    def check(self, suite: Suite, options: dict[str, Any], model_name: str) -> None:
        if not isinstance(suite, EditSuite):
            raise UsageError(f"suite {suite.name!r} has no workspace to work in: the agent "
                             "protocol needs an editing suite (exercism, humaneval-edit)")
        Budget.from_options(options)
        tries = options.get("tries", 1)
        if not str(tries).isdigit() or int(tries) < 1:
            raise UsageError(f"--tries {tries}: give a whole number, 1 or more")
        if str(options.get("tool_format", "auto")) not in TOOL_FORMATS:
            raise UsageError(f"--option tool_format={options['tool_format']}: give one of "
                             + ", ".join(TOOL_FORMATS))

    async def run(self, task: Task, ctx: SampleContext) -> Sample:
        suite = ctx.suite
        if not isinstance(suite, EditSuite):  # check() says so before a run starts
            raise TypeError(f"suite {suite.name} has no workspace")
        budget, tries = Budget.from_options(ctx.options), int(ctx.options.get("tries", 1))
        _refuse_unsafe(ctx)
        native = _native(ctx)
        files = suite.workspace_files(task)
        workspace = Workspace(files, suite.toolchain(task), suite.hidden_names(task))
        session = Session(ctx, workspace, budget, _opening(suite, task, files, native), native,
                          reference_calls(suite, task))
        sample = Sample(task.id, ctx.index, details={
            "protocol": "agent", "tries": tries, "tool_format": "native" if native else "text",
            "edit_format": f"agent ({'native' if native else 'text'} tool calls)",
            **budget.settings()})
        for try_index in range(1, tries + 1):
            attempt = await _try(suite, task, session, try_index, budget)
            sample.attempts.append(attempt)
            if attempt.verdict in (Verdict.PASSED, Verdict.INFRA_ERROR) or try_index == tries:
                break
            output = clean_test_output(attempt.output)
            session.messages.append({"role": "user", "content": RETRY.format(output=output)})
        return sample


async def _try(suite: EditSuite, task: Task, session: Session, try_index: int,
               budget: Budget) -> Attempt:
    log = TryLog()
    sent = len(session.messages) - (2 if try_index == 1 else 1)  # the opening, or the retry
    replies = await session.attempt(Spent(budget), log)
    attempt = Attempt(try_index, Verdict.NOT_GENERATED, details={
        "replies": [], "cached_usd": 0.0, "truncated_replies": 0})
    for reply in replies:
        _accumulate(attempt, _part(try_index, reply), reply)
        attempt.details["truncated_replies"] += reply.finish_reason == "length"
    attempt.details.pop("replies")  # the transcript holds them, with their calls
    attempt.details.update(log.details())
    attempt.request = {"kind": "chat", "tool_format": "native" if session.native else "text",
                       "messages": session.messages[sent:sent + (2 if try_index == 1 else 1)]}
    if log.ended_by == "infra_error":
        attempt.verdict = Verdict.INFRA_ERROR
        attempt.output = str(log.transcript[-1].get("error", ""))
        return attempt
    files = session.ws.files
    grade = await suite.grade_files(task, files, session.ctx.sandbox)
    attempt.verdict, attempt.tests, attempt.output = grade.verdict, grade.tests, grade.output
    attempt.test_seconds = grade.seconds
    changed = {p: t for p, t in files.items() if session.initial.get(p) != t}
    attempt.code = "\n".join(f"# {p}\n{t}" for p, t in sorted(changed.items()))
    tried = log.tried + list(grade.details.get("tried") or [])
    attempt.details.update(grade.details)
    if tried:
        attempt.details["tried"] = tried
    attempt.details["unchanged"] = not changed and try_index == 1
    attempt.details.update(_test_counters(grade.output, grade.verdict))
    return attempt


def _part(try_index: int, reply: Reply) -> Attempt:
    return attempt_from_reply(try_index, Request(kind="chat"), reply)


def _refuse_unsafe(ctx: SampleContext) -> None:
    """An agent has a shell: where the answer keys cannot be masked (the process mode), it
    could read them; and Anthropic's thinking blocks are not sent back yet, which the API
    requires within a tool loop."""
    unmasked = getattr(ctx.sandbox, "unmasked", [])
    if getattr(ctx.sandbox, "mode", "bubblewrap") != "bubblewrap" and unmasked:
        raise UsageError("the agent protocol needs the bubblewrap sandbox: in the process "
                         "mode its shell could read " + ", ".join(unmasked[:3]))
    if ctx.sampling.thinking_budget is not None:
        raise UsageError("--thinking-budget does not work with --protocol agent yet (the "
                         "thinking blocks are not sent back with the tool results)")


def _native(ctx: SampleContext) -> bool:
    wanted = str(ctx.options.get("tool_format", "auto"))
    if wanted == "auto":
        return bool(ctx.model.supports_tools)
    return wanted == "native"


def _opening(suite: EditSuite, task: Task, files: dict[str, str], native: bool
             ) -> list[dict[str, Any]]:
    system = SYSTEM if native else f"{SYSTEM}\n\n{textcalls.instructions()}"
    language = suite.prompt_language(task)[0]
    listing = "\n".join(f"- {p}" for p in sorted(files))
    stubs = ", ".join(suite.edit_files(task))
    first = FIRST.format(task_id=task.id, instructions=suite.instructions(task),
                         listing=listing, language=language, stubs=stubs)
    return [{"role": "system", "content": system}, {"role": "user", "content": first}]


def reference_calls(suite: EditSuite, task: Task) -> list[Call]:
    """A perfect agent's calls: look, read the stub, write the reference, compile, submit."""
    reference = suite.reference_files(task)
    stub = next(iter(suite.edit_files(task)))
    language = str(task.data.get("language", "python"))
    check = CHECKS.get(language, "ls -R").format(path=next(iter(reference), stub))
    return [Call("list_files", {"path": "."}), Call("read_file", {"path": stub}),
            *(Call("write_file", {"path": p, "content": t}) for p, t in reference.items()),
            Call("run", {"command": check}), Call("submit", {})]
