"""The YAML case format: what synthesis writes and what the `yaml` suite reads.

One file per case with `name` (the function under test), `context` (code with one `<here>`
hole and the instruction as a comment), `canonical_solution` (what fills the hole), `test`
(run after the completed context; apart from it when the hole holds Python, see
synth/execute.py) and `meta` (at least `engine`: python, duckdb or spark).
"""

from __future__ import annotations

import ast
import hashlib
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from codetrial.core import UsageError
from codetrial.synth.engines import ENGINES

HOLE = "<here>"
_OPEN_QUOTE = re.compile(r"""(?<![\w'"])([rR]?)(\"\"\"|'''|"|')$""")
TEXT_FIELDS = ("name", "context", "canonical_solution", "test")


@dataclass(frozen=True)
class Case:
    name: str
    context: str
    canonical_solution: str
    test: str
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def engine(self) -> str:
        return self.meta["engine"]

    def parts(self) -> tuple[str, str]:
        """The code before and after the hole."""
        prefix, suffix = self.context.split(HOLE)
        return prefix, suffix

    def filled(self, fill: str) -> str:
        return fill_hole(self.context, fill)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "context": self.context,
                "canonical_solution": self.canonical_solution, "test": self.test,
                "meta": self.meta}


def fill_hole(context: str, fill: str) -> str:
    """The context with the fill in its hole.

    A hole that is the whole body of a string literal (`query = r'''<here>'''`) takes the
    fill as data: it is written as a literal of the same value, so a fill can never close
    the string and run Python of its own.
    """
    prefix, suffix = context.split(HOLE)
    quote = _literal_around(prefix, suffix)
    if quote is None:
        return prefix + fill + suffix
    raw, mark = quote.groups()
    value = fill if raw else _unescaped(fill, mark)
    return prefix[: quote.start()] + repr(value) + suffix[len(mark):]


def context_imports(context: str) -> dict[str, tuple[str, str | None]]:
    """The names the context binds by a top-level import: name -> (module, attribute), where an
    attribute of None means `import module` (which binds the top package). The judge of a Python
    hole imports these itself (codetrial_judge.check_names)."""
    try:
        tree = ast.parse(context.replace(HOLE, "..."))
    except SyntaxError:
        return {}
    found: dict[str, tuple[str, str | None]] = {}
    for node in tree.body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                if alias.asname is None:
                    found[alias.name.split(".")[0]] = (alias.name, None)
                else:  # `import a.b as c` binds what `from a import b` does
                    parent, _, last = alias.name.rpartition(".")
                    found[alias.asname] = (parent, last) if parent else (alias.name, None)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            for alias in node.names:
                if alias.name != "*":
                    found[alias.asname or alias.name] = (node.module, alias.name)
    return found


def holds_data(context: str) -> bool:
    """True when the hole is the whole body of a string literal: its fill is data, not code."""
    return _literal_around(*context.split(HOLE)) is not None


def _literal_around(prefix: str, suffix: str) -> re.Match[str] | None:
    quote = _OPEN_QUOTE.search(prefix)
    return quote if quote is not None and suffix.startswith(quote.group(2)) else None


def _unescaped(fill: str, mark: str) -> str:
    """The value a plain (non-raw) literal would give the fill; its text if it is not one."""
    try:
        value = ast.literal_eval(mark + fill + mark)
    except (SyntaxError, ValueError):
        return fill
    return value if isinstance(value, str) else fill


def digest(text: str) -> str:
    return "sha256:" + hashlib.sha256(text.encode()).hexdigest()


def hashes(case: Case) -> dict[str, str]:
    """Recorded in meta so an edited case can be told from the one synthesis checked."""
    return {key: digest(getattr(case, key)) for key in TEXT_FIELDS[1:]}


# ---------------------------------------------------------------- writing


class _Dumper(yaml.SafeDumper):
    """Multi-line text as `|` blocks, so a case reads like the code it holds."""


def _str(dumper: yaml.SafeDumper, value: str) -> yaml.ScalarNode:
    style = "|" if "\n" in value else None
    return dumper.represent_scalar("tag:yaml.org,2002:str", value, style=style)


_Dumper.add_representer(str, _str)


def dump_case(case: Case) -> str:
    return yaml.dump(case.to_dict(), Dumper=_Dumper, sort_keys=False, allow_unicode=True,
                     width=1000)


def write_case(case: Case, path: Path) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(dump_case(case))
    tmp.replace(path)


# ---------------------------------------------------------------- reading


def load_case(path: Path) -> Case:
    """A validated case; any problem is a UsageError naming the file and the field."""
    try:
        data = yaml.safe_load(path.read_text())
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" at line {mark.line + 1}" if mark else ""
        raise UsageError(f"{path}: not valid YAML{where}") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: cannot read it ({exc})") from None
    if not isinstance(data, dict):
        raise UsageError(f"{path}: expected a mapping with fields {', '.join(TEXT_FIELDS)}")
    for key in TEXT_FIELDS:
        _require(path, key, data.get(key), str)
    meta = _require(path, "meta", data.get("meta"), dict)
    engine = _require(path, "meta.engine", meta.get("engine"), str)
    if engine not in ENGINES:
        raise UsageError(f"{path}: field 'meta.engine' must be one of {', '.join(ENGINES)}")
    if data["context"].count(HOLE) != 1:
        raise UsageError(f"{path}: field 'context' must hold the {HOLE} hole exactly once")
    return Case(data["name"], data["context"], data["canonical_solution"], data["test"], meta)


def _require(path: Path, key: str, value: Any, kind: type) -> Any:
    if value is None:
        raise UsageError(f"{path}: missing field '{key}'")
    if not isinstance(value, kind):
        raise UsageError(f"{path}: field '{key}' must be a {_KIND_NAMES[kind]}")
    return value


_KIND_NAMES = {str: "string", dict: "mapping"}


def case_files(directory: Path) -> list[Path]:
    if not directory.is_dir():
        raise UsageError(f"{directory}: no such directory of YAML cases")
    return sorted(p for p in directory.iterdir() if p.suffix in (".yaml", ".yml"))
