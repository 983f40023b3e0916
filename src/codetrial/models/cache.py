"""A response cache in SQLite: a rerun never asks a model again for what it already answered.

The key is the whole request (backend, model, messages or prompt, sampling parameters, sample
index), so changing any of them asks again. Infra errors are never cached.
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
import threading
from pathlib import Path

from codetrial.models.base import Model, ModelWrapper, Reply, Request


def request_key(model_name: str, request: Request) -> str:
    payload = json.dumps(
        {"model": model_name, **request.cache_key_fields()}, sort_keys=True, default=str
    )
    return hashlib.sha256(payload.encode()).hexdigest()


class ResponseCache:
    def __init__(self, path: Path) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        self._db = sqlite3.connect(path, check_same_thread=False, isolation_level=None)
        self._db.execute("PRAGMA journal_mode=WAL")
        self._db.execute(
            "CREATE TABLE IF NOT EXISTS replies (key TEXT PRIMARY KEY, model TEXT, reply TEXT)"
        )
        self._lock = threading.Lock()

    def get(self, key: str) -> Reply | None:
        with self._lock:
            row = self._db.execute("SELECT reply FROM replies WHERE key = ?", (key,)).fetchone()
        return Reply.from_dict(json.loads(row[0])) if row else None

    def put(self, key: str, model: str, reply: Reply) -> None:
        with self._lock:
            self._db.execute(
                "INSERT OR REPLACE INTO replies VALUES (?, ?, ?)",
                (key, model, json.dumps(reply.to_dict())),
            )

    def close(self) -> None:
        self._db.close()


class CachedModel(ModelWrapper):
    """Wraps a backend; answers from the cache when the identical request was seen before."""

    def __init__(self, inner: Model, cache: ResponseCache) -> None:
        super().__init__(inner)
        self.cache = cache

    async def generate(self, request: Request) -> Reply:
        key = request_key(self.name, request)
        hit = self.cache.get(key)
        if hit is not None:
            hit.cached = True
            return hit
        reply = await self.inner.generate(request)
        self.cache.put(key, self.name, reply)
        return reply
