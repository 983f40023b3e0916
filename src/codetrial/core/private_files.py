"""Files codetrial writes for itself and reads back later (caches): trusted only when they are
this user's alone, so that nothing a sandboxed program (another uid) could write is ever read."""

from __future__ import annotations

import os
import stat
from pathlib import Path


def ours_alone(path: Path | str, kind: int) -> bool:
    """`path` is of type `kind` (stat.S_IFDIR or stat.S_IFREG), not a link, owned by us, and
    nobody else may write it."""
    try:
        st = os.lstat(path)
    except OSError:
        return False
    return (stat.S_IFMT(st.st_mode) == kind and st.st_uid == os.geteuid()
            and not st.st_mode & 0o022)
