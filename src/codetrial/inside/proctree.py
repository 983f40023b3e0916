"""The processes below one process, from each process's parent (read from /proc by the caller).

Standalone (stdlib only): the worker's cleanup uses it as `codetrial_proctree`, the harness's
process helpers (sandbox/procs.py) as `codetrial.inside.proctree`."""

from __future__ import annotations


def below(root: int, parents: dict[int, int]) -> set[int]:
    """Every descendant of `root`; `parents` maps each pid to its parent's."""
    children: dict[int, list[int]] = {}
    for pid, parent in parents.items():
        children.setdefault(parent, []).append(pid)
    found, todo = set(), [root]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return found
