"""What a program left in its working directory, read back for the harness (`collect`).

An agent's commands change its workspace; the next command, and the grader, start from what
they left. Read only after every process of the program is gone (nothing can swap a file
mid-walk), never through a symbolic link (a link to a file outside would show it to the
harness), only files of the program's uid (never a hard link to another's), and only text:
a build's output, a binary or a file over the caps stays behind and is named in `dropped`.
"""

import os
import stat

FILE_CAP = 1_000_000  # bytes of one file brought back
TOTAL_CAP = 8_000_000  # bytes of all of them
BUILD_DIRS = frozenset({
    ".gocache", ".gopath", ".target", "target", ".cargo-home", ".tmp", ".bin", "build",
    ".gradle", "node_modules", "__pycache__", ".pytest_cache", ".cache"})


def _read_text(path: str) -> str | None:
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        data = os.read(fd, FILE_CAP + 1)
    finally:
        os.close(fd)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def collect_files(wd: str, uid: int | None) -> tuple[dict, dict]:
    """{relative path: text} of the workdir's files, and {relative path: why not} of those
    left behind (build directories are left unwalked and unnamed)."""
    files: dict = {}
    dropped: dict = {}
    total = 0
    for root, dirs, names in os.walk(wd):
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        dropped.update({os.path.relpath(os.path.join(root, d), wd): "a symbolic link"
                        for d in links})
        dirs[:] = sorted(d for d in dirs if d not in BUILD_DIRS and d not in links)
        for name in sorted(names):
            path = os.path.join(root, name)
            rel = os.path.relpath(path, wd)
            text, why = _take(path, uid)
            if text is not None and total + len(text) > TOTAL_CAP:
                text, why = None, f"over {TOTAL_CAP} bytes in all"
            if text is None:
                dropped[rel] = why
            else:
                files[rel] = text
                total += len(text)
    return files, dropped


def _take(path: str, uid: int | None) -> tuple[str | None, str]:
    """A file's text, or None and why it stays behind."""
    try:
        info = os.lstat(path)
        if stat.S_ISLNK(info.st_mode):
            return None, "a symbolic link"
        if uid is not None and info.st_uid != uid:
            return None, "not the program's file"
        if info.st_size > FILE_CAP:
            return None, f"over {FILE_CAP} bytes"
        text = _read_text(path)
    except OSError as exc:
        return None, f"unreadable ({exc.strerror})"
    return text, "" if text is not None else "not a UTF-8 text file"
