"""A command imports what it uses: `--help` and `run humaneval` leave the other commands', suites'
and backends' modules (and their libraries) unloaded."""

from __future__ import annotations

import json
import os
import subprocess
import sys

# Runs the command as `python -m codetrial` does and writes the modules loaded when it exits.
PROBE = """
import atexit, json, runpy, sys
out, sys.argv = sys.argv[1], ["codetrial", *sys.argv[2:]]
atexit.register(lambda: open(out, "w").write(json.dumps(sorted(sys.modules))))
runpy.run_module("codetrial", run_name="__main__")
"""


def imported(home, *args: str) -> tuple[set[str], subprocess.CompletedProcess]:
    listing = home.parent / "modules.json"
    env = {**os.environ, "CODETRIAL_HOME": str(home)}
    proc = subprocess.run([sys.executable, "-c", PROBE, str(listing), *args],
                          capture_output=True, text=True, env=env, timeout=600)
    return set(json.loads(listing.read_text())), proc


NEVER_FOR_RUN = {"codetrial.perf", "codetrial.synth", "codetrial.suites.jsonschema",
                 "codetrial.report.html_report", "jsonschema", "anthropic", "openai", "duckdb",
                 "codetrial.models.anthropic_api", "codetrial.models.openai_compat", "pydantic"}


def test_help_imports_neither_the_runner_nor_the_sub_apps(ct_home):
    names, proc = imported(ct_home, "--help")
    assert proc.returncode == 0 and "perf" in proc.stdout and "synth" in proc.stdout
    unwanted = NEVER_FOR_RUN | {"codetrial.store", "pydantic", "asyncio"}
    assert not names & unwanted, names & unwanted
    runner = {n for n in names if n.startswith("codetrial.runner.")}
    assert runner <= {"codetrial.runner.defaults"}, runner  # the default worker count only


def test_a_sub_app_is_imported_when_named(ct_home):
    names, proc = imported(ct_home, "perf", "--help")
    assert proc.returncode == 0 and "jsonschema" in proc.stdout
    assert "codetrial.perf.cli" in names and "codetrial.synth" not in names


def test_run_humaneval_imports_only_what_it_uses(ct_home):
    names, proc = imported(ct_home, "run", "humaneval", "--model", "reference", "--limit", "2",
                           "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert '"passed": 2' in proc.stdout
    assert not names & NEVER_FOR_RUN, names & NEVER_FOR_RUN


def test_a_run_logged_to_a_file_prints_plain_lines_without_rich(ct_home):
    """stderr is a pipe here, as in CI logs: no live bar (and no rich to import for it), but
    the run's line and a last progress line, whole."""
    names, proc = imported(ct_home, "run", "humaneval", "--model", "reference", "--limit", "3",
                           "--json")
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert not {n for n in names if n == "rich" or n.startswith("rich.")}
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("run ") and lines[0].endswith("3 tasks x 1 samples, 3 to do")
    assert lines[-1].startswith("samples 3/3 pass 100.0% ")
