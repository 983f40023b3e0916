"""Programs that use the modules every worker preloads (`inside/judge.py`, `inside/unittest.py`).

Such a program is one import and one call: it neither ships nor compiles the judging code.
Nothing here knows a task; the suite chooses the function and its arguments.
"""

from __future__ import annotations

JUDGE_MODULE = "codetrial_judge"  # calling the model's code by value
UNITTEST_MODULE = "codetrial_unittest"  # unit tests the model's code cannot fake
# The standard library a worker imports for programs whose imports nobody knows in advance: a
# forked child then finds them loaded instead of paying for them in every program. Not
# threading: once imported, its after-fork handler runs in every child (about 120 page faults,
# 0.4 ms), and few programs start threads; those that do import it in 1 ms.
STDLIB = (
    "abc", "argparse", "array", "ast", "base64", "bisect", "collections", "contextlib", "copy",
    "csv", "dataclasses", "datetime", "decimal", "enum", "fractions", "functools", "hashlib",
    "heapq", "inspect", "io", "itertools", "linecache", "math", "numbers", "operator", "pathlib",
    "random", "re", "statistics", "string", "struct", "tempfile", "textwrap", "traceback",
    "typing", "unittest", "uuid",
)


def judged_program(function: str, *args: object, module: str = JUDGE_MODULE) -> str:
    """A program that calls `<module>.<function>(*args)`. Each argument is a literal on a line
    of its own, so that a traceback quotes the short call line, not the model's code."""
    names = [f"ARG{i}" for i in range(len(args))]
    lines = [f"from {module} import {function}"]
    lines += [f"{name} = {arg!r}" for name, arg in zip(names, args, strict=True)]
    lines.append(f"{function}({', '.join(names)})")
    return "\n".join(lines) + "\n"
