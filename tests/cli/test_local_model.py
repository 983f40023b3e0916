"""The quick start: the embedded model through the real sandbox, and the same through a server."""

import sqlite3

import pytest


@pytest.mark.slow
def test_local_model_stores_every_sample_and_reuses_the_cache(cli, ct_home):
    first = cli("run", "humaneval", "--model", "local", "--limit", "4", "--max-tokens", "48",
                "--json")
    assert first.code == 0, first.stderr
    summary = first.json()
    assert summary["samples"] == 4 and summary["infra_errors"] == 0 and summary["tokens"] > 0
    con = sqlite3.connect(ct_home / "runs.sqlite")
    replies = con.execute("SELECT reply, verdict FROM attempts").fetchall()
    assert len(replies) == 4 and all(r[1] for r in replies)

    second = cli("run", "humaneval", "--model", "local", "--limit", "4", "--max-tokens", "48",
                 "--json")
    details = con.execute(
        "SELECT details FROM attempts WHERE run_id = ?", (second.json()["run_id"],)).fetchall()
    assert all('"cached": true' in d[0] for d in details)
    assert second.json()["passed"] == summary["passed"]


@pytest.mark.slow
def test_chat_run_against_real_openai_compatible_server(cli, llama_server):
    result = cli("run", "humaneval", "--model", "openai:smollm2", "--base-url", llama_server,
                 "--protocol", "chat", "--limit", "3", "--max-tokens", "48", "--json")
    assert result.code == 0, result.stderr
    summary = result.json()
    assert summary["samples"] == 3 and summary["infra_errors"] == 0
    assert summary["model"] == "openai:smollm2" and summary["tokens"] > 0
