"""Extra instances the suite lacks, labelled by two independent reference validators.

The suite's groups are thin (one allOf group tests two numbers), so, as EvalPlus does for
HumanEval, each schema gets more instances: one probe of each JSON type, boundary values around
the schema's own numbers and lengths, and mutations of the suite's instances aimed at the
mistakes Python programmers make (bool for number, 1.0 for 1, unanchored regexes, astral
characters, float multiples). jsonschema and jsonschema-rs label them; where they disagree, or
either fails, the instance is dropped.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from decimal import Decimal
from typing import Any

from codetrial.suites.jsonschema.contenders import (
    JSONSCHEMA,
    JSONSCHEMA_RS,
    SchemaSpec,
    contender_code,
)

MAX_POOL = 150
MAX_LENGTH = 64  # longest generated string or list
TYPE_PROBES: list[Any] = [None, True, False, 0, 1, -1, 1.0, 2.5, -0.5, "", "a", "\u00a7x",
                          "\U0001f600", [], [None], [1, "a"], {}, {"a": None}, {"a": 1, "b": "x"}]
NUMBER_KEYS = ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum")
LENGTH_KEYS = ("minLength", "maxLength")
ITEM_KEYS = ("minItems", "maxItems", "minContains", "maxContains")
PROPERTY_KEYS = ("minProperties", "maxProperties")
MARK = "\u00a7"  # a non-ASCII character no suite pattern anchors on
ASTRAL = "\U0001f600"  # one code point, two UTF-16 units, four UTF-8 bytes

Validator = Callable[[Any], bool]


def key(value: Any) -> str:
    """Identity of a JSON value that keeps 1, 1.0 and true apart."""
    return json.dumps(value, sort_keys=True)


def walk(value: Any) -> Iterator[tuple[str | None, Any]]:
    """Every (key, value) pair anywhere in a JSON document, the root under key None."""
    stack: list[tuple[str | None, Any]] = [(None, value)]
    while stack:
        name, node = stack.pop()
        yield name, node
        if isinstance(node, dict):
            stack.extend(node.items())
        elif isinstance(node, list):
            stack.extend((None, v) for v in node)


# -- generated instances --------------------------------------------------------------------
def boundary_values(schema: Any) -> Iterator[Any]:
    for name, value in walk(schema):
        if name in NUMBER_KEYS and is_number(value):
            yield from numbers_near(value)
        elif name == "multipleOf" and is_number(value) and value > 0:
            yield from multiples(value)
        elif name in LENGTH_KEYS and isinstance(value, int):
            yield from strings_of_length(value)
        elif name in ITEM_KEYS and isinstance(value, int):
            yield from ([0] * n for n in around(value))
        elif name in PROPERTY_KEYS and isinstance(value, int):
            yield from ({f"p{i}": i for i in range(n)} for n in around(value))
        elif name in ("const", "enum"):
            yield from (value if name == "enum" and isinstance(value, list) else [value])
        elif name == "required" and isinstance(value, list) and all_strings(value):
            yield dict.fromkeys(value, 1)


def is_number(value: Any) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def all_strings(values: list[Any]) -> bool:
    return all(isinstance(v, str) for v in values)


def around(n: int) -> list[int]:
    return [k for k in (n - 1, n, n + 1) if 0 <= k <= MAX_LENGTH]


def numbers_near(v: int | float) -> list[int | float]:
    return [v - 1, v, v + 1, v - 0.5, v + 0.5, float(v)]


def multiples(m: int | float) -> list[int | float]:
    """Exact decimal multiples: the floats a float-modulo validator gets wrong."""
    d = Decimal(repr(m))
    values = [d * k for k in (1, 2, 3, 7, 75)] + [d * k + d / 2 for k in (1, 3)]
    return [int(v) if v == v.to_integral_value() and isinstance(m, int) else float(v)
            for v in values]


def strings_of_length(n: int) -> Iterator[str]:
    for k in around(n):
        yield from ("a" * k, "\u00e9" * k, ASTRAL * k)


# -- mutations of the suite's instances -----------------------------------------------------
def swap_bools(value: Any) -> Any:
    """1 <-> true, 0 <-> false, everywhere."""
    if isinstance(value, bool):
        return int(value)
    if value in (0, 1) and isinstance(value, int):
        return bool(value)
    return transform(value, swap_bools)


def ints_to_floats(value: Any) -> Any:
    if isinstance(value, int) and not isinstance(value, bool):
        return float(value)
    return transform(value, ints_to_floats)


def mark_strings(mark: Callable[[str], str]) -> Callable[[Any], Any]:
    """Rewrite every string and object key, e.g. prefix or suffix a character."""

    def apply(value: Any) -> Any:
        if isinstance(value, str):
            return mark(value)
        if isinstance(value, dict):
            return {mark(k): apply(v) for k, v in value.items()}
        return transform(value, apply)

    return apply


def transform(value: Any, fn: Callable[[Any], Any]) -> Any:
    if isinstance(value, list):
        return [fn(v) for v in value]
    if isinstance(value, dict):
        return {k: fn(v) for k, v in value.items()}
    return value


def duplicate_first(value: Any) -> Any:
    return [*value, value[0]] if isinstance(value, list) and value else value


def first_item_swapped(value: Any) -> Any:
    """[1, 1] -> [true, 1]: distinct in JSON, equal to Python's ==."""
    return [swap_bools(value[0]), *value[1:]] if isinstance(value, list) and value else value


MUTATIONS: list[Callable[[Any], Any]] = [
    swap_bools, ints_to_floats, first_item_swapped, duplicate_first,
    mark_strings(lambda s: MARK + s), mark_strings(lambda s: s + MARK),
    mark_strings(lambda s: s + ASTRAL),
]


def mutations(instances: Iterable[Any]) -> Iterator[Any]:
    for instance in instances:
        for mutate in MUTATIONS:
            yield mutate(instance)


def pool(schema: Any, suite_instances: list[Any]) -> list[Any]:
    """New instances, in a fixed order, none equal to a suite instance, at most MAX_POOL."""
    seen = {key(i) for i in suite_instances}
    found = []
    sources = (TYPE_PROBES, boundary_values(schema), mutations(suite_instances))
    for source in sources:
        for instance in source:
            k = key(instance)
            if k not in seen:
                seen.add(k)
                found.append(instance)
    return found[:MAX_POOL]


# -- labels ----------------------------------------------------------------------------------
def load_namespace(code: str) -> dict[str, Any]:
    """Exec trusted contender code (ours, with suite data) in a fresh namespace."""
    namespace: dict[str, Any] = {"__name__": "reference"}
    exec(compile(code, "reference.py", "exec"), namespace)  # noqa: S102 - trusted, see above
    return namespace


def load_validator(code: str) -> Validator:
    return load_namespace(code)["validate"]


def reference_validators(spec: SchemaSpec) -> list[Validator]:
    return [load_validator(contender_code(name, spec)) for name in (JSONSCHEMA, JSONSCHEMA_RS)]


def label(instance: Any, validators: list[Validator]) -> bool | None:
    """The references' common answer, or None when they disagree or fail."""
    try:
        answers = {bool(v(instance)) for v in validators}
    except Exception:  # noqa: BLE001 - an instance a reference cannot judge is dropped
        return None
    return answers.pop() if len(answers) == 1 else None


def augmented(spec: SchemaSpec, suite_instances: list[Any]) -> list[tuple[Any, bool]]:
    """(instance, valid) pairs both references agree on; [] when a reference cannot load."""
    try:
        validators = reference_validators(spec)
    except Exception:  # noqa: BLE001 - e.g. a schema jsonschema-rs rejects: no augmentation
        return []
    labelled = ((i, label(i, validators)) for i in pool(spec.schema, suite_instances))
    return [(i, v) for i, v in labelled if v is not None]
