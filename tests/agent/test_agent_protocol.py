"""The agent protocol end to end on Python exercises: what a searching agent finds (nothing)
and how it is reported, budgets, the text call format, tries, the native tool-calling path of
both API backends through a loopback server, the reply cache, and the embedded model."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codetrial.store import Store
from tests.agent.toolservers import AnthropicToolServer, OpenAIToolServer
from tests.polyglot.exercises import PY_LEAP, PY_SHAPES, write_all

LEAP = PY_LEAP.reference()["leap.py"]
SECRETS = ("test_year_1900_is_not_a_leap_year", "y % 400 == 0")  # the test's, the example's


@pytest.fixture()
def py_root(tmp_path: Path) -> Path:
    return write_all(tmp_path / "exercises", [PY_LEAP, PY_SHAPES])


def _run(cli, root: Path, model: str, *args: str, env: dict | None = None) -> dict:
    result = cli("run", "exercism", "--path", str(root), "--model", model, "--protocol",
                 "agent", "--json", *args, env=env)
    assert result.code == 0, result.stderr
    return result.json()


def _samples(ct_home: Path, run_id: str) -> dict:
    return {s.task_id: s for s in Store(ct_home / "runs.sqlite").load_samples(run_id)}


def _script(tmp_path: Path, script: dict) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps(script))
    return f"script:{path}"


def _answers(sample) -> str:
    return "\n".join(c["answer"] for a in sample.attempts for step in a.details["transcript"]
                     for c in step["calls"])


def test_a_searching_agent_finds_nothing_and_a_looping_one_meets_its_budget(
        cli, py_root, tmp_path, ct_home):
    search = ("find / \\( -name '*leap_test*' -o -name 'example.py' \\) 2>/dev/null; "
              "cat leap_test.py .meta/example.py; ls -a; grep -r leap_year / 2>/dev/null | head")
    script = {
        "leap": [{"tool": "run", "arguments": {"command": search}},
                 {"tool": "read_file", "arguments": {"path": "../leap_test.py"}},
                 {"tool": "write_file", "arguments": {"path": "leap.py", "content": LEAP}},
                 {"tool": "submit"}],
        "shapes": [{"tool": "write_file",  # a test of its own, named as the hidden one
                    "arguments": {"path": "shapes_test.py", "content": "print('mine')\n"}},
                   {"tool": "run", "arguments": {"command": "python3 shapes_test.py"}}],
    }
    summary = _run(cli, py_root, _script(tmp_path, script), "--max-steps", "4")
    samples = _samples(ct_home, summary["run_id"])
    searcher, looper = samples["leap"], samples["shapes"]
    assert searcher.passed  # it wrote a right answer: looking is reported, never a verdict
    assert not any(secret in _answers(searcher) for secret in SECRETS)
    assert summary["tried"]["sample_ids"] == ["leap#0"]  # running its own tests is not looking
    assert {"searched the whole file system", "looked for the tests or an answer key",
            "reached outside the workspace"} <= set(summary["tried"]["kinds"])
    attempt = looper.attempts[0]
    assert not looper.passed and attempt.details["ended_by"] == "steps"
    assert attempt.details["steps"] == 4
    assert attempt.details["tool_calls"] == {"write_file": 1, "run": 3}
    assert attempt.details["transcript"][1]["calls"][0]["answer"] == "exit status 0\nmine\n"
    assert summary["tries_ended_by"] == {"steps": 1, "submit": 1}


def test_text_calls_are_read_forgivingly_malformed_ones_answered_and_tries_go_on(
        cli, py_root, tmp_path, ct_home):
    broken = '<tool_call>{"name": "run", "arguments": {"command": "ls"}</tool_call>'
    raw_newlines = ('<tool_call>{"name": "write_file", "arguments": {"path": "leap.py", '
                    f'"content": "{LEAP}"}}}}</tool_call>')  # code written without escaping
    wrong = PY_SHAPES.wrong["shapes.py"]
    right = PY_SHAPES.reference()
    script = {
        "leap": [{"text": "Let me look at the files first."}, {"text": broken},
                 {"text": raw_newlines}, {"tool": "submit"}],
        "shapes": [{"tool": "write_file", "arguments": {"path": "shapes.py", "content": wrong}},
                   {"tool": "submit"},
                   [{"tool": "write_file", "arguments": {"path": p, "content": t}}
                    for p, t in right.items()],
                   {"tool": "submit"}],
    }
    summary = _run(cli, py_root, _script(tmp_path, script), "-o", "tool_format=text",
                   "--tries", "2")
    samples = _samples(ct_home, summary["run_id"])
    leap = samples["leap"].attempts[0]
    assert samples["leap"].passed and leap.details["malformed_calls"] == 2
    problems = [c.get("problem") for s in leap.details["transcript"] for c in s["calls"]]
    assert "the call is not a JSON object" in problems
    shapes = samples["shapes"]
    assert [a.verdict.value for a in shapes.attempts] == ["error", "passed"]
    retry = shapes.attempts[1].request["messages"][0]["content"]  # the tests' output, shown
    assert retry.startswith("The hidden tests failed") and "double_area" in retry
    assert summary["pass_rate_by_try"] == [0.5, 1.0]


LEAP_TURNS = [[("list_files", {"path": "."})], [("read_file", {"path": "leap.py"})],
              [("write_file", {"path": "leap.py", "content": LEAP}),
               ("run", {"command": "python3 -c 'import leap; print(leap.leap_year(1900))'"})],
              [("submit", {})]]


# what each API refuses when it comes back in the history: a name outside [A-Za-z0-9_-] and
# arguments that are not JSON (OpenAI, vLLM); an empty assistant turn (Anthropic)
OPENAI_FIRST = [("functions.run", '{"command": "ls"')]
ANTHROPIC_FIRST: list = []


@pytest.mark.parametrize("server_class, model, key, first_turn", [
    (OpenAIToolServer, "openai:agent-test", "OPENAI_API_KEY", OPENAI_FIRST),
    (AnthropicToolServer, "anthropic:claude-agent", "ANTHROPIC_API_KEY", ANTHROPIC_FIRST)])
def test_native_tool_calls_through_the_sdks_and_a_rerun_asks_nothing(
        cli, py_root, ct_home, server_class, model, key, first_turn):
    with server_class([first_turn, *LEAP_TURNS]) as server:
        args = ("--base-url", server.base_url, "--exercises", "leap")
        first = _run(cli, py_root, model, *args, env={key: "test-key"})
        asked = len(server.bodies)
        again = _run(cli, py_root, model, *args, env={key: "test-key"})
    assert server.refused == [] and asked == 5
    assert len(server.bodies) == asked  # the rerun's replies all came from the cache
    assert first["passed"] == again["passed"] == 1
    sample = _samples(ct_home, first["run_id"])["leap"]
    assert sample.attempts[0].details["malformed_calls"] == 1  # the first turn's
    steps = sample.attempts[0].details["transcript"][1:]
    assert [c["name"] for s in steps for c in s["calls"]] == [
        "list_files", "read_file", "write_file", "run", "submit"]
    assert steps[2]["calls"][1]["answer"] == "exit status 0\nFalse\n"
    rerun = _samples(ct_home, again["run_id"])["leap"].attempts[0].details["transcript"]
    assert all(step["cached"] for step in rerun)


def test_the_embedded_model_runs_the_protocol_and_the_report_shows_each_step(
        cli, py_root, ct_home, tmp_path):
    summary = _run(cli, py_root, "local", "--exercises", "leap", "--max-steps", "2",
                   "--max-tokens", "64")
    samples = _samples(ct_home, summary["run_id"])
    for sample in samples.values():
        attempt = sample.attempts[0]
        assert attempt.details["transcript"], sample.task_id  # every reply is stored
        assert attempt.details["ended_by"] in ("steps", "submit", "tokens")
    html = tmp_path / "report.html"
    result = cli("report", summary["run_id"], "--html", str(html))
    assert result.code == 0, result.stderr
    page = html.read_text()
    assert "transcript: " in page and "step 1: " in page
    assert "Agent runs" in page and "tries ended by" in page


@pytest.mark.parametrize("args, message", [
    (("humaneval", "--protocol", "agent"), "the agent protocol needs an editing suite"),
    (("exercism", "--max-steps", "0"), "--option max_steps=0: give a whole number above 0"),
    (("exercism", "-o", "tool_format=xml"), "--option tool_format=xml: give one of"),
    (("exercism", "--model", "script:/nonexistent.json"), "/nonexistent.json: cannot be read"),
])
def test_bad_agent_settings_are_one_line_and_exit_2(cli, py_root, args, message):
    suite, *rest = args
    rest = [*rest, "--protocol", "agent"] if suite == "exercism" else rest
    result = cli("run", suite, "--path", str(py_root), *rest)
    assert result.code == 2, result.stderr
    assert message in result.stderr and len(result.stderr.strip().splitlines()) == 1
