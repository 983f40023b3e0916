"""Wrong answers that try to be graded as passing: none may pass, none may be an infra error.

Each goes through the runner as a model's reply (HumanEval: chat protocol; Exercism: the edit
loop; YAML cases: the fim protocol), with an honest answer next to them that must still pass.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import Path

import yaml

from codetrial.suites import create_suite
from tests.hardening.conftest import fenced, run_scripted
from tests.hardening.forgeries import EDITING, FILLS, HUMANEVAL
from tests.suites.exercism_fixture import make_exercises

NOT_A_PASS = {"failed", "error", "timeout", "oom"}
RIGHT = "def two_fer(name='you'):\n    return f'One for {name}, one for me.'\n"


def whole(files: dict[str, str]) -> str:
    return "\n".join(f"{path}\n```python\n{text}```\n" for path, text in files.items())


def table(got: dict[str, str]) -> str:
    return "\n".join(f"  {name:64} {verdict}" for name, verdict in got.items())


def test_humaneval_forgeries_do_not_pass(tmp_path, monkeypatch, bubblewrap):
    by_task: dict[str, list[str]] = defaultdict(list)
    for name, (task, _) in HUMANEVAL.items():
        by_task[task].append(name)
    suite = create_suite("humaneval", {})
    honest = {t.id: fenced(suite.reference_code(t)) for t in suite.load_tasks() if t.id in by_task}

    def answer(request) -> str:  # the last sample of each task is honest
        task = next(t for t in by_task if f'def {_entry(t)}(' in str(request.messages))
        names = by_task[task]
        index = request.sample_index
        return fenced(HUMANEVAL[names[index]][1]) if index < len(names) else honest[task]

    samples = max(len(v) for v in by_task.values()) + 1
    run = run_scripted(tmp_path / "runs.sqlite", "humaneval", answer, task_ids=list(by_task),
                       samples=samples, protocol="chat", options={"test_timeout": "3"},
                       monkeypatch=monkeypatch)
    verdicts = {(s.task_id, s.index): s.verdict.value for s in run.samples}
    got = {name: verdicts[(task, by_task[task].index(name))]
           for name, (task, _) in HUMANEVAL.items()}
    print(f"\nforged HumanEval passes ({len(got)}):\n{table(got)}")
    assert {n: v for n, v in got.items() if v not in NOT_A_PASS} == {}
    assert all(verdicts[(task, len(names))] == "passed" for task, names in by_task.items())


def _entry(task_id: str) -> str:
    return {"HumanEval/0": "has_close_elements", "HumanEval/27": "flip_case",
            "HumanEval/2": "truncate_number"}[task_id]


def test_editing_forgeries_do_not_pass(tmp_path, monkeypatch, bubblewrap):
    names = list(EDITING)
    root = make_exercises(tmp_path / "ex", names=["two-fer"])

    def answer(request) -> str:  # the last sample is honest
        index = request.sample_index
        return whole({"two_fer.py": EDITING[names[index]] if index < len(names) else RIGHT})

    run = run_scripted(tmp_path / "runs.sqlite", "exercism", answer, samples=len(names) + 1,
                       options={"path": str(root), "tries": 1, "test_timeout": "10"},
                       monkeypatch=monkeypatch)
    samples = run.by_index()
    got = {name: samples[i].verdict.value for i, name in enumerate(names)}
    print(f"\nforged Exercism passes ({len(got)}):\n{table(got)}")
    assert {n: v for n, v in got.items() if v not in NOT_A_PASS} == {}
    assert samples[len(names)].verdict.value == "passed"


# A value, a Fraction compared by repr (as synthesized doctest cases do), function bodies.
CASES = {
    "median": ("import math\nimport statistics\n\ndata = [7, 1, 5, 3, 20, 2]\nresult = <here>\n",
               "statistics.median(data)",
               "assert result == 4.0, result\nassert math.isclose(result, 4.0)\n"),
    "mean": ("import statistics\nfrom fractions import Fraction\n\n"
             "data = [Fraction(1, 2), Fraction(3, 4)]\nresult = <here>\n",
             "statistics.mean(data)", "got = repr(result)\nassert got == 'Fraction(5, 8)', got\n"
             "assert isinstance(result, Fraction) and result == Fraction(5, 8)\n"),
    "palindrome": ("def is_palindrome(text):\n    return <here>\n",
                   "text.lower() == text.lower()[::-1]",
                   "assert is_palindrome('Level')\nassert not is_palindrome('duck')\n"
                   "assert isinstance(is_palindrome('x'), bool)\n"
                   "assert all(map(is_palindrome, ['noon', 'racecar']))\n"),
    "sorted_copy": ("def sorted_copy(items):\n    return <here>\n", "sorted(items)",
                    "items = [3, 1, 2]\nassert sorted_copy(items) == [1, 2, 3]\n"
                    "assert items == [3, 1, 2], items\n"),
}


def write_cases(root: Path) -> Path:
    root.mkdir()
    for name, (context, solution, test) in CASES.items():
        case = {"name": name, "context": f"# case {name}\n{context}",
                "canonical_solution": solution, "test": test, "meta": {"engine": "python"}}
        (root / f"{name}.yaml").write_text(yaml.safe_dump(case))
    return root


def test_fill_in_forgeries_do_not_pass(tmp_path, monkeypatch, bubblewrap):
    names = list(FILLS)

    def answer(request) -> str:  # the last sample of each case is honest
        case = next(n for n in CASES if f"# case {n}\n" in request.prompt)
        index = request.sample_index
        return FILLS[names[index]] if index < len(names) else CASES[case][1]

    run = run_scripted(tmp_path / "runs.sqlite", "yaml", answer, samples=len(names) + 1,
                       protocol="fim", options={"path": str(write_cases(tmp_path / "cases"))},
                       monkeypatch=monkeypatch)
    got = {f"{s.task_id}: {names[s.index]}": s.verdict.value
           for s in run.samples if s.index < len(names)}
    print(f"\nforged fills ({len(got)}):\n{table(got)}")
    assert {n: v for n, v in got.items() if v not in NOT_A_PASS} == {}
    honest = {s.task_id: s.verdict.value for s in run.samples if s.index == len(names)}
    assert honest == dict.fromkeys(CASES, "passed")
