"""Replies that dodge the task: importing a JSON Schema library, or embedding the schema as data.

Such answers are graded like any other but reported apart: they measure the library, not the
model's translation of the specification.
"""

from __future__ import annotations

import ast
import json
from typing import Any

LIBRARIES = {"jsonschema", "fastjsonschema", "jsonschema_rs", "referencing",
             "jsonschema_specifications", "openapi_schema_validator", "jschon", "jsonspec",
             "validictory", "jsonschema_path", "json_schema"}
LIBRARY_IMPORT = "library-import"
EMBEDDED_SCHEMA = "embedded-schema"


def flags(code: str, schema: Any) -> list[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return []
    found = []
    if imported_libraries(tree):
        found.append(LIBRARY_IMPORT)
    if embeds(tree, schema):
        found.append(EMBEDDED_SCHEMA)
    return found


def imported_libraries(tree: ast.AST) -> set[str]:
    """`import x`, `from x import y`, and `__import__("x")` / `import_module("x")`."""
    names = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(a.name.split(".")[0] for a in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names.add(node.module.split(".")[0])
        elif isinstance(node, ast.Call) and dynamic_import(node):
            names.add(node.args[0].value.split(".")[0])  # type: ignore[attr-defined]
    return names & LIBRARIES


def dynamic_import(call: ast.Call) -> bool:
    func = call.func
    name = func.id if isinstance(func, ast.Name) else getattr(func, "attr", "")
    return (name in ("__import__", "import_module") and bool(call.args)
            and isinstance(call.args[0], ast.Constant) and isinstance(call.args[0].value, str))


def embeds(tree: ast.AST, schema: Any) -> bool:
    """A dict literal, or a JSON string, equal to the schema (its `$schema` line aside)."""
    target = strip_dialect(schema)
    if not isinstance(target, dict) or not target:
        return False
    for node in ast.walk(tree):
        value = literal(node)
        if isinstance(value, dict) and strip_dialect(value) == target:
            return True
    return False


def literal(node: ast.AST) -> Any:
    if isinstance(node, ast.Constant) and isinstance(node.value, str):
        try:
            return json.loads(node.value)
        except ValueError:
            return None
    if isinstance(node, ast.Dict):
        try:
            return ast.literal_eval(node)
        except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
            return None
    return None


def strip_dialect(schema: Any) -> Any:
    if isinstance(schema, dict):
        return {k: v for k, v in schema.items() if k != "$schema"}
    return schema
