"""A seed: one documented example of one function, shaped as a case with a hole.

Every source (duckdb, spark, python doctest) turns its examples into the same shape: setup code,
a line with the `<here>` hole, the documented code that fills it, and a `capture` expression
that turns the result into comparable text. The filter runs `capture` to learn the expected
output; the case's test runs the same expression and compares. So a canonical solution that
passed the filter passes its test by construction.
"""

from __future__ import annotations

import ast
import builtins
import re
from dataclasses import asdict, dataclass, field
from typing import Any

from codetrial.synth.cases import Case, fill_hole, holds_data

INSTRUCTION_SLOT = "# <instruction>"
PLAIN_VIEW = """
import codetrial_plain as _plain
for _name in {names!r}:
    globals()[_name] = _plain.decode(_plain.encode(globals()[_name]))
"""


@dataclass(frozen=True)
class Draft:
    engine: str
    setup: str  # code before the instruction comment
    hole_line: str  # the line that holds <here>
    canonical: str  # documented code for the hole
    capture: str  # expression giving the output as JSON-able text or rows of text

    def context(self, instruction: str | None = None) -> str:
        """The code with its hole; no instruction given: a slot line shows where it goes."""
        comment = INSTRUCTION_SLOT + "\n" if instruction is None else comment_lines(instruction)
        return f"{self.setup}{comment}{self.hole_line}\n"

    def program(self, fill: str, instruction: str | None = None) -> str:
        return fill_hole(self.context(instruction), fill)

    def probe(self) -> str:
        """The canonical program, reporting its output to the harness. The test of a Python hole
        sees the code's values as plain values (codetrial_judge.check_names), so the probe
        captures those too: a value that is not plain data shows as a mismatch with the docs."""
        program = self.program(self.canonical)
        if not holds_data(self.hole_line):
            program += PLAIN_VIEW.format(names=captured_names(self.capture))
        return f"{program}\n__results__ = {self.capture}\n"

    def test(self, expected: Any) -> str:
        return f"got = {self.capture}\nassert got == {expected!r}, got\n"


@dataclass(frozen=True)
class Seed:
    id: str  # unique within a source, safe as a file name
    function: str  # the name under test (may be qualified: NormalDist.overlap)
    example: str  # the example as documented
    draft: Draft
    documented: str | None = None  # output shown in the docs, when they show one
    info: dict[str, Any] = field(default_factory=dict)  # description, type, stability, ...
    volatile: bool = False  # the library itself says results may change between calls

    @property
    def short_name(self) -> str:
        return self.function.rsplit(".", 1)[-1]

    def to_json(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> Seed:
        return cls(**{**data, "draft": Draft(**data["draft"])})

    def case(self, instruction: str, expected: Any, meta: dict[str, Any]) -> Case:
        return Case(self.function, self.draft.context(instruction), self.draft.canonical,
                    self.draft.test(expected), {"engine": self.draft.engine, **meta})


def captured_names(capture: str) -> list[str]:
    """The names a capture expression reads, builtins left out."""
    tree = ast.parse(capture, mode="eval")
    found = {node.id for node in ast.walk(tree) if isinstance(node, ast.Name)}
    return sorted(n for n in found if not hasattr(builtins, n))


def comment_lines(text: str) -> str:
    lines = [ln.strip() for ln in text.strip().splitlines() if ln.strip()]
    return "".join(f"# {ln}\n" for ln in lines)


def names_function(text: str, name: str) -> bool:
    """Whether text mentions the name: as a word for identifiers, anywhere for operators."""
    if re.fullmatch(r"\w+", name):
        return re.search(rf"(?<![\w]){re.escape(name)}(?![\w])", text, re.I) is not None
    return name in text


def slug(text: str) -> str:
    """A file-name-safe id; operators (`||`) become `op-` and their characters' names."""
    if re.fullmatch(r"[\w.]+", text):
        return text
    parts = re.findall(r"[\w.]+|.", text)
    return "op-" + "-".join(p if re.fullmatch(r"[\w.]+", p) else _SYMBOLS.get(p, f"u{ord(p):x}")
                            for p in parts)


_SYMBOLS = {"|": "bar", "&": "amp", "<": "lt", ">": "gt", "=": "eq", "!": "not", "+": "plus",
            "-": "minus", "*": "star", "/": "slash", "%": "pct", "^": "caret", "~": "tilde",
            "@": "at", "#": "hash", "?": "q", ":": "colon", "$": "dollar"}
