"""The race's schemas, their inputs at each size in a best and a worst case, and hand-written
baselines.

The three cases are the original study's: `allOf simple types`, `uniqueItems validation` and
`oneOf with required`, named by file and group description so a run's generated validators
for those groups can be found. Best case: the least work a sensible validator can do (an early
failure); worst case: the most (a valid instance that must be checked in full).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from codetrial.core import UsageError

SIZES = (1, 3, 10, 30, 100, 300, 1000)
SCENARIOS = ("best", "worst")
DIALECT = "https://json-schema.org/draft/2020-12/schema"


@dataclass(frozen=True)
class RaceCase:
    name: str
    file: str  # suite file and group description of the schema, to find generated code
    description: str
    schema: Any
    instance: Callable[[int, str], Any]  # (size, scenario) -> instance
    baselines: dict[str, str] = field(default_factory=dict)  # name -> validate source
    sized: bool = True

    def sizes(self, wanted: tuple[int, ...]) -> tuple[int, ...]:
        return wanted if self.sized else (1,)


def allof_instance(size: int, scenario: str) -> Any:
    return 35 if scenario == "best" else 25  # 35 fails the first branch; 25 passes both


def unique_instance(size: int, scenario: str) -> Any:
    """Best: equal items (a duplicate at once); worst: all distinct (every item compared)."""
    return [0] * size if scenario == "best" else list(range(size))


def oneof_instance(size: int, scenario: str) -> Any:
    """Best: no `foo` (both branches fail at once); worst: both branches hold (invalid only
    after checking both). Padded with unrelated properties up to `size`."""
    core = {} if scenario == "best" else {"foo": 1, "bar": 2, "baz": 3}
    return {**core, **{f"p{i}": i for i in range(max(0, size - len(core)))}}


ALLOF_BASELINE = """\
def validate(instance):
    if isinstance(instance, bool) or not isinstance(instance, (int, float)):
        return True
    return 20 <= instance <= 30
"""

# Early exit on the first duplicate; the key keeps true apart from 1 but 1.0 equal to 1.
UNIQUE_EARLY_EXIT = """\
def _key(value):
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, list):
        return ("array", tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return ("object", frozenset((k, _key(v)) for k, v in value.items()))
    return (type(value).__name__, value)


def validate(instance):
    if not isinstance(instance, list):
        return True
    seen = set()
    for item in instance:
        key = _key(item)
        if key in seen:
            return False
        seen.add(key)
    return True
"""

# The study's naive translation: serialize everything, then compare counts (no early exit).
UNIQUE_NAIVE = """\
import json


def validate(instance):
    if not isinstance(instance, list):
        return True
    return len({json.dumps(item, sort_keys=True) for item in instance}) == len(instance)
"""

ONEOF_BASELINE = """\
def validate(instance):
    if not isinstance(instance, dict):
        return False
    if "foo" not in instance:
        return False
    return ("bar" in instance) != ("baz" in instance)
"""

CASES = {
    "allOf": RaceCase("allOf", "allOf", "allOf simple types",
                      {"$schema": DIALECT, "allOf": [{"maximum": 30}, {"minimum": 20}]},
                      allof_instance, {"hand-written": ALLOF_BASELINE}, sized=False),
    "uniqueItems": RaceCase("uniqueItems", "uniqueItems", "uniqueItems validation",
                            {"$schema": DIALECT, "uniqueItems": True}, unique_instance,
                            {"hand-written": UNIQUE_EARLY_EXIT,
                             "hand-written naive": UNIQUE_NAIVE}),
    "oneOf": RaceCase("oneOf", "oneOf", "oneOf with required",
                      {"$schema": DIALECT, "type": "object",
                       "oneOf": [{"required": ["foo", "bar"]}, {"required": ["foo", "baz"]}]},
                      oneof_instance, {"hand-written": ONEOF_BASELINE}),
}


def pick_cases(names: list[str] | None) -> list[RaceCase]:
    if not names:
        return list(CASES.values())
    unknown = [n for n in names if n not in CASES]
    if unknown:
        raise UsageError(f"unknown race case {unknown[0]!r}: use {', '.join(CASES)}")
    return [CASES[n] for n in names]
