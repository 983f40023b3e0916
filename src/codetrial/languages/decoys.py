"""Tests under per-run names, beside decoys that honest code always fails.

The model's code runs in the test binary and can learn at run time what its tests are called
(its own symbols, `-test.list`/`--list`, the call stack, the framework's registry), so it could
print a complete, consistent set of passes and exit. Each run therefore renames every test to a
random name, and adds for each a decoy of the same shape: the same body, then a failure at its
very end. Both run their body in a closure (`func() { BODY }()`, `(|| { BODY })()`), so the call
stack, the arguments the solution sees and the names cannot tell them apart. A decoy reported
as passed means the code wrote the results: the sample fails as forged. Decoys never reach the
model: their results are dropped and it reads its tests' own names.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

from codetrial.languages.source_blocks import body_end, same_scope

_RANDOM = random.SystemRandom()


@dataclass
class Disguise:
    files: dict[str, str] = field(default_factory=dict)  # the test sources as built
    names: dict[str, str] = field(default_factory=dict)  # run name -> the test's own name
    decoys: dict[str, str] = field(default_factory=dict)  # decoy's run name -> the test copied


@dataclass(frozen=True)
class Style:
    """How one language declares a test and how its copies are written."""

    header: re.Pattern[str]  # group "name"; ends at the body's `{`
    write: Callable[[re.Match[str], str, str, bool], str]  # (header, run name, body, decoy)
    run_name: Callable[[], str]
    backticks: bool = False
    calls_by_name: bool = False  # tests may call each other (Go's TestX(t)): rename the calls
    decoy_allowed: Callable[[re.Match[str]], bool] = lambda _: True


def disguise(tests: dict[str, str], style: Style) -> Disguise:
    """Rename every test the files declare in `style` and add its decoy. The tests keep their
    order (some share state: go/robot-simulator's first test moves a package-level robot); each
    decoy goes after its test, at a random place among the later tests of the same scope, so
    neither the order nor the position tells it apart."""
    out = Disguise()
    taken: set[str] = set()
    renames: dict[str, str] = {}
    for path, text in tests.items():
        found = list(_tests(text, style))
        slots: list[list[str]] = [[] for _ in found]
        pieces, last = [], 0
        for index, (match, body, stop) in enumerate(found):
            name = match.group("name")
            real = renames[name] = _fresh(style, taken)
            out.names[real] = name
            if style.decoy_allowed(match):
                decoy = _fresh(style, taken)
                out.decoys[decoy] = name
                later = [k for k in range(index, len(found))
                         if same_scope(text, stop, found[k][2], style.backticks)]
                slots[_RANDOM.choice(later)].append(style.write(match, decoy, body, True))
        for index, (match, body, stop) in enumerate(found):
            real = renames[match.group("name")]
            pieces += [text[last:match.start()], "\n\n".join(
                [style.write(match, real, body, False), *slots[index]])]
            last = stop
        out.files[path] = "".join(pieces) + text[last:]
    for path, text in out.files.items() if style.calls_by_name else ():
        for name, real in renames.items():
            text = re.sub(rf"\b{re.escape(name)}\b(?=\s*\()", real, text)
        out.files[path] = text
    return out


def _tests(text: str, style: Style) -> Iterator[tuple[re.Match[str], str, int]]:
    """Each test: its header, its body, where it stops."""
    last = 0
    for match in style.header.finditer(text):
        end = body_end(text, match.end() - 1, style.backticks)
        if end is None or match.start() < last:
            continue  # not the source it expected: left as it is
        last = end + 1
        yield match, text[match.end():end], last


def _fresh(style: Style, taken: set[str]) -> str:
    while (name := style.run_name()) in taken:
        pass
    taken.add(name)
    return name


def random_hex() -> str:
    return f"{_RANDOM.getrandbits(48):012x}"


# ---------------------------------------------------------------- Go

def _go(match: re.Match[str], name: str, body: str, decoy: bool) -> str:
    param = match.group("param")
    tail = f"\t{param}.Fail()\n" if decoy else ""
    return f"func {name}({param} *testing.T) {{\n\tfunc() {{{body}}}()\n{tail}}}"


GO = Style(
    header=re.compile(r"^func\s+(?P<name>Test\w*)\s*\(\s*(?P<param>\w+)\s+\*testing\.T\s*\)\s*\{",
                      re.M),
    write=_go, run_name=lambda: "Test" + random_hex().upper(), backticks=True,
    calls_by_name=True)


# ---------------------------------------------------------------- Rust

def _rust(match: re.Match[str], name: str, body: str, decoy: bool) -> str:
    tail = '    panic!("");\n' if decoy else ""
    return f"{match.group('attrs')}fn {name}() {{\n    (|| {{{body}}})();\n{tail}}}"


RUST = Style(
    header=re.compile(r"(?P<attrs>#\[test\]\s*(?:#\[[^\]]*\]\s*)*)fn\s+(?P<name>\w+)\s*\(\s*\)"
                      r"\s*\{"),
    write=_rust, run_name=lambda: "t" + random_hex(),
    # a test that must panic passes as its decoy would: no decoy then
    decoy_allowed=lambda match: "should_panic" not in match.group("attrs"))


# ---------------------------------------------------------------- C++ (Catch2)

def _catch2(match: re.Match[str], name: str, body: str, decoy: bool) -> str:
    tail = '    FAIL("");\n' if decoy else ""
    return f'TEST_CASE("{name}"{match.group("tags") or ""}) {{\n    [&]() {{{body}}}();\n{tail}}}'


CATCH2 = Style(
    header=re.compile(r'\bTEST_CASE\s*\(\s*"(?P<name>(?:[^"\\\n]|\\.)*)"'
                      r'(?P<tags>\s*,\s*"(?:[^"\\\n]|\\.)*")?\s*\)\s*\{'),
    write=_catch2, run_name=lambda: "t" + random_hex())


# ---------------------------------------------------------------- Java (JUnit 5)

def _junit(match: re.Match[str], name: str, body: str, decoy: bool) -> str:
    # try/finally adds no frame: the stack of a decoy is that of its test
    tail = 'org.junit.jupiter.api.Assertions.fail("");' if decoy else ""
    return (f"{match.group('annos')}{match.group('mods')}void {name}() "
            f"{match.group('throws') or ''}{{\n        try {{{body}}} finally {{ {tail} }}\n    }}")


JUNIT = Style(
    header=re.compile(r"(?P<annos>@Test\b\s*(?:@\w+(?:\([^)]*\))?\s*)*)"
                      r"(?P<mods>(?:public\s+|protected\s+)?(?:final\s+)?)void\s+(?P<name>\w+)"
                      r"\s*\(\s*\)\s*(?P<throws>throws\s+[\w.,\s]+?)?\{"),
    write=_junit, run_name=lambda: "t" + random_hex())
