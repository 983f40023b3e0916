"""The sandbox's /etc/hosts, /etc/passwd and /etc/group copies: named by their content in one
folder per harness uid, so a harness that is killed leaves nothing new in the temp dir."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from codetrial.sandbox import bwrap

HARNESS = """
from codetrial.sandbox import Program, Sandbox
with Sandbox(workers=1, mode="bubblewrap") as sandbox:
    out = sandbox.run_sync(Program(code="import time; time.sleep(600)"))
"""


def etc_folders() -> set[str]:
    return {n for n in os.listdir(tempfile.gettempdir()) if n.startswith(bwrap.ETC_DIR_PREFIX)}


@pytest.fixture
def fresh_cache(tmp_path: Path) -> Iterator[Path]:
    """The etc folder looked for again, under `tmp_path` as the temp dir."""
    before = tempfile.tempdir
    tempfile.tempdir = str(tmp_path)
    bwrap._etc_dir.cache_clear()
    bwrap._etc_file.cache_clear()
    try:
        yield tmp_path
    finally:
        tempfile.tempdir = before
        bwrap._etc_dir.cache_clear()
        bwrap._etc_file.cache_clear()


def test_a_killed_harness_leaves_no_new_folder(bubblewrap: None) -> None:
    bwrap.etc_binds(None)  # this process's folder exists before we count
    before = etc_folders()
    harness = subprocess.Popen([sys.executable, "-c", HARNESS])
    try:
        deadline = 240  # half-second waits: generous for a loaded machine
        while deadline and not any(p.name == "bwrap" for p in children(harness.pid)):
            deadline -= 1
            subprocess.run(["sleep", "0.5"])
        assert deadline, "the harness started no sandbox"
    finally:
        harness.kill()
        harness.wait()
    assert etc_folders() == before


def children(pid: int) -> list[Path]:
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and (entry / "stat").read_text().split()[3] == str(pid):
                found.append(Path((entry / "comm").read_text().strip()))
        except OSError:
            continue
    return found


def test_files_are_named_by_their_content_and_made_once(fresh_cache: Path) -> None:
    a, b = bwrap._etc_file("hosts", "one\n"), bwrap._etc_file("hosts", "two\n")
    assert a != b and Path(a).read_text() == "one\n" and Path(b).read_text() == "two\n"
    assert Path(a).parent == fresh_cache / f"{bwrap.ETC_DIR_PREFIX}{os.getuid()}"
    inode = os.stat(a).st_ino
    bwrap._etc_file.cache_clear()  # another harness, the same text: the same file, untouched
    assert bwrap._etc_file("hosts", "one\n") == a and os.stat(a).st_ino == inode
    assert sorted(p.name for p in Path(a).parent.iterdir()) == sorted(
        [Path(a).name, Path(b).name])


def test_a_changed_file_is_written_again(fresh_cache: Path) -> None:
    path = Path(bwrap._etc_file("passwd-1", "root:x:0:0::/root:/bin/sh\n"))
    path.chmod(0o644)
    path.write_text("intruder:x:0:0::/:/bin/sh\n")
    bwrap._etc_file.cache_clear()
    assert Path(bwrap._etc_file("passwd-1", "root:x:0:0::/root:/bin/sh\n")) == path
    assert path.read_text() == "root:x:0:0::/root:/bin/sh\n"


@pytest.mark.parametrize("mode", [0o777, 0o775])
def test_a_folder_others_may_write_is_passed_over(fresh_cache: Path, mode: int) -> None:
    shared = fresh_cache / f"{bwrap.ETC_DIR_PREFIX}{os.getuid()}"
    shared.mkdir()
    shared.chmod(mode)
    path = Path(bwrap._etc_file("hosts", "one\n"))
    assert path.parent != shared and path.parent.parent == fresh_cache
    assert list(shared.iterdir()) == []


def test_a_link_in_its_place_is_passed_over(fresh_cache: Path) -> None:
    target = fresh_cache / "elsewhere"
    target.mkdir(mode=0o755)
    (fresh_cache / f"{bwrap.ETC_DIR_PREFIX}{os.getuid()}").symlink_to(target)
    path = Path(bwrap._etc_file("hosts", "one\n"))
    assert path.parent.parent == fresh_cache and path.parent != target
    assert list(target.iterdir()) == []
