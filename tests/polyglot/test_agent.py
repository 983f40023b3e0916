"""The agent protocol in all six languages: a scripted contender that writes the reference
passes, one that writes a wrong solution fails, and the reference contender's own calls pass."""

from __future__ import annotations

import json

from codetrial.store import Store
from tests.polyglot.exercises import ALL


def _script(exercise, files: dict[str, str]) -> list:
    stub = next(iter(exercise.solution))
    return [{"tool": "list_files", "arguments": {"path": "."}},
            {"tool": "read_file", "arguments": {"path": stub}},
            [{"tool": "write_file", "arguments": {"path": p, "content": t}}
             for p, t in files.items()],
            {"tool": "run", "arguments": {"command": "ls -a"}},
            {"tool": "submit"}]


def test_scripted_agents_pass_with_the_reference_and_fail_with_a_wrong_solution(
        cli, poly_root, tmp_path, ct_home):
    script = {e.task_id: _script(e, e.reference() if e.slug == "leap" else e.wrong)
              for e in ALL}
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    result = cli("run", "exercism", "--path", str(poly_root), "--model", f"script:{path}",
                 "--protocol", "agent", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    store = Store(ct_home / "runs.sqlite")
    samples = {s.task_id: s for s in store.load_samples(summary["run_id"])}
    passed = {t: s.passed for t, s in samples.items()}
    assert passed == {e.task_id: e.slug == "leap" for e in ALL}
    assert summary["tries_ended_by"] == {"submit": len(ALL)}
    assert summary["tool_calls"]["run"] == len(ALL) and summary["failed_commands"] == 0
    for sample in samples.values():
        attempt = sample.attempts[0]
        listing = attempt.details["transcript"][0]["calls"][0]["answer"]
        assert "INSTRUCTIONS.md" in listing
        assert not any(t in listing for e in ALL if e.task_id == sample.task_id for t in e.tests)


def test_the_reference_contender_passes_through_its_own_calls(cli, poly_root):
    result = cli("run", "exercism", "--path", str(poly_root), "--model", "reference",
                 "--protocol", "agent", "--languages", "python,go,java,javascript", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["passed"] == summary["tasks"] == 8
    assert summary["failed_commands"] == 0  # its compile checks ran in the sandbox and passed
