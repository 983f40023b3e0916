"""Exercises as messy as the real track: they load (clutter and binary files left out), the
reference passes them in every text edit format, and on wrong solutions (mutants of the examples)
codetrial's verdict is plain unittest's."""

from __future__ import annotations

import ast
import asyncio
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from codetrial.sandbox import Sandbox
from codetrial.suites import create_suite
from tests.suites.exercism_fixture import EXERCISES, make_exercises
from tests.suites.messy_exercises import MESSY, make_messy_exercises

SLUGS = sorted(MESSY)


def test_clutter_is_left_out_of_the_run(tmp_path):
    root = make_messy_exercises(tmp_path / "ex", "track")
    tasks = create_suite("exercism", {"path": str(root)}).load_tasks()
    assert sorted(t.id for t in tasks) == SLUGS
    meter = next(t for t in tasks if t.id == "meter")
    assert sorted(meter.data["pristine"]) == ["meter.py", "meter_test.py", "test_utils.py"]
    assert meter.data["stubs"] == {"meter.py": MESSY["meter"]["solution"]["meter.py"]}


@pytest.mark.parametrize("fmt", ["whole", "diff", "udiff"])
def test_reference_passes_the_messy_exercises(cli, tmp_path, fmt):
    root = make_messy_exercises(tmp_path / "ex", "track")
    result = cli("run", "exercism", "--path", str(root), "--model", "reference",
                 "--edit-format", fmt, "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert (summary["tasks"], summary["passed"]) == (len(SLUGS), len(SLUGS)), summary


# ---------------------------------------------------------------- mutants

FLIPS = {ast.Eq: ast.NotEq, ast.NotEq: ast.Eq, ast.Lt: ast.GtE, ast.GtE: ast.Lt,
         ast.Gt: ast.LtE, ast.LtE: ast.Gt, ast.In: ast.NotIn, ast.NotIn: ast.In,
         ast.Is: ast.IsNot, ast.IsNot: ast.Is}


class _Mutate(ast.NodeTransformer):
    """Changes the `target`-th site: a comparison flipped, or an int constant plus one."""

    def __init__(self, target: int) -> None:
        self.target, self.seen = target, -1

    def _hit(self) -> bool:
        self.seen += 1
        return self.seen == self.target

    def visit_Compare(self, node: ast.Compare) -> ast.AST:  # noqa: N802 - ast's name
        self.generic_visit(node)
        if type(node.ops[0]) in FLIPS and self._hit():
            node.ops = [FLIPS[type(node.ops[0])](), *node.ops[1:]]
        return node

    def visit_Constant(self, node: ast.Constant) -> ast.AST:  # noqa: N802
        if type(node.value) is int and self._hit():
            return ast.copy_location(ast.Constant(node.value + 1), node)
        return node


def mutants(source: str, limit: int = 5) -> list[str]:
    """Up to `limit` mutants, spread over the sites."""
    counter = _Mutate(-1)
    counter.visit(ast.parse(source))
    sites = counter.seen + 1
    chosen = sorted({round(i * (sites - 1) / max(limit - 1, 1)) for i in range(limit)})
    return [ast.unparse(_Mutate(i).visit(ast.parse(source))) + "\n" for i in chosen if sites]


def _specs() -> dict:
    return {**MESSY, **EXERCISES}


def _plain_unittest(exercise: Path, files: dict[str, str], tmp: Path) -> bool:
    """Does plain `python -m unittest` pass the tests on `files`, run in a copy of the exercise?"""
    shutil.rmtree(tmp, ignore_errors=True)
    shutil.copytree(exercise, tmp, ignore=shutil.ignore_patterns(".*"))
    for rel, text in files.items():
        (tmp / rel).write_text(text)
    modules = [Path(p).stem for p in _specs()[exercise.name]["test"]]
    try:
        done = subprocess.run([sys.executable, "-m", "unittest", *modules], cwd=tmp,
                              capture_output=True, timeout=20)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


def test_verdicts_on_mutants_are_plain_unittest_s(tmp_path, bubblewrap):
    root = make_messy_exercises(tmp_path / "ex", "flat")
    make_exercises(root, "flat")
    suite = create_suite("exercism", {"path": str(root), "test_timeout": "20"})
    cases = []
    for task in suite.load_tasks():
        reference = suite.reference_files(task)
        for path, text in reference.items():
            for mutant in mutants(text):
                cases.append((task, {**reference, path: mutant}))
    ours = asyncio.run(_grade_all(suite, cases))
    theirs = [_plain_unittest(root / task.id, files, tmp_path / "plain")
              for task, files in cases]
    differ = [(task.id, i) for i, (task, _) in enumerate(cases) if ours[i] != theirs[i]]
    print(f"\n{len(cases)} mutants, {theirs.count(True)} pass plain unittest")
    assert len(cases) >= 20 and False in theirs
    assert differ == []


async def _grade_all(suite, cases) -> list[bool]:
    async with Sandbox(workers=2) as sandbox:
        grades = await asyncio.gather(*(suite.grade_files(task, files, sandbox)
                                        for task, files in cases))
    return [grade.verdict == "passed" for grade in grades]
