"""Where an exercise's language and id come from: the polyglot layout's
`<language>/exercises/practice/<slug>/` names it; a track's own layout is told by its solution
files' extensions. Ids name the language (`go/bowling`); Python keeps the bare slug, as
before (stored runs and --exercises lists stay valid)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codetrial.core import UsageError
from codetrial.languages.base import LANGUAGES, language_of


def layout_language(exercise: Path) -> str | None:
    """`go` for .../go/exercises/practice/<slug>, else None."""
    parts = exercise.parts
    if len(parts) >= 4 and parts[-3:-1] == ("exercises", "practice") \
            and parts[-4] in LANGUAGES.names():
        return parts[-4]
    return None


def exercise_language(exercise: Path, solution: list[str]) -> str:
    return layout_language(exercise) or language_of(solution)


def task_id(exercise: Path, language: str) -> str:
    if language == "python":
        return exercise.name
    return f"{language}/{exercise.name}"


def editor_files(exercise: Path, files: dict[str, Any]) -> list[str]:
    """The config's `editor` files (shown to the model read-only), checked like the others."""
    value = files.get("editor", [])
    config = exercise / ".meta" / "config.json"
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise UsageError(f"{config}: field 'files.editor' must be a list of paths")
    for rel in value:
        path = exercise / rel
        if not path.resolve().is_relative_to(exercise.resolve()) or not path.is_file():
            raise UsageError(f"{config}: field 'files.editor' names {rel!r}, which is missing")
    return value


def parse_languages(value: str | list[str] | None) -> list[str] | None:
    """`--languages go,rust`: None for all; an unknown name is a usage error."""
    if not value:
        return None
    names = value.split(",") if isinstance(value, str) else list(value)
    names = [n.strip() for n in names if n.strip()]
    unknown = sorted(set(names) - set(LANGUAGES.names()))
    if unknown:
        raise UsageError(f"--languages: unknown language(s) {', '.join(unknown)}: use "
                         f"{', '.join(LANGUAGES.names())}")
    return names
