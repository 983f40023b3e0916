"""Which tests a unit-test module defines (read from its source, never run), and each one's
verdict from what the run recorded: a test the files define that never reported fails.

Standalone (stdlib only): part of `codetrial_unittest`."""

from __future__ import annotations

import ast

MAX_MESSAGE = 2000  # characters of a failure's text kept


def verdict_rows(expected: list[str], skippable: set[str], records: dict) -> list[list]:
    """[test id, verdict, message] per test the files define (and any other that reported);
    skipped tests are left out, a defined test that never reported is an error."""
    rows = []
    for test in [*expected, *(t for t in records if t not in expected)]:
        verdict, message = records.get(test) or (
            ("skipped", "") if test in skippable else ("error", "the test did not run"))
        if verdict != "skipped":
            rows.append([test, verdict, message[-MAX_MESSAGE:]])
    return rows


def expected_tests(sources: dict[str, tuple[str, str]]) -> tuple[list[str], set[str]]:
    """Test ids the files define (module.Class.test_method), and those skipped by a decorator."""
    expected: list[str] = []
    skippable: set[str] = set()
    for module, (_, source) in sources.items():
        try:
            tree = ast.parse(source)
        except SyntaxError:
            continue  # importing it will fail and say why
        classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
        for name, node in classes.items():
            if not _is_test_class(node, classes, set()):
                continue
            for method, skipped in _test_methods(node, classes, set()).items():
                test = f"{module}.{name}.{method}"
                expected.append(test)
                if skipped or _skips(node):
                    skippable.add(test)
    return expected, skippable


def _base_names(node: ast.ClassDef) -> list[str]:
    names = []
    for base in node.bases:
        if isinstance(base, ast.Name):
            names.append(base.id)
        elif isinstance(base, ast.Attribute):
            names.append(base.attr)
    return names


def _is_test_class(node: ast.ClassDef, classes: dict, seen: set) -> bool:
    seen.add(node.name)
    return any(b.endswith("TestCase") or (b in classes and b not in seen
                                          and _is_test_class(classes[b], classes, seen))
               for b in _base_names(node))


def _test_methods(node: ast.ClassDef, classes: dict, seen: set) -> dict[str, bool]:
    """test* methods, inherited ones from classes of the same file included: name -> skipped."""
    seen.add(node.name)
    methods: dict[str, bool] = {}
    for base in reversed(_base_names(node)):
        if base in classes and base not in seen:
            methods.update(_test_methods(classes[base], classes, seen))
    for item in node.body:
        if isinstance(item, ast.FunctionDef | ast.AsyncFunctionDef) and item.name.startswith(
                "test"):
            methods[item.name] = _skips(item)
    return methods


def _skips(node: ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    return any("skip" in ast.unparse(d).lower() or "expectedfailure" in ast.unparse(d).lower()
               for d in node.decorator_list)


