"""`python:MODULE`: the doctest examples in the docstrings of a module's public functions.

An example with output becomes a seed: `result = <here>` with the example's expression as the
canonical fill, and the docstring's earlier statements (assignments, imports) as setup. The
case imports the module and the other names the code uses, but not the function under test,
so the context does not give the answer away; the canonical fill names it as `module.name`.
"""

from __future__ import annotations

import ast
import builtins
import doctest
import importlib
from types import ModuleType
from typing import Any

from codetrial.core import UsageError
from codetrial.synth.seeds import Draft, Seed, slug
from codetrial.synth.sources.base import Source, source


@source("python")
class DoctestSource(Source):
    engine = "python"

    def check(self) -> None:
        if not self.arg:
            raise UsageError("source python:MODULE needs a module name, e.g. python:statistics")
        self.module()

    def module(self) -> ModuleType:
        try:
            return importlib.import_module(self.arg)
        except ImportError as exc:
            raise UsageError(f"source {self.spec}: cannot import {self.arg} ({exc})") from None

    def versions(self) -> dict[str, str]:
        found = super().versions()
        version = getattr(self.module(), "__version__", None)
        if isinstance(version, str):
            found[self.arg] = version
        return found

    async def seeds(self, sandbox: Any) -> list[Seed]:
        module = self.module()
        seeds = []
        for test in public_doctests(module):
            function = test.name.removeprefix(module.__name__ + ".")
            seeds += examples_of(module, function, test)
        return seeds

    def hints(self, seed: Seed) -> str:
        return (f"Use `{self.arg}.{seed.function}` from the Python module `{self.arg}`.\n"
                f"Its documentation:\n{seed.info.get('description', '')}")


def public_doctests(module: ModuleType) -> list[doctest.DocTest]:
    """Docstrings of the module's own public objects (not the module's own docstring)."""
    tests = doctest.DocTestFinder(exclude_empty=True).find(module)
    prefix = module.__name__ + "."
    return sorted(
        (t for t in tests if t.name.startswith(prefix)
         and not any(part.startswith("_") for part in t.name[len(prefix):].split("."))),
        key=lambda t: t.name)


def examples_of(module: ModuleType, function: str, test: doctest.DocTest) -> list[Seed]:
    """One seed per example that shows output; output-less statements before it are setup."""
    setup: list[str] = []
    seeds = []
    for example in test.examples:
        if not example.want:
            setup.append(example.source.rstrip("\n"))
            continue
        index = len(seeds) + 1
        seeds.append(Seed(
            id=f"{slug(function)}-{index}", function=function,
            example=example.source.rstrip("\n"), documented=example.want.rstrip("\n"),
            draft=doctest_draft(module, function, setup, example.source),
            info={"description": (test.docstring or "").strip()},
        ))
    return seeds


def doctest_draft(module: ModuleType, function: str, setup: list[str], source: str) -> Draft:
    name = function.split(".")[0]
    setup_code = "\n".join(setup)
    try:
        expression = ast.parse(source, mode="eval")
    except SyntaxError:  # a statement with output: kept as is, the filter will drop it
        return Draft("python", "", "result = <here>", source.strip(), "repr(result)")
    needs = used_names(setup_code) | used_names(source)
    hidden = name not in used_names(setup_code)
    imports = sorted(n for n in needs if n in vars(module) and (n != name or not hidden)
                     and not hasattr(builtins, n) and not _assigned(setup_code, n))
    lines = [f"import {module.__name__}"]
    if imports:
        lines.append(f"from {module.__name__} import {', '.join(imports)}")
    lines += ["", setup_code] if setup_code else []
    canonical = qualify(expression, name, module.__name__) if hidden else expression
    return Draft("python", "\n".join(lines) + "\n", "result = <here>",
                 ast.unparse(canonical), "repr(result)")


def used_names(code: str) -> set[str]:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return set()
    return {n.id for n in ast.walk(tree) if isinstance(n, ast.Name)}


def _assigned(code: str, name: str) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    return any(isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store) and n.id == name
               for n in ast.walk(tree))


def qualify(tree: ast.Expression, name: str, module: str) -> ast.Expression:
    """`mean(x)` -> `statistics.mean(x)`: the fill names what the context does not import."""

    class Qualify(ast.NodeTransformer):
        def visit_Name(self, node: ast.Name) -> ast.AST:
            if node.id != name:
                return node
            return ast.parse(f"{module}.{name}", mode="eval").body

    return ast.fix_missing_locations(Qualify().visit(tree))
