"""Where codetrial keeps its files: $CODETRIAL_HOME, else the user data directory; downloads in
$CODETRIAL_CACHE, else the user cache directory."""

from __future__ import annotations

import os
from pathlib import Path

from platformdirs import user_cache_dir, user_data_dir

from codetrial.store.sqlite import Store


def home() -> Path:
    return Path(os.environ.get("CODETRIAL_HOME") or user_data_dir("codetrial"))


def cache_dir() -> Path:
    """$CODETRIAL_CACHE wins so that tests never touch the user's cache."""
    return Path(os.environ.get("CODETRIAL_CACHE") or user_cache_dir("codetrial"))


def open_store(path: Path | None = None) -> Store:
    return Store(path or home() / "runs.sqlite")
