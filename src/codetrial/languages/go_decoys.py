"""Go tests under per-run names, beside decoys that honest code always fails.

The model's code runs in the test binary and can learn at run time what its tests are called
(its own symbols, `-test.list`, the call stack), so it could print a complete, consistent set of
passes and exit. Each run therefore renames every test to a random name, and adds for each a
decoy of the same shape: the same body, then a failure at its very end. Both run their body in
a closure (`func() { BODY }()`), so the call stack, the arguments the solution sees and the
names cannot tell them apart. A decoy reported as passed means the results were written by the
code: the sample fails as forged. Decoys never reach the model: their results are dropped.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field

_HEADER = re.compile(r"^func\s+(Test\w*)\s*\(\s*(\w+)\s+\*testing\.T\s*\)\s*\{", re.M)
_RANDOM = random.SystemRandom()


@dataclass
class Disguise:
    files: dict[str, str] = field(default_factory=dict)  # the test sources as built
    names: dict[str, str] = field(default_factory=dict)  # run name -> the test's own name
    decoys: dict[str, str] = field(default_factory=dict)  # decoy's run name -> the test copied


def run_name(taken: set[str]) -> str:
    while (name := f"Test{_RANDOM.getrandbits(48):012X}") in taken:
        pass
    taken.add(name)
    return name


def disguise(tests: dict[str, str]) -> Disguise:
    """Rename every `func TestX(t *testing.T)` of the test files and add its decoy."""
    out = Disguise()
    taken: set[str] = set()
    renames: dict[str, str] = {}
    for path, text in tests.items():
        if not path.endswith("_test.go"):
            continue
        pieces, last = [], 0
        for match in _HEADER.finditer(text):
            end = body_end(text, match.end() - 1)
            if end is None or match.start() < last:
                continue  # not Go as expected: left as it is
            name, param = match.group(1), match.group(2)
            body = text[match.end():end]
            real, decoy = run_name(taken), run_name(taken)
            renames[name] = real
            out.names[real], out.decoys[decoy] = name, name
            functions = [_wrapped(real, param, body, ""), _wrapped(decoy, param, body,
                                                                   f"\t{param}.Fail()\n")]
            _RANDOM.shuffle(functions)
            pieces += [text[last:match.start()], "\n\n".join(functions)]
            last = end + 1
        out.files[path] = "".join(pieces) + text[last:]
    for path, text in out.files.items():  # tests that call each other by name
        for name, real in renames.items():
            text = re.sub(rf"\b{re.escape(name)}\b(?=\s*\()", real, text)
        out.files[path] = text
    return out


def _wrapped(name: str, param: str, body: str, tail: str) -> str:
    return f"func {name}({param} *testing.T) {{\n\tfunc() {{{body}}}()\n{tail}}}"


def body_end(text: str, start: int) -> int | None:
    """The index of the `}` closing the `{` at `start`, past strings, runes and comments."""
    depth, i = 0, start
    while i < len(text):
        char = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            if i < 0:
                return None
        elif text.startswith("/*", i):
            i = text.find("*/", i + 2)
            if i < 0:
                return None
            i += 1
        elif char in "\"'":
            i = _quoted_end(text, i, char)
            if i is None:
                return None
        elif char == "`":
            i = text.find("`", i + 1)
            if i < 0:
                return None
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth == 0:
                return i
        i += 1
    return None


def _quoted_end(text: str, i: int, quote: str) -> int | None:
    i += 1
    while i < len(text) and text[i] != quote:
        if text[i] == "\n":
            return None
        i += 2 if text[i] == "\\" else 1
    return i if i < len(text) else None
