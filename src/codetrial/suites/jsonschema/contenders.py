"""Non-model contenders: a schema compiler or a validation library writes the `validate` code.

Each contender turns a schema into the same thing a model must produce, a module defining
`validate(instance) -> bool`, so it is graded by the same program in the same sandbox and lands
in the same tables. The library ones embed the schema and import a validator: allowed here (and
for the reference), flagged when a model does it. The harness also execs this trusted code to
label augmented instances, so the reference semantics live in one place.
"""

from __future__ import annotations

import importlib.metadata
import json
from dataclasses import dataclass, field
from typing import Any

from codetrial.core import UsageError
from codetrial.suites.jsonschema.selection import DRAFT_CODES

JSONSCHEMA = "library:jsonschema"
JSONSCHEMA_RS = "library:jsonschema-rs"
FASTJSONSCHEMA = "compiler:fastjsonschema"
# What `--model reference` answers with: a validator that passes the whole suite, the newest
# included (ECMA-262 patterns such as `\p{Letter}`, which Python's `re` cannot compile, and
# `$` that does not match before a final newline). library:jsonschema misses those.
REFERENCE = JSONSCHEMA_RS
# What the contenders' programs import (the sandbox imports them once per worker).
LIBRARY_MODULES = ("jsonschema", "referencing", "jsonschema_rs", "fastjsonschema")
DISTRIBUTIONS = {JSONSCHEMA: "jsonschema", JSONSCHEMA_RS: "jsonschema-rs",
                 FASTJSONSCHEMA: "fastjsonschema"}


@dataclass(frozen=True)
class SchemaSpec:
    """All a contender needs: the schema, its draft folder, format mode, remote documents."""

    schema: Any
    draft: str = "draft2020-12"
    assert_format: bool = False
    remotes: dict[str, Any] = field(default_factory=dict)

    @property
    def code(self) -> str:
        return DRAFT_CODES[self.draft]


def contender_names() -> list[str]:
    return list(DISTRIBUTIONS)


def check_contender(name: str) -> str:
    if name not in DISTRIBUTIONS:
        raise UsageError(f"unknown contender {name!r}: use one of {', '.join(DISTRIBUTIONS)}")
    return name


def contender_version(name: str) -> str:
    dist = DISTRIBUTIONS[check_contender(name)]
    return f"{dist} {importlib.metadata.version(dist)}"


def contender_code(name: str, spec: SchemaSpec) -> str:
    makers = {JSONSCHEMA: jsonschema_code, JSONSCHEMA_RS: jsonschema_rs_code,
              FASTJSONSCHEMA: fastjsonschema_code}
    return makers[check_contender(name)](spec)


def literal(value: Any) -> str:
    """A Python expression that rebuilds JSON data exactly (1.0 stays a float, true a bool)."""
    return f"json.loads({json.dumps(value, ensure_ascii=False)!r})"


JSONSCHEMA_TEMPLATE = '''\
import json

from jsonschema import validators
from referencing import Registry, Resource
from referencing import jsonschema as specifications

SCHEMA = {schema}
REMOTES = {remotes}
_cls = validators.validator_for(SCHEMA, default=validators.Draft{code}Validator)
_registry = Registry().with_resources(
    (uri, Resource.from_contents(doc, default_specification=specifications.DRAFT{code}))
    for uri, doc in REMOTES.items()
)
_validator = _cls(SCHEMA, registry=_registry,
                  format_checker=_cls.FORMAT_CHECKER if {assert_format} else None)


def validate(instance):
    return _validator.is_valid(instance)
'''

JSONSCHEMA_RS_TEMPLATE = '''\
import json

import jsonschema_rs

SCHEMA = {schema}
REMOTES = {remotes}


def _retrieve(uri):
    if uri in REMOTES:
        return REMOTES[uri]
    raise KeyError(f"no remote document {{uri}}")


# a declared $schema may name a custom metaschema: let validator_for retrieve and read it, and
# let its vocabularies say whether `format` asserts (format-assertion)
_declared = isinstance(SCHEMA, dict) and "$schema" in SCHEMA
_custom = _declared and str(SCHEMA["$schema"]).rstrip("#") not in {{
    "https://json-schema.org/draft/2020-12/schema", "https://json-schema.org/draft/2019-09/schema",
    "http://json-schema.org/draft-07/schema", "http://json-schema.org/draft-06/schema",
    "http://json-schema.org/draft-04/schema"}}
_make = jsonschema_rs.validator_for if _declared else jsonschema_rs.Draft{code}Validator
_validator = _make(SCHEMA, validate_formats=None if _custom else {assert_format},
                   retriever=_retrieve)


def validate(instance):
    return _validator.is_valid(instance)
'''

FASTJSONSCHEMA_TEMPLATE = '''\
from fastjsonschema import JsonSchemaValueException

_COMPILED = {compiled!r}
_namespace = {{}}
exec(_COMPILED, _namespace)
_check = _namespace[{entry!r}]


def validate(instance):
    try:
        _check(instance)
    except JsonSchemaValueException:
        return False
    return True
'''


def jsonschema_code(spec: SchemaSpec) -> str:
    return JSONSCHEMA_TEMPLATE.format(schema=literal(spec.schema), remotes=literal(spec.remotes),
                                      code=spec.code, assert_format=spec.assert_format)


def jsonschema_rs_code(spec: SchemaSpec) -> str:
    return JSONSCHEMA_RS_TEMPLATE.format(schema=literal(spec.schema),
                                         remotes=literal(spec.remotes), code=spec.code,
                                         assert_format=spec.assert_format)


def fastjsonschema_code(spec: SchemaSpec) -> str:
    """The compiler runs here, on trusted suite data; its output is what gets graded."""
    import fastjsonschema

    fetch = offline_fetcher(spec.remotes)
    handlers = {"http": fetch, "https": fetch}
    schema = declared(spec)
    try:
        compiled = fastjsonschema.compile_to_code(schema, handlers=handlers,
                                                  use_formats=spec.assert_format)
        # the root function is named after the schema's $id, as in fastjsonschema.compile
        entry = fastjsonschema.RefResolver.from_schema(schema, handlers=handlers,
                                                       store={}).get_scope_name()
    except Exception as exc:  # noqa: BLE001 - a schema the compiler rejects is its compile error
        message = f"fastjsonschema could not compile this schema: {type(exc).__name__}: {exc}"
        return f"raise RuntimeError({message[:500]!r})\n"
    return FASTJSONSCHEMA_TEMPLATE.format(compiled=compiled, entry=entry)


def declared(spec: SchemaSpec) -> Any:
    """fastjsonschema picks its draft from `$schema`; say which one for draft 4, 6 and 7."""
    uris = {"draft4": "http://json-schema.org/draft-04/schema#",
            "draft6": "http://json-schema.org/draft-06/schema#",
            "draft7": "http://json-schema.org/draft-07/schema#"}
    if isinstance(spec.schema, dict) and "$schema" not in spec.schema and spec.draft in uris:
        return {"$schema": uris[spec.draft], **spec.schema}
    return spec.schema


def offline_fetcher(remotes: dict[str, Any]):
    """Remote refs resolve to the suite's documents and the bundled metaschemas, never the net."""
    from jsonschema_specifications import REGISTRY

    def fetch(uri: str) -> Any:
        if uri in remotes:
            return remotes[uri]
        return REGISTRY.contents(uri.rstrip("#"))

    return fetch
