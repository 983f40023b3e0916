"""What an Exercism run records as its suite version: the track's commit, else a digest."""

from __future__ import annotations

import subprocess

from codetrial.suites import create_suite
from tests.suites.exercism_fixture import make_exercises


def version(root) -> str:
    return create_suite("exercism", {"path": str(root)}).version()


def git(root, *args: str) -> str:
    return subprocess.run(["git", "-C", str(root), "-c", "user.name=t", "-c", "user.email=t@t",
                           *args], check=True, capture_output=True, text=True).stdout.strip()


def test_a_plain_directory_gets_a_digest_of_its_exercise_files(tmp_path):
    root = make_exercises(tmp_path / "ex")
    first = version(root)
    assert first.startswith("exercism sha256:") and first.endswith("(2 exercises)")
    assert version(root) == first
    (root / "two-fer" / "two_fer_test.py").write_text("# changed\n")
    assert version(root) != first


def test_a_checkout_gets_its_commit_and_dirty_when_changed(tmp_path):
    root = make_exercises(tmp_path / "track", "track")
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-q", "-m", "track")
    commit = git(root, "rev-parse", "HEAD")
    assert version(root) == f"exercism git {commit} (2 exercises)"
    (root / "exercises" / "practice" / "two-fer" / "two_fer.py").write_text("# edited\n")
    assert version(root) == f"exercism git {commit}+dirty (2 exercises)"
