"""Exercism practice exercises (Python track layout) as code-editing tasks.

Accepted layouts: DIR/<slug>/, DIR/exercises/practice/<slug>/ and
DIR/<language>/exercises/practice/<slug>/. Each exercise has .meta/config.json whose `files`
object names the solution stubs, the tests and the reference (`example`) solution.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codetrial.agent.shell import Toolchain
from codetrial.core import Sample, Task, UsageError
from codetrial.languages import get_language
from codetrial.languages.figures import polyglot_figures
from codetrial.languages.grading import grade_task
from codetrial.languages.layout import (
    editor_files,
    exercise_language,
    parse_languages,
    reference_paths,
    task_id,
)
from codetrial.languages.toolchains import toolchain_versions
from codetrial.sandbox import Sandbox
from codetrial.suites.base import Grade, suite
from codetrial.suites.editing import INSTRUCTIONS_FILE, EditSuite

DOC_PARTS = ("introduction.md", "instructions.md", "instructions.append.md")
PATTERNS = ("*/.meta/config.json", "exercises/practice/*/.meta/config.json",
            "*/exercises/practice/*/.meta/config.json")  # the last: the polyglot layout


def find_exercises(root: Path) -> list[Path]:
    if not root.is_dir():
        raise UsageError(f"{root}: exercise directory not found")
    found = sorted({c.parent.parent for pattern in PATTERNS for c in root.glob(pattern)})
    if not found:
        raise UsageError(f"{root}: no exercises (expected <slug>/.meta/config.json)")
    return found


def read_text(path: Path) -> str:
    """Exercise files must be UTF-8 text; anything else is the user's input error, said so."""
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise UsageError(f"{path}: not UTF-8 text") from None
    except OSError as exc:
        raise UsageError(f"{path}: cannot be read ({exc.strerror})") from None


def read_config(exercise: Path) -> dict[str, list[str]]:
    path = exercise / ".meta" / "config.json"
    try:
        files = json.loads(read_text(path))["files"]
    except json.JSONDecodeError as exc:
        raise UsageError(f"{path}: invalid JSON ({exc.msg} at line {exc.lineno})") from exc
    except (KeyError, TypeError):
        raise UsageError(f"{path}: missing field 'files'") from None
    for key in ("solution", "test", "example"):
        value = files.get(key) if isinstance(files, dict) else None
        if not isinstance(value, list) or not value or not all(isinstance(v, str) for v in value):
            raise UsageError(f"{path}: field 'files.{key}' must be a non-empty list of paths")
        for rel in value:
            if not (exercise / rel).resolve().is_relative_to(exercise.resolve()):
                raise UsageError(f"{path}: field 'files.{key}' names {rel!r}, outside the "
                                 "exercise")
            if not (exercise / rel).is_file():
                raise UsageError(f"{path}: field 'files.{key}' names {rel!r}, which is missing")
    return files


def instructions(exercise: Path) -> str:
    parts = [(exercise / ".docs" / p) for p in DOC_PARTS]
    return "\n\n".join(read_text(p).strip() for p in parts if p.is_file())


def run_files(exercise: Path) -> dict[str, str]:
    """The files a test run needs: the exercise's own, without its notes, docs and answers
    (.meta/, .docs/, .articles/, .approaches/: every dot folder), caches, or binary files."""
    found = {}
    for path in sorted(exercise.rglob("*")):
        parts = path.relative_to(exercise).parts
        if not path.is_file() or "__pycache__" in parts or any(p.startswith(".") for p in parts):
            continue
        try:
            found["/".join(parts)] = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue  # binary data no Python test of this track reads
    return found


def load_exercise(exercise: Path) -> Task:
    files = read_config(exercise)

    def read(rel: str) -> str:
        return read_text(exercise / rel)

    language = exercise_language(exercise, files["solution"])
    pristine = run_files(exercise) | {rel: read(rel) for rel in files["test"]}
    places = reference_paths(files["solution"], files["example"],
                             set(pristine) - set(files["solution"]))
    return Task(
        id=task_id(exercise, language), suite="exercism", prompt=instructions(exercise),
        data={
            "language": language, "slug": exercise.name, "test_files": list(files["test"]),
            "editor": {rel: read(rel) for rel in editor_files(exercise, files)},
            "stubs": {rel: read(rel) for rel in files["solution"]},
            "reference": {target: read(ex) for ex, target in places.items()},
            # the tests must be text: a test file that is not is the user's input error, said
            "pristine": pristine,
            "tests": [Path(rel).with_suffix("").as_posix().replace("/", ".")
                      for rel in files["test"]],
        },
    )


@suite("exercism")
class Exercism(EditSuite):
    name = "exercism"

    def load_tasks(self) -> list[Task]:
        if not self.options.get("path"):
            raise UsageError("exercism needs --path DIR (an Exercism practice layout)")
        tasks = [load_exercise(e) for e in find_exercises(Path(self.options["path"]))]
        languages = parse_languages(self.options.get("languages"))
        if languages:
            tasks = [t for t in tasks if t.data["language"] in languages]
        wanted = self.options.get("exercises")
        if wanted:
            names = wanted.split(",") if isinstance(wanted, str) else list(wanted)
            known = {t.id for t in tasks} | {t.data["slug"] for t in tasks}
            unknown = sorted(set(names) - known)
            if unknown:
                raise UsageError(f"--exercises: unknown exercise(s) {', '.join(unknown)}")
            tasks = [t for t in tasks if t.id in names or t.data["slug"] in names]
        if not tasks:
            raise UsageError(f"{self.options['path']}: no exercises in --languages "
                             f"{','.join(languages or [])}")
        toolchain_versions([t.data["language"] for t in tasks])  # missing: a usage error now
        return tasks

    def instructions(self, task: Task) -> str:
        """The exercise's text, then its editor files: given, shown, not the model's to edit."""
        editor = task.data.get("editor") or {}
        if not editor:
            return task.prompt
        fence = get_language(task.data["language"]).fence
        shown = "\n\n".join(f"{p}\n```{fence}\n{t}```" for p, t in editor.items())
        return (f"{task.prompt}\n\nThese files are part of the exercise and read-only: use "
                f"them, do not change them.\n\n{shown}")

    def run_settings(self, tasks: list[Task]) -> dict[str, Any]:
        """Each language's toolchain version and exactly what was un-skipped in its tests."""
        names = sorted({t.data.get("language", "python") for t in tasks})
        return {"toolchains": toolchain_versions(names),
                "unskipped": {n: get_language(n).unskipped for n in names
                              if get_language(n).unskipped}}

    def prompt_language(self, task: Task) -> tuple[str, str]:
        lang = get_language(task.data.get("language", "python"))
        return lang.display, lang.fence

    def summarize(self, samples: list[Sample]) -> dict[str, Any]:
        """The edit figures, then per language, free passes and the toolchains used."""
        return {**super().summarize(samples), **polyglot_figures(samples)}

    async def grade_files(self, task: Task, files: dict[str, str], sandbox: Sandbox) -> Grade:
        """Python through the suite's own judged unittest runner; every other language through
        its module in codetrial.languages (build, hide the tests, run, read the reports)."""
        lang = get_language(task.data.get("language", "python"))
        if not lang.native:
            return await grade_task(task, files, sandbox, self.limits())
        grade = await super().grade_files(task, files, sandbox)
        grade.details.update(language=lang.name, toolchain=lang.version(),
                             unskipped=lang.unskipped)
        return grade

    def workspace_files(self, task: Task) -> dict[str, str]:
        """The exercise as shipped less its tests, and the instructions."""
        lang = get_language(task.data.get("language", "python"))
        tests = set(task.data["test_files"])
        files = {p: t for p, t in task.data["pristine"].items()
                 if p not in tests and not lang.is_test_file(p)}
        return {**files, **self.edit_files(task), INSTRUCTIONS_FILE: self.instructions(task)}

    def toolchain(self, task: Task) -> Toolchain:
        lang = get_language(task.data.get("language", "python"))
        limits = self.limits() if lang.native else lang.limits(self.limits())
        return Toolchain(limits, lang.shell_env(), lang.shell_path())

    def hidden_paths(self) -> tuple[Path, ...]:
        """The track itself: every .meta/example.py, every test file (programs get their files
        through the request)."""
        return (Path(self.options["path"]),) if self.options.get("path") else ()

    def version(self) -> str:
        """What the tasks came from: the track's git commit (`+dirty` when the exercises have
        uncommitted changes) when the path is a checkout, else a digest of the exercise files."""
        import hashlib
        import subprocess

        root = Path(self.options["path"])
        exercises = find_exercises(root)

        def git(*args: str) -> str | None:
            try:
                done = subprocess.run(["git", "-C", str(root), *args], capture_output=True,
                                      text=True, timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                return None
            return done.stdout.strip() if done.returncode == 0 else None

        if git("ls-files", "--", ".") and (commit := git("rev-parse", "HEAD")):
            dirty = "+dirty" if git("status", "--porcelain", "--", ".") else ""
            return f"exercism git {commit}{dirty} ({len(exercises)} exercises)"
        digest = hashlib.sha256()
        for path in sorted(p for e in exercises for p in e.rglob("*")
                           if p.is_file() and "__pycache__" not in p.parts):
            data = path.read_bytes()
            digest.update(f"{path.relative_to(root).as_posix()}\0{len(data)}\0".encode() + data)
        return f"exercism sha256:{digest.hexdigest()[:16]} ({len(exercises)} exercises)"

    def edit_files(self, task: Task) -> dict[str, str]:
        """The solution files, less build files (Cargo.toml): those always come pristine."""
        lang = get_language(task.data.get("language", "python"))
        return {p: t for p, t in task.data["stubs"].items() if not lang.is_build_file(p)}

    def reference_files(self, task: Task) -> dict[str, str]:
        lang = get_language(task.data.get("language", "python"))
        return {p: t for p, t in task.data["reference"].items() if not lang.is_build_file(p)}

    def pristine_files(self, task: Task) -> dict[str, str]:
        return dict(task.data["pristine"])

    def test_modules(self, task: Task) -> list[str]:
        return list(task.data["tests"])
