"""The suite's `remotes/` documents, which its tests expect at http://localhost:1234/.

Nothing is served: each group gets the few documents it really needs (found by validating its
tests with a recording registry), and those travel with the prompt and the contenders' code.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

BASE_URL = "http://localhost:1234/"


def load_remotes(root: Path) -> dict[str, Any]:
    folder = root / "remotes"
    if not folder.is_dir():
        return {}
    found = {}
    for path in sorted(folder.rglob("*.json")):
        try:
            found[BASE_URL + path.relative_to(folder).as_posix()] = json.loads(path.read_text())
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue  # a broken remote only fails the groups that need it
    return found


def needed_remotes(schema: Any, tests: list[dict[str, Any]], draft_code: str,
                   remotes: dict[str, Any]) -> dict[str, Any]:
    """The remote documents that jsonschema (lazily, validating the tests) or jsonschema-rs
    (eagerly, building its validator) retrieve, transitively."""
    if not remotes or BASE_URL.rstrip("/") not in json.dumps(schema):
        return {}
    wanted: dict[str, Any] = {}
    recorded_by_jsonschema(schema, tests, draft_code, remotes, wanted)
    recorded_by_jsonschema_rs(schema, draft_code, remotes, wanted)
    return dict(sorted(wanted.items()))


def recorded_by_jsonschema(schema: Any, tests: list[dict[str, Any]], draft_code: str,
                           remotes: dict[str, Any], wanted: dict[str, Any]) -> None:
    from referencing import Registry, Resource
    from referencing import jsonschema as specs
    from referencing.exceptions import NoSuchResource

    from jsonschema import validators

    default = getattr(specs, f"DRAFT{draft_code}")

    def retrieve(uri: str) -> Resource:
        if uri not in remotes:
            raise NoSuchResource(ref=uri)
        wanted[uri] = remotes[uri]
        return Resource.from_contents(remotes[uri], default_specification=default)

    cls = validators.validator_for(schema, default=getattr(validators,
                                                           f"Draft{draft_code}Validator"))
    validator = cls(schema, registry=Registry(retrieve=retrieve))
    for test in tests:
        try:
            validator.is_valid(test["data"])
        except Exception:  # noqa: BLE001 - a test jsonschema cannot evaluate needs nothing more
            continue


def recorded_by_jsonschema_rs(schema: Any, draft_code: str, remotes: dict[str, Any],
                              wanted: dict[str, Any]) -> None:
    import jsonschema_rs

    def retrieve(uri: str) -> Any:
        wanted[uri] = remotes[uri]  # a KeyError tells jsonschema-rs the document is unknown
        return remotes[uri]

    declared = isinstance(schema, dict) and "$schema" in schema
    make = (jsonschema_rs.validator_for if declared
            else getattr(jsonschema_rs, f"Draft{draft_code}Validator"))
    try:
        make(schema, retriever=retrieve)
    except Exception:  # noqa: BLE001 - a schema it rejects needs nothing more from us
        pass
