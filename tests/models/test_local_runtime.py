"""The embedded model's runtime lives in a child process: its crashes are errors, not a dead
harness."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codetrial.core import InfraError, UsageError
from codetrial.models import Request, create_model, llama_runtime
from codetrial.models.llama_runtime import LlamaRuntime, RuntimeDied, cpu_features, probe
from codetrial.models.local import default_gguf_path

PROMPT = Request(kind="completion", prompt="def add(a, b):\n", max_tokens=8)


@pytest.fixture
def crashing_child(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    """Make every new runtime a process that dies with `sig` as soon as it starts."""

    def use(sig: signal.Signals) -> None:
        script = tmp_path / "child.py"
        script.write_text(f"import os, signal\nos.kill(os.getpid(), signal.{sig.name})\n")
        monkeypatch.setattr(llama_runtime, "CHILD", script)
        monkeypatch.setattr(llama_runtime, "_SHARED", {})

    return use


def test_a_killed_runtime_is_an_infra_error_and_the_next_request_restarts_it(capfd):
    runtime = LlamaRuntime(default_gguf_path(), 512)
    model = create_model("local")
    model.runtime = runtime
    try:
        first = asyncio.run(model.generate(PROMPT))
        os.kill(runtime.pid, signal.SIGKILL)
        with pytest.raises(InfraError, match="SIGKILL"):
            asyncio.run(model.generate(PROMPT))
        lines = capfd.readouterr().err.strip().splitlines()
        assert len(lines) == 1 and "runtime" in lines[0] and "infra error" in lines[0]
        assert asyncio.run(model.generate(PROMPT)).text == first.text  # a fresh runtime
    finally:
        runtime.close()


@pytest.mark.parametrize("sig", [signal.SIGILL, signal.SIGSEGV])
def test_a_runtime_that_dies_at_start_is_a_usage_error_naming_the_signal(crashing_child, sig):
    crashing_child(sig)
    model = create_model("local")
    with pytest.raises(UsageError, match=sig.name):
        asyncio.run(model.check())
    if sig == signal.SIGILL:
        with pytest.raises(UsageError, match="build_llama.sh"):
            asyncio.run(model.check())


def test_a_runtime_that_keeps_dying_is_not_restarted_forever(crashing_child):
    crashing_child(signal.SIGSEGV)
    model = create_model("local")
    for _ in range(llama_runtime.MAX_RESTARTS + 1):
        with pytest.raises(RuntimeDied, match="SIGSEGV"):
            model.runtime.request({"op": "tokenize", "text": "x"})
    started = time.perf_counter()
    with pytest.raises(RuntimeDied, match="not restarted"):
        model.runtime.request({"op": "tokenize", "text": "x"})
    assert time.perf_counter() - started < 1


def test_the_cli_says_one_line_and_exits_2_when_the_runtime_cannot_start(
        crashing_child, monkeypatch, capsys, ct_home):
    from codetrial import cli

    crashing_child(signal.SIGILL)
    monkeypatch.setattr(sys, "argv", ["codetrial", "run", "humaneval", "--model", "local",
                                      "--limit", "1"])
    with pytest.raises(SystemExit) as exited:
        cli.main()
    assert exited.value.code == 2
    lines = capsys.readouterr().err.strip().splitlines()
    assert len(lines) == 1 and "SIGILL" in lines[0]
    store = ct_home / "runs.sqlite"
    assert not store.exists() or sqlite3.connect(store).execute(
        "SELECT COUNT(*) FROM runs").fetchone() == (0,)


def test_probe_generates_and_names_the_cpu_features():
    result = probe(default_gguf_path())
    assert result.ok, result.detail
    assert "generated" in result.detail
    features = result.features.split()
    assert "AMX_INT8" not in features and "AVX512" not in features  # the portable build


def test_cpu_features_reads_llama_cpp_system_info():
    info = "CPU : SSE3 = 1 | AVX = 1 | AVX2 = 1 | AVX512 = 0 | AMX_INT8 = 0 | OPENMP = 1 |"
    assert cpu_features(info) == "SSE3 AVX AVX2 OPENMP"


def test_doctor_checks_that_the_runtime_generates(cli):
    good = cli("doctor", "--runtime-only")
    assert good.code == 0, good.stdout + good.stderr
    assert "llama.cpp runtime: generated" in good.stdout.replace("\n", " ")
    assert "llama.cpp CPU features:" in good.stdout and "AVX2" in good.stdout


def _runtime_child_of(pid: int) -> int | None:
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            cmdline = Path(f"/proc/{entry}/cmdline").read_bytes()
            ppid = int(Path(f"/proc/{entry}/stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            continue
        if ppid == pid and b"_llama_child.py" in cmdline:
            return int(entry)
    return None


def _stored(store: Path) -> int:
    try:
        return sqlite3.connect(store).execute("SELECT COUNT(*) FROM samples").fetchone()[0]
    except sqlite3.Error:
        return 0


@pytest.mark.slow
def test_killing_the_runtime_mid_run_loses_nothing_and_resume_completes(ct_home, cli):
    args = ["run", "humaneval", "--model", "local", "--limit", "6", "--max-tokens", "96",
            "--no-cache", "--json"]
    proc = subprocess.Popen([sys.executable, "-m", "codetrial", *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            env={**os.environ, "CODETRIAL_HOME": str(ct_home)})
    deadline = time.time() + 300
    while _stored(ct_home / "runs.sqlite") < 1 and time.time() < deadline:
        time.sleep(0.2)
    child = _runtime_child_of(proc.pid)
    assert child is not None, "the runtime runs in a child process of the harness"
    os.kill(child, signal.SIGKILL)
    stdout, stderr = proc.communicate(timeout=600)
    assert proc.returncode == 0, stderr
    said = [line for line in stderr.splitlines() if "runtime" in line]
    assert len(said) == 1 and "SIGKILL" in said[0], stderr
    first = json.loads(stdout)
    assert first["samples"] == 6 and first["infra_errors"] == 1

    resumed = cli("run", "--resume", first["run_id"], "--json")
    assert resumed.code == 0, resumed.stderr
    summary = resumed.json()
    assert summary["run_id"] == first["run_id"]
    assert summary["samples"] == 6 and summary["infra_errors"] == 0
