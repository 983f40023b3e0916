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


def reference_paths(solution: list[str], example: list[str], given: set[str]) -> dict[str, str]:
    """Where each file of the reference (`example`) solution goes: example path -> exercise path.

    Tracks name examples loosely: `.meta/example.h` for a stub pair `x.cpp` + `x.h`,
    `.meta/example.rs` for `src/lib.rs`, `.meta/proof.ci.js` for `two-fer.js`,
    `.meta/src/reference/java/{Card,Hand,Poker}.java` for `src/main/java/Poker.java`. A file
    goes to the solution file of its own name, else to the first unclaimed solution file of its
    extension, else (a helper class) beside the solution files of its extension, by its name.
    `given` files (the editor's, shipped with the exercise) keep their shipped version.
    """
    placed: dict[str, str] = {}
    claimed: set[str] = set()
    by_name = {Path(s).name: s for s in solution}
    rest = []
    for ex in example:
        target = by_name.get(Path(ex).name)
        if target and target not in claimed:
            placed[ex] = target
            claimed.add(target)
        else:
            rest.append(ex)
    for ex in rest:
        suffix = Path(ex).suffix
        same_kind = [s for s in solution if Path(s).suffix == suffix]
        free = [s for s in same_kind if s not in claimed]
        if free:
            target = free[0]
        else:
            folder = Path((same_kind or solution)[0]).parent
            target = (folder / Path(ex).name).as_posix()
        if target not in given and target not in claimed:
            placed[ex] = target
            claimed.add(target)
    return placed
