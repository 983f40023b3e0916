"""What `codetrial doctor` says about each language's toolchain, and the versions a run records."""

from __future__ import annotations

from codetrial.core import UsageError
from codetrial.core.check import Check
from codetrial.languages.base import LANGUAGES, get_language


def toolchain_checks() -> list[Check]:
    """One line per language: its tools' versions, or the package to install. Not required:
    a missing toolchain only stops a run that has exercises in that language."""
    checks = []
    for name in LANGUAGES.names():
        lang = get_language(name)
        try:
            checks.append(Check(f"toolchain {name}", True, lang.version()))
        except UsageError as exc:
            checks.append(Check(f"toolchain {name}", False, str(exc)))
    return checks


def toolchain_versions(names: list[str]) -> dict[str, str]:
    """Each language's tool versions; a UsageError naming the package when one is missing."""
    return {name: get_language(name).version() for name in sorted(set(names))}
