"""Compiled copies of the files every bubblewrap worker runs (the worker and the modules it
preloads), so that no worker start compiles them again (about 50 ms of CPU each time).

They live in the user's cache, one folder per content: `<cache>/bytecode/<tag>-<digest>/`
holds `<name>.<tag>.pyc` for each file, compiled with the path the file has inside the sandbox
(tracebacks name it). A folder is written once, under a temporary name, and renamed into place
whole; it is used only while it and every file in it are this user's alone. The modules' pycs
check their source's hash when loaded, so even a wrong file costs a compile, never other code;
the worker's pyc runs as the worker's main file, which is why its folder is named by content.
"""

from __future__ import annotations

import hashlib
import os
import py_compile
import shutil
import stat
import sys
import tempfile
from pathlib import Path

from codetrial.core.private_files import ours_alone

TAG = sys.implementation.cache_tag


def pyc_name(name: str) -> str:
    """What SourceFileLoader looks for beside `<name>.py`: `__pycache__/<name>.<tag>.pyc`."""
    return f"{name}.{TAG}.pyc"


def compiled(sources: dict[str, tuple[str, str]], root: Path | None = None) -> Path | None:
    """The folder of pycs for `sources` (name -> (host path, path inside the sandbox)), made
    now if needed; None when it cannot be made or trusted (workers then compile as before)."""
    if TAG is None:
        return None
    try:
        contents = {name: Path(host).read_bytes() for name, (host, _) in sources.items()}
        base = (root or _default_root()) / "bytecode"
        base.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not ours_alone(base, stat.S_IFDIR):
            return None
        folder = base / f"{TAG}-{_digest(sources, contents)}"
        if not folder.exists():
            _write(folder, sources)
        return folder if _trusted(folder, sources) else None
    except (OSError, py_compile.PyCompileError, SyntaxError):
        return None


def _default_root() -> Path:
    from codetrial.store.location import cache_dir

    return cache_dir()


def _digest(sources: dict[str, tuple[str, str]], contents: dict[str, bytes]) -> str:
    digest = hashlib.sha256(sys.version.encode())
    for name in sorted(sources):
        for part in (name.encode(), sources[name][1].encode(), contents[name]):
            digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()[:32]


def _write(folder: Path, sources: dict[str, tuple[str, str]]) -> None:
    staging = Path(tempfile.mkdtemp(dir=folder.parent, prefix=".tmp-"))
    try:
        for name, (host, inside) in sources.items():
            py_compile.compile(host, cfile=str(staging / pyc_name(name)), dfile=inside,
                               doraise=True,
                               invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH)
        os.chmod(staging, 0o755)  # bwrap binds it read-only; programs may read our modules
        os.rename(staging, folder)
    except OSError:
        if not folder.exists():  # another process renamed its copy in first: use that one
            raise
    finally:
        shutil.rmtree(staging, ignore_errors=True)


def _trusted(folder: Path, sources: dict[str, tuple[str, str]]) -> bool:
    files = [folder / pyc_name(name) for name in sources]
    return ours_alone(folder, stat.S_IFDIR) and all(ours_alone(f, stat.S_IFREG) for f in files)
