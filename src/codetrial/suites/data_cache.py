"""What depends only on a suite's data, computed once and kept in codetrial's home.

One file per data version: `$CODETRIAL_HOME/suite-data/<name>-<key>.json` (JSON entries; other
suffixes hold bytes of the caller's own format, e.g. marshalled code), where `key`
hashes the data's bytes and the code that computes the values, so a change to either rebuilds
the file. A file is read only if it and its folder belong to this user and nobody else may
write them (sandboxed programs run under bubblewrap, which does not show the home at all, or
as other uids), and only if its digest, format and key match; anything else is recomputed and
the file replaced, atomically (a reader sees the old file or the new one, never half of one).
"""

from __future__ import annotations

import hashlib
import json
import os
import stat
import tempfile
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from codetrial.core.private_files import ours_alone

FORMAT = 1


def data_key(*parts: bytes) -> str:
    """A digest of the data and of whatever else the values depend on."""
    return parts_digest(parts, f"codetrial suite data {FORMAT}".encode())


def parts_digest(parts: Iterable[bytes], start: bytes = b"") -> str:
    """sha256 of `start` and of each part with its length first (no two lists collide)."""
    digest = hashlib.sha256(start)
    for part in parts:
        digest.update(len(part).to_bytes(8, "big") + part)
    return digest.hexdigest()


def _digest(body: bytes) -> str:
    return hashlib.sha256(body).hexdigest()


class SuiteDataCache:
    """The stored values of one suite data version, by entry name."""

    def __init__(self, name: str, key: str, home: Path | None = None,
                 suffix: str = ".json") -> None:
        if home is None:
            from codetrial.store.location import home as default_home

            home = default_home()
        self.folder = home / "suite-data"
        self.key = key
        self.path = self.folder / f"{name}-{key[:32]}{suffix}"

    def load(self) -> dict[str, Any]:
        """The stored entries, or {} when there is no file we can trust."""
        body = self.load_bytes()
        try:
            entries = json.loads(body) if body is not None else {}
        except (ValueError, RecursionError):
            return {}
        return entries if isinstance(entries, dict) else {}

    def load_bytes(self) -> bytes | None:
        """The stored body as it was saved, or None when there is no file we can trust."""
        if not (ours_alone(self.folder, stat.S_IFDIR) and ours_alone(self.path, stat.S_IFREG)):
            return None
        try:
            header, _, body = self.path.read_bytes().partition(b"\n")
            if json.loads(header) != self._header(body):
                return None
        except (OSError, ValueError, RecursionError):
            return None
        return body

    def _header(self, body: bytes) -> dict[str, Any]:
        """The first line: what the rest (the entries as JSON) must match."""
        return {"format": FORMAT, "key": self.key, "digest": _digest(body)}

    def save(self, entries: dict[str, Any]) -> None:
        """Replace the file with `entries`; a folder we cannot own leaves nothing written."""
        self.save_bytes(json.dumps(entries, separators=(",", ":")).encode())

    def save_bytes(self, body: bytes) -> None:
        """Replace the file with `body` (what load_bytes gives back)."""
        self.folder.mkdir(mode=0o700, parents=True, exist_ok=True)
        if not ours_alone(self.folder, stat.S_IFDIR):
            return
        header = json.dumps(self._header(body)).encode()
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".tmp-", suffix=self.path.suffix)
        try:
            with os.fdopen(fd, "wb") as fh:
                fh.write(header + b"\n" + body)
            os.replace(tmp, self.path)
        except BaseException:
            Path(tmp).unlink(missing_ok=True)
            raise
