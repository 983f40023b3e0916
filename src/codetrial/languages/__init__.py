"""One module per language of the polyglot exercises: toolchain, un-skipping, build, run, and
per-test results read from each tool's machine-readable output (see base.Language)."""

from codetrial.languages.base import LANGUAGES, Language, get_language, language_of

__all__ = ["LANGUAGES", "Language", "get_language", "language_of"]
