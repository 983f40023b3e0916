"""Bad input: one clear line naming the file (or option) and the field, exit code 2, and the
store exactly as it was: not a byte, run or sample more."""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import sqlite3
import subprocess
import sys
from collections.abc import Callable
from contextlib import closing
from pathlib import Path

import pytest

from tests.suites.exercism_fixture import make_exercises

Setup = Callable[[Path], list[str]]  # builds the bad input under a directory; returns CLI args


def exercism(mutate: Callable[[Path], object]) -> Setup:
    def setup(root: Path) -> list[str]:
        make_exercises(root / "ex", names=["two-fer"])
        mutate(root / "ex" / "two-fer")
        return ["run", "exercism", "--path", str(root / "ex"), "--model", "reference"]
    return setup


def config(files: object) -> Callable[[Path], object]:
    return lambda ex: (ex / ".meta" / "config.json").write_text(json.dumps({"files": files}))


def yaml_case(text: str) -> Setup:
    def setup(root: Path) -> list[str]:
        (root / "cases").mkdir()
        (root / "cases" / "case.yaml").write_text(text)
        return ["run", "yaml", "--path", str(root / "cases"), "--model", "reference"]
    return setup


def gguf(data: bytes) -> Setup:
    def setup(root: Path) -> list[str]:
        (root / "model.gguf").write_bytes(data)
        return ["run", "humaneval", "--model", f"local:{root / 'model.gguf'}", "--limit", "1"]
    return setup


def args(*argv: str) -> Setup:
    return lambda root: list(argv)


GOOD_CASE = ("name: f\ncontext: 'x = <here>'\ncanonical_solution: '1'\ntest: 'assert x == 1'\n"
             "meta: {engine: python}\n")
CASES: dict[str, tuple[Setup, list[str]]] = {
    "exercism config that is not JSON": (
        exercism(lambda ex: (ex / ".meta" / "config.json").write_text("{not json")),
        ["config.json", "invalid JSON"]),
    "exercism config that is a list": (
        exercism(lambda ex: (ex / ".meta" / "config.json").write_text("[1, 2]")),
        ["config.json", "'files'"]),
    "exercism files.solution of the wrong type": (
        exercism(config({"solution": "two_fer.py", "test": ["two_fer_test.py"],
                         "example": [".meta/example.py"]})), ["config.json", "files.solution"]),
    "exercism files.test naming a missing file": (
        exercism(config({"solution": ["two_fer.py"], "test": ["gone_test.py"],
                         "example": [".meta/example.py"]})), ["config.json", "gone_test.py"]),
    "yaml case that is not YAML": (yaml_case("name: [unclosed\n"), ["case.yaml", "YAML"]),
    "yaml case with a field of the wrong type": (
        yaml_case(GOOD_CASE.replace("name: f", "name: 3")), ["case.yaml", "'name'"]),
    "yaml case with an unknown engine": (
        yaml_case(GOOD_CASE.replace("engine: python", "engine: cobol")),
        ["case.yaml", "meta.engine"]),
    "a gguf file that is not one": (gguf(b"NOT A MODEL AT ALL"), ["model.gguf", "GGUF"]),
    "a gguf file with the magic and nothing else": (
        gguf(b"GGUF\x03\x00\x00\x00" + b"\x00" * 64), ["model.gguf", "could not load"]),
    "an option of the wrong type": (
        args("run", "humaneval", "--model", "reference", "-o", "test_timeout=soon"),
        ["test_timeout"]),
    "an option without a value": (
        args("run", "humaneval", "--model", "reference", "-o", "test_timeout"),
        ["test_timeout", "KEY=VALUE"]),
    "a setting out of range": (
        args("run", "humaneval", "--model", "reference", "--temperature", "-1"),
        ["temperature"]),
    "exercism test file that is not UTF-8": (
        exercism(lambda ex: (ex / "two_fer_test.py").write_bytes(b"\xff\xfe not utf-8")),
        ["two_fer_test.py"]),
    "exercism config naming a file outside the exercise": (
        exercism(lambda ex: config({"solution": [_outside(ex)], "test": ["two_fer_test.py"],
                                    "example": [".meta/example.py"]})(ex)),
        ["config.json", "files.solution"]),
    "a protocol the suite cannot use": (
        args("run", "humaneval", "--model", "reference", "--protocol", "fim"), ["fim", "holes"]),
    "an unknown edit format": (
        args("run", "humaneval-edit", "--model", "reference", "--edit-format", "patch"),
        ["edit format", "'patch'"]),
    "zero tries": (args("run", "humaneval-edit", "--model", "reference", "-o", "tries=0"),
                   ["--tries"]),
    "an unknown FIM format": (
        lambda root: [*yaml_case(GOOD_CASE)(root), "--fim-format", "starcoder3"],
        ["fim_format", "'starcoder3'"]),
    "exercism config that is a directory": (
        exercism(lambda ex: ((ex / ".meta" / "config.json").unlink(),
                             (ex / ".meta" / "config.json").mkdir())), ["config.json"]),
}


def _outside(exercise: Path) -> str:
    """A relative path from the exercise to a file of the harness's, outside it."""
    secret = exercise.parents[2] / "harness-secret.txt"
    secret.write_text("the harness's own file")
    return os.path.relpath(secret, exercise)


def digest(home: Path) -> tuple[str, tuple[int, ...]]:
    db = home / "runs.sqlite"
    with closing(sqlite3.connect(db)) as con:
        counts = tuple(con.execute(f"SELECT COUNT(*) FROM {t}").fetchone()[0]
                       for t in ("runs", "samples", "attempts", "test_results"))
    return hashlib.sha256(db.read_bytes()).hexdigest(), counts


@pytest.fixture(scope="module")
def a_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A store holding one finished run (made once, copied into each test's home)."""
    home = tmp_path_factory.mktemp("store")
    env = {**os.environ, "CODETRIAL_HOME": str(home)}
    done = subprocess.run([sys.executable, "-m", "codetrial", "run", "humaneval", "--model",
                           "reference", "--limit", "2"], env=env, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    return home / "runs.sqlite"


@pytest.fixture
def store_with_a_run(a_store: Path, ct_home: Path) -> Path:
    ct_home.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(a_store, ct_home / "runs.sqlite")
    return ct_home


def check_rejected(cli, home: Path, tmp_path: Path, setup: Setup, words: list[str]) -> None:
    before = digest(home)
    result = cli(*setup(tmp_path))
    lines = result.stderr.strip().splitlines()
    assert result.code == 2, result.stderr[-3000:]
    assert len(lines) == 1 and "Traceback" not in result.stderr, result.stderr[-3000:]
    assert all(word in lines[0] for word in words), lines[0]
    assert digest(home) == before  # not a byte, run or sample more


@pytest.mark.parametrize("name", list(CASES))
def test_bad_input_is_one_line_exit_2_and_no_store_change(cli, store_with_a_run, tmp_path, name):
    setup, words = CASES[name]
    check_rejected(cli, store_with_a_run, tmp_path, setup, words)


def test_a_stored_config_of_the_wrong_type_stops_a_resume(cli, store_with_a_run):
    db = store_with_a_run / "runs.sqlite"
    with closing(sqlite3.connect(db)) as con, con:
        [(run_id,)] = con.execute("SELECT run_id FROM runs").fetchall()
        con.execute("UPDATE runs SET config = ? WHERE run_id = ?",
                    (json.dumps({"suite": 5, "samples": "many"}), run_id))
    before = digest(store_with_a_run)
    result = cli("run", "--resume", run_id)
    lines = result.stderr.strip().splitlines()
    assert result.code == 2 and len(lines) == 1 and "'suite'" in lines[0], result.stderr
    assert digest(store_with_a_run) == before
