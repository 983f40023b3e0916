"""Where codetrial keeps its files: $CODETRIAL_HOME, else the user data directory; downloads in
$CODETRIAL_CACHE, else the user cache directory."""

from __future__ import annotations

import os
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from codetrial.store.sqlite import Store


def home() -> Path:
    return Path(os.environ.get("CODETRIAL_HOME") or _user_dir("data"))


def cache_dir() -> Path:
    """$CODETRIAL_CACHE wins so that tests never touch the user's cache."""
    return Path(os.environ.get("CODETRIAL_CACHE") or _user_dir("cache"))


def _user_dir(kind: str) -> str:
    """platformdirs is imported only when no variable names the directory: a sandbox start
    needs these paths before anything else, and the import costs 15 ms."""
    import platformdirs

    find = platformdirs.user_data_dir if kind == "data" else platformdirs.user_cache_dir
    return find("codetrial")


def open_store(path: Path | None = None) -> Store:
    from codetrial.store.sqlite import Store

    return Store(path or home() / "runs.sqlite")
