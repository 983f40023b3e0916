"""Instruction stage: the author model describes the task in a comment, without the answer.

The comment must say what data the code starts from and what it must produce, in enough
detail to write the code again, and must not name the function under test: an instruction
that names it is rejected and the author tries again (a new sample), up to `tries` times.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any

from codetrial.models import Model, Request
from codetrial.protocols.extract import fenced_blocks
from codetrial.synth.seeds import Seed, names_function
from codetrial.synth.state import State

STAGE = "instruction"
MAX_CHARS = 500
_INTRO = re.compile(r"^\s*(the\s+)?task(\s+statement)?(\s+is)?\s*:\s*", re.I)
_FENCED = re.compile(r"^[ \t]*(`{3,}|~{3,}).*?(^[ \t]*\1[ \t]*$|\Z)", re.M | re.S)
AUTHOR_REQUEST = """\
Here is some {language} code and what it computes.

```
{program}```

Its result: {output}
Documentation of the function it calls: {description}

Write the task statement for this code: one or two sentences that start with a verb and say \
what data the code starts from and exactly what result it must produce (values, columns, \
formats), so that a programmer could write the code again. Never write the name of the \
function. For example, for `round(2.567, 1)` a good statement is: Round the number 2.567 to \
one decimal place.
Reply with the task statement only."""
LANGUAGES = {"duckdb": "Python and DuckDB SQL", "spark": "Spark SQL", "python": "Python"}


@dataclass(frozen=True)
class Instruction:
    text: str | None  # None: every try was rejected
    verdict: str


def author_request(seed: Seed, output: Any, try_index: int) -> Request:
    description = seed.info.get("description") or seed.info.get("usage") or "(none)"
    content = AUTHOR_REQUEST.format(
        language=LANGUAGES[seed.draft.engine],
        output=json.dumps(output) if not isinstance(output, str) else output,
        description=description.strip()[:1500],
        program=seed.draft.program(seed.draft.canonical, instruction=""),
    )
    return Request(kind="chat", messages=[{"role": "user", "content": content}],
                   temperature=0.2, top_p=0.95, max_tokens=120, seed=0,
                   sample_index=try_index)


def clean_comment(reply: str) -> str:
    """The comment's text: the reply's first paragraph of prose, without comment markers."""
    prose = _FENCED.sub("\n\n", reply).strip()
    if not prose:  # the whole reply is one fenced comment
        prose = next((body for _, body in fenced_blocks(reply)), "").strip()
    paragraph = re.split(r"\n\s*\n", _INTRO.sub("", prose), maxsplit=1)[0]
    lines = [ln.strip().lstrip("#/-").strip() for ln in paragraph.splitlines()]
    return "\n".join(ln for ln in lines if ln and not ln.endswith(":"))


def judge_comment(text: str, seed: Seed) -> str:
    if not text:
        return "empty"
    if names_function(text, seed.short_name):
        return "names-function"
    if len(text) > MAX_CHARS:
        return "too-long"
    return "ok"


async def instruct(state: State, model: Model, seed: Seed, output: Any,
                   tries: int) -> Instruction:
    """Reuse an accepted instruction from an earlier run, else ask until one is accepted."""
    done = state.steps(seed.id, STAGE)
    for step in done:
        if step["verdict"] == "ok":
            return Instruction(step["result"], "ok")
    verdict = done[-1]["verdict"] if done else "not-asked"
    for try_index in range(len(done), tries):
        request = author_request(seed, output, try_index)
        reply = await model.generate(request)
        text = clean_comment(reply.text)
        verdict = judge_comment(text, seed)
        state.record_step(seed.id, STAGE, try_index, model.name, request.cache_key_fields(),
                          reply.text, text, verdict)
        if verdict == "ok":
            return Instruction(text, verdict)
    return Instruction(None, verdict)
