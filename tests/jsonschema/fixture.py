"""A tiny JSON-Schema-Test-Suite checkout, written by the tests (layout as upstream)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

DIALECT = "https://json-schema.org/draft/2020-12/schema"


def group(description: str, schema: Any, *tests: tuple[str, Any, bool]) -> dict[str, Any]:
    return {"description": description, "schema": schema,
            "tests": [{"description": d, "data": data, "valid": v} for d, data, v in tests]}


GROUPS: dict[str, list[dict[str, Any]]] = {
    "type": [group("integer type", {"$schema": DIALECT, "type": "integer"},
                   ("an integer", 1, True), ("a float with zero fraction", 1.0, True),
                   ("a float", 1.5, False), ("a string", "1", False), ("a bool", True, False))],
    "enum": [group("enum with one and a", {"enum": [1, "a"]},
                   ("one", 1, True), ("true is not one", True, False), ("a", "a", True),
                   ("b", "b", False))],
    "pattern": [group("unanchored pattern", {"pattern": "b+"},
                      ("contains b", "abbc", True), ("no b", "ac", False),
                      ("ignores numbers", 12, True))],
    "minimum": [group("minimum five", {"minimum": 5},
                      ("above", 6, True), ("below", 4, False), ("ignores strings", "x", True))],
    "format": [group("date format is an annotation", {"format": "date"},
                     ("a date", "2020-01-01", True), ("not a date", "nope", True))],
    "maxLength": [group("max length two", {"maxLength": 2},
                        ("two", "ab", True), ("three", "abc", False),
                        ("ignores lists", [1], True))],
    "multipleOf": [group("small float divisor", {"multipleOf": 0.0001},
                         ("a multiple", 0.0075, True), ("not a multiple", 0.00751, False))],
    "ref": [group("ref with a sibling maximum",
                  {"$defs": {"low": {"minimum": 2}}, "$ref": "#/$defs/low", "maximum": 5},
                  ("between", 3, True), ("below", 1, False), ("above the sibling", 6, False))],
    "uniqueItems": [group("uniqueItems validation", {"uniqueItems": True},
                          ("one and true differ", [1, True], True), ("two ones", [1, 1], False))],
    "allOf": [group("allOf simple types", {"allOf": [{"maximum": 30}, {"minimum": 20}]},
                    ("mismatch one", 35, False), ("valid", 25, True))],
    "oneOf": [group("oneOf with required",
                    {"type": "object",
                     "oneOf": [{"required": ["foo", "bar"]}, {"required": ["foo", "baz"]}]},
                    ("both invalid", {"bar": 2}, False),
                    ("first valid", {"foo": 1, "bar": 2}, True),
                    ("both valid", {"foo": 1, "bar": 2, "baz": 3}, False))],
    "refRemote": [group("remote ref", {"$ref": "http://localhost:1234/draft2020-12/integer.json"},
                        ("an integer", 3, True), ("a string", "x", False))],
}
OPTIONAL_FORMAT = {"date": [group("date format asserted", {"format": "date"},
                                  ("a date", "2020-01-01", True), ("not a date", "nope", False))]}
REMOTES = {"draft2020-12/integer.json": {"$schema": DIALECT, "type": "integer"}}


def write(path: Path, value: Any) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(value, indent=1))


def make_suite(root: Path, groups: dict[str, list[dict[str, Any]]] | None = None) -> Path:
    """Write the fixture under ROOT/json (as in the jsonschema sdist) and return ROOT."""
    base = root / "json"
    for name, content in (GROUPS if groups is None else groups).items():
        write(base / "tests" / "draft2020-12" / f"{name}.json", content)
    for name, content in OPTIONAL_FORMAT.items():
        write(base / "tests" / "draft2020-12" / "optional" / "format" / f"{name}.json", content)
    for name, content in REMOTES.items():
        write(base / "remotes" / name, content)
    return root


def counts() -> tuple[int, int]:
    return len(GROUPS), sum(len(g["tests"]) for gs in GROUPS.values() for g in gs)
