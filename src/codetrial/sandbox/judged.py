"""Programs that use the modules every worker preloads (see `_judge.py` and `_unittest.py`).

Such a program is one import and one call: it neither ships nor compiles the judging code.
Nothing here knows a task; the suite chooses the function and its arguments.
"""

from __future__ import annotations

JUDGE_MODULE = "codetrial_judge"  # calling the model's code by value
UNITTEST_MODULE = "codetrial_unittest"  # unit tests the model's code cannot fake


def judged_program(function: str, *args: object, module: str = JUDGE_MODULE) -> str:
    """A program that calls `<module>.<function>(*args)`. Each argument is a literal on a line
    of its own, so that a traceback quotes the short call line, not the model's code."""
    names = [f"ARG{i}" for i in range(len(args))]
    lines = [f"from {module} import {function}"]
    lines += [f"{name} = {arg!r}" for name, arg in zip(names, args, strict=True)]
    lines.append(f"{function}({', '.join(names)})")
    return "\n".join(lines) + "\n"
