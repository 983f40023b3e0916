"""End to end through the real command line, the real sandbox and a real SQLite store."""

import os
import signal
import sqlite3
import subprocess
import sys
import time

import pytest


def run_count(home) -> int:
    db = home / "runs.sqlite"
    if not db.exists():
        return 0
    return sqlite3.connect(db).execute("SELECT COUNT(*) FROM runs").fetchone()[0]


def test_reference_passes_all_164(cli):
    result = cli("run", "humaneval", "--model", "reference", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert (summary["tasks"], summary["samples"], summary["passed"]) == (164, 164, 164)
    assert summary["infra_errors"] == 0 and summary["pass_at"]["1"] == 1.0
    again = cli("report", summary["run_id"], "--json")
    assert again.json()["passed"] == 164


def test_reference_chat_protocol_passes(cli):
    result = cli("run", "humaneval", "--model", "reference", "--protocol", "chat", "--limit", "30",
                 "--json")
    assert result.code == 0, result.stderr
    assert result.json()["passed"] == 30


@pytest.mark.parametrize("args,message", [
    (["run", "nosuchsuite"], "unknown suite"),
    (["run", "humaneval", "--model", "nosuch"], "unknown model backend"),
    (["run", "humaneval", "--model", "local:/nonexistent/model.gguf"], "not found"),
    (["run", "humaneval", "--model", "reference", "--tasks", "HumanEval/999"], "unknown task"),
    (["run", "humaneval", "--model", "reference", "--protocol", "nosuch"], "unknown protocol"),
    (["report", "20990101-000000-dead"], "unknown run id"),
    (["run", "--resume", "20990101-000000-dead"], "unknown run id"),
    (["run", "humaneval", "--model", "reference", "-n", "0"], "'samples'"),
    (["run", "humaneval", "--model", "reference", "--executor", "nope"], "'executor'"),
    (["run", "humaneval", "--model", "reference", "--store", "/proc/none/runs.sqlite"],
     "--store /proc/none/runs.sqlite: cannot be opened"),
])
def test_bad_input_is_one_line_and_exit_2(cli, ct_home, args, message):
    result = cli(*args)
    assert result.code == 2, result.stderr
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and message in lines[0] and "Traceback" not in result.stderr
    assert run_count(ct_home) == 0


def test_missing_api_key_and_unreachable_endpoint(cli, ct_home):
    env = {k: v for k, v in os.environ.items() if k != "OPENAI_API_KEY"}
    no_key = cli("run", "humaneval", "--model", "openai:gpt-4o", env={**env, "OPENAI_API_KEY": ""})
    assert no_key.code == 2 and "OPENAI_API_KEY" in no_key.stderr
    from tests.conftest import free_port

    dead = cli("run", "humaneval", "--model", "openai:x", "--base-url",
               f"http://127.0.0.1:{free_port()}/v1")
    assert dead.code == 2, dead.stderr
    # one line, with the real reason (not the SDK's "timed out"), and no unclosed-client noise
    (line,) = dead.stderr.strip().splitlines()
    assert "unreachable" in line and "Connect call failed" in line
    assert run_count(ct_home) == 0


def test_killed_run_resumes_without_loss_or_duplicates(cli, ct_home):
    env = {**os.environ, "CODETRIAL_HOME": str(ct_home)}
    proc = subprocess.Popen(
        [sys.executable, "-m", "codetrial", "run", "humaneval", "--model", "reference",
         "--concurrency", "1", "--workers", "1"],
        env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    db = ct_home / "runs.sqlite"
    deadline = time.time() + 120
    while time.time() < deadline:
        if db.exists():
            try:
                n = sqlite3.connect(db).execute("SELECT COUNT(*) FROM samples").fetchone()[0]
            except sqlite3.OperationalError:
                n = 0
            if n >= 40:
                break
        time.sleep(0.05)
    proc.send_signal(signal.SIGKILL)
    proc.wait()
    con = sqlite3.connect(db)
    run_id, finished = con.execute("SELECT run_id, finished FROM runs").fetchone()
    stored = con.execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    assert finished is None and 40 <= stored < 164
    con.close()

    resumed = cli("run", "--resume", run_id, "--json")
    assert resumed.code == 0, resumed.stderr
    summary = resumed.json()
    assert (summary["samples"], summary["passed"]) == (164, 164)
    con = sqlite3.connect(db)
    keys = con.execute("SELECT task_id, sample_index FROM samples").fetchall()
    assert len(keys) == len(set(keys)) == 164
    assert con.execute("SELECT COUNT(*) FROM attempts").fetchone()[0] == 164
