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
MAX_FILES = 5_000
BUILD_DIRS = frozenset({  # tools' output: CMake's holds a .cpp with a main() of its own
    ".gocache", ".gopath", ".target", "target", ".cargo-home", ".tmp", ".bin", "build",
    ".gradle", "node_modules", "__pycache__", ".pytest_cache", ".cache", "CMakeFiles"})


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


def collect_files(wd: str, uid: int | None) -> tuple[dict | None, dict]:
    """{relative path: text} of the workdir's files, and {relative path: why not} of those
    left behind (build directories are left unwalked and unnamed). None instead of the files
    when the workdir itself cannot be read: the caller keeps what it had."""
    try:
        os.listdir(wd)
    except OSError as exc:
        return None, {".": f"the working directory is unreadable ({exc.strerror})"}
    files: dict = {}
    dropped: dict = {}
    total = 0

    def unreadable(error: OSError) -> None:
        dropped[os.path.relpath(str(error.filename), wd)] = f"unreadable ({error.strerror})"

    for root, dirs, names in os.walk(wd, onerror=unreadable):
        links = [d for d in dirs if os.path.islink(os.path.join(root, d))]
        dropped.update({_rel(os.path.join(root, d), wd): "a symbolic link" for d in links})
        dirs[:] = sorted(d for d in dirs if d not in BUILD_DIRS and d not in links)
        for name in sorted(names):
            path = os.path.join(root, name)
            rel = _rel(path, wd)
            named = _is_utf8(os.path.relpath(path, wd))
            text, why = _take(path, uid) if named else (None, "the name is not UTF-8")
            if text is not None and total + len(text) > TOTAL_CAP:
                text, why = None, f"over {TOTAL_CAP} bytes in all"
            if text is not None and len(files) >= MAX_FILES:
                text, why = None, f"over {MAX_FILES} files"
            if text is None:
                dropped[rel] = why
            else:
                files[rel] = text
                total += len(text)
    return files, dropped


def _rel(path: str, wd: str) -> str:
    rel = os.path.relpath(path, wd)
    return rel if _is_utf8(rel) else os.fsencode(rel).decode("utf-8", "backslashreplace")


def _is_utf8(name: str) -> bool:
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:  # os.walk hands undecodable bytes over as lone surrogates
        return False
    return True


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
