"""Solutions that take the expected values from the tests instead of solving the task: none may
pass, each attempt that can be seen is named in the sample's "tried", and honest answers
interleaved with them pass (with nothing tried)."""

from __future__ import annotations

from collections import defaultdict

from tests.hardening.cheats import CHEATS, RIGHT
from tests.hardening.conftest import run_scripted
from tests.hardening.test_forged_passes import NOT_A_PASS, table, whole
from tests.suites.exercism_fixture import make_exercises
from tests.suites.messy_exercises import CELLS_EXAMPLE, make_messy_exercises

HONEST = {**RIGHT, "cells": CELLS_EXAMPLE}
STUB = {"two-fer": "two_fer.py", "cells": "cells.py"}


def test_cheats_do_not_pass_and_are_named(tmp_path, monkeypatch, bubblewrap):
    by_task: dict[str, list[str]] = defaultdict(list)
    for name, (task, _, _) in CHEATS.items():
        by_task[task].append(name)
    root = make_exercises(tmp_path / "ex", "track", names=["two-fer"])
    make_messy_exercises(root, "track", names=["cells"])

    def answer(request) -> str:  # even samples cheat, odd ones are honest
        task = next(t for t, stub in STUB.items() if stub in str(request.messages))
        index, names = request.sample_index, by_task[task]
        if index % 2 or index // 2 >= len(names):
            return whole({STUB[task]: HONEST[task]})
        return whole({STUB[task]: CHEATS[names[index // 2]][1]})

    samples = 2 * max(len(v) for v in by_task.values())
    run = run_scripted(tmp_path / "runs.sqlite", "exercism", answer, samples=samples,
                       options={"path": str(root), "tries": 1, "test_timeout": "20"},
                       monkeypatch=monkeypatch)
    by_key = {(s.task_id, s.index): s for s in run.samples}
    got, tried = {}, {}
    for name, (task, _, _) in CHEATS.items():
        sample = by_key[(task, 2 * by_task[task].index(name))]
        got[name] = sample.verdict.value
        tried[name] = sample.attempts[-1].details.get("tried", [])
    print(f"\ncheats ({len(got)}):\n{table(got)}")
    print("\n".join(f"  {name}: {items}" for name, items in tried.items()))
    assert {n: v for n, v in got.items() if v not in NOT_A_PASS} == {}
    missing = {name: tried[name] for name, (_, _, seen) in CHEATS.items()
               if seen and not any(item.startswith(seen) for item in tried[name])}
    assert missing == {}
    honest = [s for s in run.samples if s.index % 2 or s.index // 2 >= len(by_task[s.task_id])]
    assert {s.verdict.value for s in honest} == {"passed"}
    assert [s.attempts[-1].details.get("tried") for s in honest if
            s.attempts[-1].details.get("tried")] == []
