"""Where seeds come from: a library's own documentation, one module per source."""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from codetrial.core.registry import Registry
from codetrial.synth.engines import ENGINES, Engine

if TYPE_CHECKING:
    from codetrial.synth.seeds import Seed


class Source(ABC):
    """`spec` is what the user typed (`duckdb`, `python:statistics`); `arg` what follows `:`."""

    engine: str

    def __init__(self, spec: str, arg: str) -> None:
        self.spec = spec
        self.arg = arg
        self.only: list[str] = []  # restrict to these functions (empty: all)

    @property
    def runtime(self) -> Engine:
        return ENGINES[self.engine]

    def check(self) -> None:
        """Raise UsageError, saying what to install, when the source cannot be read here."""
        self.runtime.check()

    def versions(self) -> dict[str, str]:
        return self.runtime.versions()

    def settings(self) -> dict[str, Any]:
        return dict(self.runtime.settings)

    @abstractmethod
    async def seeds(self, sandbox: Any) -> list[Seed]:
        """Every documented example, in a stable order (the sandbox runs what must run)."""

    def matches(self, seed: Seed, output: Any) -> bool:
        """Whether the output equals what the docs show (compared as text), where they show it."""
        return seed.documented is None or output == seed.documented

    def is_alias(self, seed: Seed) -> bool:
        return False

    def test_key(self, seed: Seed) -> str:
        """Two seeds with the same key are the same test."""
        return seed.draft.setup + "\0" + seed.draft.canonical

    @abstractmethod
    def hints(self, seed: Seed) -> str:
        """The function's name and definition, given to the validating model."""


SourceFactory = Callable[[str, str], Source]
SOURCES: Registry[SourceFactory] = Registry("synthesis source", "codetrial.synth.sources")
source = SOURCES.register


def create_source(spec: str) -> Source:
    """`duckdb`, `spark` or `python:MODULE`."""
    prefix, _, arg = spec.partition(":")
    return SOURCES.get(prefix)(spec, arg)
