"""Known mistakes, each written as a deliberately wrong validator (a mutant of jsonschema).

A mutant is jsonschema with one keyword or type rule replaced by the Python a careless
programmer writes (`==` for enum, `re.match` for pattern, `len(s.encode())` for maxLength), or
with the schema rewritten the way a buggy translator reads it (type keywords implied, `$ref`
siblings dropped). Instances on which a mutant and the reference disagree discriminate that
mistake; see diagnosis.py.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from jsonschema import ValidationError

Keyword = Callable[[Any, Any, Any, dict], Iterator[ValidationError]]


@dataclass(frozen=True)
class Mutant:
    tag: str
    title: str
    triggers: tuple[str, ...]  # JSON keys or values whose presence makes the mutant relevant
    keywords: dict[str, Keyword] | None = None
    types: dict[str, Callable[[Any, Any], bool]] | None = None
    rewrite: Callable[[Any], Any] | None = None
    checks_format: bool = False  # a mistake only where the suite treats format as annotation

    def relevant(self, schema_text: str, assert_format: bool) -> bool:
        if self.checks_format and assert_format:
            return False
        return any(t in schema_text for t in self.triggers)


def error(message: str) -> Iterator[ValidationError]:
    yield ValidationError(message)


# -- Python equality where JSON equality is meant ------------------------------------------
def const_eq(validator, const, instance, schema):
    if instance != const:
        yield from error("not const (Python ==)")


def enum_eq(validator, enums, instance, schema):
    if instance not in enums:
        yield from error("not in enum (Python ==)")


def unique_eq(validator, unique, instance, schema):
    if unique and validator.is_type(instance, "array"):
        seen: list[Any] = []
        for item in instance:
            if item in seen:
                yield from error("duplicate (Python ==)")
                return
            seen.append(item)


# -- regex, length, multipleOf, bounds -------------------------------------------------------
def pattern_match(validator, pattern, instance, schema):
    if validator.is_type(instance, "string") and not re.match(pattern, instance):
        yield from error("re.match failed")


def pattern_properties_match(validator, patterns, instance, schema):
    if not validator.is_type(instance, "object"):
        return
    for pattern, subschema in patterns.items():
        for name, value in instance.items():
            if re.match(pattern, name):
                yield from validator.descend(value, subschema, path=name)


def length_by(measure: Callable[[str], int], bound: str) -> Keyword:
    def check(validator, limit, instance, schema):
        if validator.is_type(instance, "string"):
            size = measure(instance)
            if size < limit if bound == "min" else size > limit:
                yield from error(f"length {size} breaks {bound} {limit}")

    return check


def utf16_units(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


def utf8_bytes(text: str) -> int:
    return len(text.encode("utf-8"))


def multiple_of_modulo(validator, divisor, instance, schema):
    if validator.is_type(instance, "number") and instance % divisor != 0:
        yield from error("float modulo is not zero")


def exclusive_as_inclusive(bound: str) -> Keyword:
    def check(validator, limit, instance, schema):
        if isinstance(limit, bool):  # draft 4's boolean form lives in minimum/maximum
            return
        if validator.is_type(instance, "number") and (
                instance < limit if bound == "min" else instance > limit):
            yield from error("outside the bound")

    return check


# -- type rules --------------------------------------------------------------------------------
def number_with_bools(checker, instance) -> bool:
    return isinstance(instance, int | float)


def integer_with_bools(checker, instance) -> bool:
    return isinstance(instance, int) or (isinstance(instance, float) and instance.is_integer())


def integer_without_floats(checker, instance) -> bool:
    return isinstance(instance, int) and not isinstance(instance, bool)


# -- schema rewrites ---------------------------------------------------------------------------
IMPLIED_TYPES = {
    "number": ("minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"),
    "string": ("minLength", "maxLength", "pattern"),
    "array": ("items", "prefixItems", "additionalItems", "contains", "minItems", "maxItems",
              "uniqueItems", "minContains", "maxContains", "unevaluatedItems"),
    "object": ("properties", "required", "additionalProperties", "patternProperties",
               "minProperties", "maxProperties", "propertyNames", "dependentRequired",
               "dependentSchemas", "dependencies", "unevaluatedProperties"),
}
SCHEMA_VALUED = ("items", "additionalItems", "additionalProperties", "not", "contains",
                 "propertyNames", "if", "then", "else", "unevaluatedItems",
                 "unevaluatedProperties", "contentSchema")
SCHEMA_LISTS = ("allOf", "anyOf", "oneOf", "prefixItems", "items")
SCHEMA_MAPS = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas",
               "dependencies")
REF_KEEPS = {"$ref", "$id", "$schema", "$defs", "definitions", "$anchor", "$dynamicAnchor",
             "$comment"}


def map_subschemas(schema: Any, fn: Callable[[Any], Any]) -> Any:
    """Apply fn to every direct subschema of a schema object, keeping the rest as is."""
    if not isinstance(schema, dict):
        return schema
    out = dict(schema)
    for name, value in schema.items():
        if name in SCHEMA_LISTS and isinstance(value, list):
            out[name] = [fn(v) for v in value]
        elif name in SCHEMA_MAPS and isinstance(value, dict):
            out[name] = {k: fn(v) if isinstance(v, dict | bool) else v for k, v in value.items()}
        elif name in SCHEMA_VALUED and isinstance(value, dict | bool):
            out[name] = fn(value)
    return out


def implied_types(schema: Any) -> Any:
    """Type-specific keywords read as if they also demanded their type."""
    out = map_subschemas(schema, implied_types)
    if isinstance(out, dict) and "type" not in out:
        implied = [t for t, keys in IMPLIED_TYPES.items() if any(k in out for k in keys)]
        if implied:
            out["type"] = implied + (["integer"] if "number" in implied else [])
    return out


def ref_siblings_dropped(schema: Any) -> Any:
    out = map_subschemas(schema, ref_siblings_dropped)
    if isinstance(out, dict) and "$ref" in out:
        return {k: v for k, v in out.items() if k in REF_KEEPS}
    return out


MUTANTS = [
    Mutant("python-equality", "== for const/enum/uniqueItems (true == 1)",
           ('"const"', '"enum"', '"uniqueItems"'),
           keywords={"const": const_eq, "enum": enum_eq, "uniqueItems": unique_eq}),
    Mutant("bool-is-number", "bool accepted as a number",
           ('"number"', '"integer"', *(f'"{k}"' for k in IMPLIED_TYPES["number"])),
           types={"number": number_with_bools, "integer": integer_with_bools}),
    Mutant("float-not-integer", "1.0 rejected as an integer", ('"integer"',),
           types={"integer": integer_without_floats}),
    Mutant("rejects-other-types", "keyword rejects instances of other types",
           tuple(f'"{k}"' for keys in IMPLIED_TYPES.values() for k in keys),
           rewrite=implied_types),
    Mutant("format-asserted", "format checked although it is an annotation", ('"format"',),
           checks_format=True),
    Mutant("regex-anchored", "re.match instead of re.search",
           ('"pattern"', '"patternProperties"'),
           keywords={"pattern": pattern_match, "patternProperties": pattern_properties_match}),
    Mutant("length-not-code-points", "length in UTF-16 units, not code points",
           ('"minLength"', '"maxLength"'),
           keywords={"minLength": length_by(utf16_units, "min"),
                     "maxLength": length_by(utf16_units, "max")}),
    Mutant("length-not-code-points", "length in UTF-8 bytes, not code points",
           ('"minLength"', '"maxLength"'),
           keywords={"minLength": length_by(utf8_bytes, "min"),
                     "maxLength": length_by(utf8_bytes, "max")}),
    Mutant("float-multipleof", "multipleOf by float modulo", ('"multipleOf"',),
           keywords={"multipleOf": multiple_of_modulo}),
    Mutant("exclusive-bound-inclusive", "exclusive bound treated as inclusive",
           ('"exclusiveMinimum"', '"exclusiveMaximum"'),
           keywords={"exclusiveMinimum": exclusive_as_inclusive("min"),
                     "exclusiveMaximum": exclusive_as_inclusive("max")}),
    Mutant("ref-siblings-ignored", "keywords beside $ref ignored", ('"$ref"',),
           rewrite=ref_siblings_dropped),
]


def relevant_mutants(schema: Any, assert_format: bool) -> list[Mutant]:
    text = json.dumps(schema)
    return [m for m in MUTANTS if m.relevant(text, assert_format)]


def mutant_validator(mutant: Mutant, reference: dict[str, Any], assert_format: bool
                     ) -> Callable[[Any], bool]:
    """The mutant built on the reference's own class, registry and schema."""
    from jsonschema import validators

    cls = reference["_cls"]
    types = cls.TYPE_CHECKER.redefine_many(mutant.types) if mutant.types else None
    mutated = validators.extend(cls, validators=mutant.keywords or {}, type_checker=types)
    schema = mutant.rewrite(reference["SCHEMA"]) if mutant.rewrite else reference["SCHEMA"]
    formats = cls.FORMAT_CHECKER if assert_format or mutant.checks_format else None
    return mutated(schema, registry=reference["_registry"], format_checker=formats).is_valid
