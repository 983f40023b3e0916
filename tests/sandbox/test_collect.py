"""Program.collect: the workdir's text files come back after the program; links, binaries,
build folders and files over the cap stay behind, named."""

from __future__ import annotations

from codetrial.inside.workfiles import FILE_CAP
from codetrial.sandbox import Limits, Program, Sandbox


def test_the_workdir_comes_back_without_links_binaries_or_builds(bubblewrap):
    script = ("mkdir -p src target && echo fn > src/lib.rs && echo o > target/out && "
              "ln -s /etc/passwd link && ln -s /etc etcdir && printf '\\377\\376' > bin.dat && "
              f"head -c {FILE_CAP + 1} /dev/zero | tr '\\0' a > big.txt && rm given.txt")
    with Sandbox(workers=1) as box:
        out = box.run_sync(Program(argv=("/bin/bash", "-c", script),
                                   files={"given.txt": "x\n", "keep.py": "k\n"}, collect=True),
                           Limits(wall_seconds=20, max_file_mb=8))
        plain = box.run_sync(Program(argv=("/bin/true",)), Limits())
    assert out.status == "ok", out
    assert out.files == {"keep.py": "k\n", "src/lib.rs": "fn\n"}
    assert out.dropped == {"link": "a symbolic link", "etcdir": "a symbolic link",
                           "bin.dat": "not a UTF-8 text file",
                           "big.txt": f"over {FILE_CAP} bytes"}
    assert plain.files is None  # only a program that asks gets its files back


def test_what_cannot_be_read_is_named_and_an_unreadable_workdir_changes_nothing(bubblewrap):
    script = ("mkdir -p secret CMakeFiles/id && echo s > secret/f.py && chmod 000 secret && "
              "echo 'int main(){}' > CMakeFiles/id/CompilerId.cpp && touch $'\\xff.py' && "
              "echo k > keep.py")
    with Sandbox(workers=1) as box:
        out = box.run_sync(Program(argv=("/bin/bash", "-c", script), collect=True), Limits())
        shut = box.run_sync(Program(argv=("/bin/bash", "-c", "chmod 000 ."), collect=True),
                            Limits())
    assert out.files == {"keep.py": "k\n"}  # CMake's own sources stay behind, unnamed
    assert out.dropped == {"secret": "unreadable (Permission denied)",
                           "\\xff.py": "the name is not UTF-8"}
    assert shut.files is None and "unreadable" in shut.dropped["."]
