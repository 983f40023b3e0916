"""A name -> factory registry whose entries register themselves on import.

Adding a suite, backend or protocol is adding one module with a decorator; nothing central needs
editing. A lookup imports the module named after the entry, else only the module whose source
carries `@decorator("name")` (found by reading the package's files, not importing them: a
command that runs HumanEval should not pay for every backend's SDK); when that does not
register the name either, every module is imported.
"""

from __future__ import annotations

import functools
import importlib
import importlib.util
import pkgutil
import re
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Generic, TypeVar

from codetrial.core.errors import UsageError

T = TypeVar("T")
_DECORATED = re.compile(r"""^@\w+\(\s*["']([^"']+)["']""", re.M)


class Registry(Generic[T]):
    def __init__(self, kind: str, package: str) -> None:
        self.kind = kind
        self.package = package
        self._entries: dict[str, T] = {}
        self._loaded = False
        self._lock = threading.RLock()  # a lookup may run in two threads (see runner.early)

    def register(self, name: str) -> Callable[[T], T]:
        def add(entry: T) -> T:
            self._entries[name] = entry
            return entry

        return add

    def names(self) -> list[str]:
        self._load()
        return sorted(self._entries)

    def get(self, name: str) -> T:
        if name not in self._entries:
            self._load_one(name)
        if name not in self._entries:
            raise UsageError(f"unknown {self.kind} {name!r}: use one of {', '.join(self.names())}")
        return self._entries[name]

    def _load_one(self, name: str) -> None:
        with self._lock:
            namesake = self._namesake(name)
            if namesake is not None:
                importlib.import_module(namesake)
            if name not in self._entries:
                module = _decorated_names(self.package).get(name)
                if module is not None:
                    importlib.import_module(module)
            if name not in self._entries:
                self._load()

    def _namesake(self, name: str) -> str | None:
        """The module named after the entry (`humaneval-edit`: humaneval_edit), if there is
        one: most entries live there, and looking it up reads no source (a command's start
        paid 5 to 10 ms a registry for reading them all)."""
        stem = name.replace("-", "_")
        if not stem.isidentifier():
            return None
        module = f"{self.package}.{stem}"
        try:
            return module if importlib.util.find_spec(module) is not None else None
        except ImportError:
            return None

    def _load(self) -> None:
        with self._lock:
            if self._loaded:
                return
            package = importlib.import_module(self.package)
            for info in pkgutil.iter_modules(package.__path__):
                if not info.name.startswith("_"):
                    importlib.import_module(f"{self.package}.{info.name}")
            self._loaded = True


@functools.cache
def _decorated_names(package_name: str) -> dict[str, str]:
    """name -> module for each `@decorator("name")` line in the package's sources."""
    package = importlib.import_module(package_name)
    found: dict[str, str] = {}
    for info in pkgutil.iter_modules(package.__path__):
        if info.name.startswith("_"):
            continue
        root = Path(package.__path__[0]) / info.name
        files = sorted(root.rglob("*.py")) if info.ispkg else [root.with_suffix(".py")]
        for file in files:
            module = ".".join((package_name, *file.relative_to(root.parent).with_suffix("").parts))
            try:
                text = file.read_text(encoding="utf-8")
            except OSError:  # no source shipped: the full import finds it
                continue
            for name in _DECORATED.findall(text):
                found.setdefault(name, module.removesuffix(".__init__"))
    return found
