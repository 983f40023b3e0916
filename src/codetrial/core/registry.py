"""A name -> factory registry whose entries register themselves on import.

Every module of the owning package is imported on first lookup, so adding a suite, backend or
protocol is adding one module with a decorator; nothing central needs editing.
"""

from __future__ import annotations

import importlib
import pkgutil
from collections.abc import Callable
from typing import Generic, TypeVar

from codetrial.core.errors import UsageError

T = TypeVar("T")


class Registry(Generic[T]):
    def __init__(self, kind: str, package: str) -> None:
        self.kind = kind
        self.package = package
        self._entries: dict[str, T] = {}
        self._loaded = False

    def register(self, name: str) -> Callable[[T], T]:
        def add(entry: T) -> T:
            self._entries[name] = entry
            return entry

        return add

    def names(self) -> list[str]:
        self._load()
        return sorted(self._entries)

    def get(self, name: str) -> T:
        self._load()
        if name not in self._entries:
            raise UsageError(f"unknown {self.kind} {name!r}: use one of {', '.join(self.names())}")
        return self._entries[name]

    def _load(self) -> None:
        if self._loaded:
            return
        self._loaded = True
        package = importlib.import_module(self.package)
        for info in pkgutil.iter_modules(package.__path__):
            if not info.name.startswith("_"):
                importlib.import_module(f"{self.package}.{info.name}")
