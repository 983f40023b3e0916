"""Which files of the suite a run uses, read and checked: draft, optional parts, omissions.

Each file is a list of schema groups `{description, schema, tests: [{description, data, valid}]}`.
A malformed file is a usage error that names the file and the field, never a crash mid-run.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codetrial.core import UsageError

DRAFTS = {"2020-12": "draft2020-12", "2019-09": "draft2019-09", "7": "draft7", "6": "draft6",
          "4": "draft4"}
# the suffix of the per-draft class names in jsonschema, jsonschema-rs and referencing
DRAFT_CODES = {"draft2020-12": "202012", "draft2019-09": "201909", "draft7": "7", "draft6": "6",
               "draft4": "4"}
INCLUDES = {"optional": "optional/*.json", "format": "optional/format/*.json"}
# The original study left these out: remote refs need a server, the rest defeated its compiler.
PRESETS = {"study": ("anchor", "refRemote", "dynamicRef", "defs", "id")}


@dataclass(frozen=True)
class Group:
    """One schema with its tests: one task."""

    file: str  # relative to the draft folder, without .json: "allOf", "optional/format/date"
    index: int
    description: str
    schema: Any
    tests: list[dict[str, Any]]
    assert_format: bool  # only optional/format/ expects `format` to be checked

    @property
    def id(self) -> str:
        return f"{self.file}/{self.index}"


@dataclass
class Selection:
    draft: str  # folder name, e.g. "draft2020-12"
    parts: list[str]
    files: list[str] = field(default_factory=list)
    groups: list[Group] = field(default_factory=list)
    digest: str = ""

    @property
    def tests(self) -> int:
        return sum(len(g.tests) for g in self.groups)

    def counts(self) -> str:
        return (f"{self.draft} {'+'.join(self.parts)}: {len(self.files)} files, "
                f"{len(self.groups)} schemas, {self.tests} tests")


def draft_folder(draft: str) -> str:
    key = draft.removeprefix("draft")
    if key not in DRAFTS:
        raise UsageError(f"unknown draft {draft!r}: use one of {', '.join(DRAFTS)}")
    return DRAFTS[key]


def split_list(value: str | None) -> list[str]:
    return [v.strip() for v in (value or "").split(",") if v.strip()]


def select(root: Path, draft: str, include: str | None = None, omit: str | None = None
           ) -> Selection:
    folder = draft_folder(draft)
    base = root / "tests" / folder
    if not base.is_dir():
        raise UsageError(f"{base}: no tests for {folder} in this suite")
    paths = find_files(base, split_list(include))
    paths = apply_omit(paths, base, split_list(omit))
    parts = ["required", *split_list(include)]
    selection = Selection(folder, parts)
    digest = hashlib.sha256()
    for path in paths:
        text = path.read_bytes()
        digest.update(relative_name(path, base).encode() + b"\0" + text)
        name = relative_name(path, base)
        selection.files.append(name)
        selection.groups.extend(read_groups(path, name, text))
    selection.digest = digest.hexdigest()[:12]
    return selection


def find_files(base: Path, include: list[str]) -> list[Path]:
    unknown = [i for i in include if i not in INCLUDES]
    if unknown:
        raise UsageError(f"unknown include {unknown[0]!r}: use {', '.join(INCLUDES)}")
    paths = sorted(base.glob("*.json"))
    for part in include:
        paths += sorted(base.glob(INCLUDES[part]))
    return paths


def apply_omit(paths: list[Path], base: Path, omit: list[str]) -> list[Path]:
    """Names match a file's stem or its path under the draft folder; a preset may miss files."""
    names = {relative_name(p, base) for p in paths} | {p.stem for p in paths}
    wanted: set[str] = set()
    for name in omit:
        if name in PRESETS:
            wanted.update(PRESETS[name])
        elif name.removesuffix(".json") in names:
            wanted.add(name.removesuffix(".json"))
        else:
            raise UsageError(f"omit: no file {name!r} in the selection "
                             f"(presets: {', '.join(PRESETS)})")
    return [p for p in paths if p.stem not in wanted and relative_name(p, base) not in wanted]


def relative_name(path: Path, base: Path) -> str:
    """"optional/format/date" for tests/<draft>/optional/format/date.json."""
    return path.relative_to(base).with_suffix("").as_posix()


def read_groups(path: Path, name: str, text: bytes) -> list[Group]:
    try:
        groups = json.loads(text)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise UsageError(f"{path}: invalid JSON ({exc})") from None
    if not isinstance(groups, list):
        raise UsageError(f"{path}: expected a list of schema groups")
    assert_format = name.startswith("optional/format/")
    return [to_group(path, name, i, g, assert_format) for i, g in enumerate(groups)]


def to_group(path: Path, name: str, index: int, raw: Any, assert_format: bool) -> Group:
    where = f"{path}: group {index}"
    if not isinstance(raw, dict):
        raise UsageError(f"{where}: expected an object")
    description = require(raw, "description", str, where)
    if "schema" not in raw:
        raise UsageError(f"{where}: missing field 'schema'")
    tests = require(raw, "tests", list, where)
    for t, test in enumerate(tests):
        check_test(test, f"{where}: tests[{t}]")
    return Group(name, index, description, raw["schema"], tests, assert_format)


def check_test(test: Any, where: str) -> None:
    if not isinstance(test, dict):
        raise UsageError(f"{where}: expected an object")
    require(test, "description", str, where)
    require(test, "valid", bool, where)
    if "data" not in test:
        raise UsageError(f"{where}: missing field 'data'")


def require(obj: dict[str, Any], key: str, kind: type, where: str) -> Any:
    if key not in obj:
        raise UsageError(f"{where}: missing field {key!r}")
    if not isinstance(obj[key], kind):
        raise UsageError(f"{where}: field {key!r} must be a {kind.__name__}")
    return obj[key]
