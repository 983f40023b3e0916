"""The contract every edit format implements, and the apply loop they all share.

A format turns a reply (text and tool calls) into `Edit`s and applies them to the exercise's
files. Applying never raises for an edit that does not fit: each failure is reported, the other
edits still apply, and `reflection_message` explains the failures to the model.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from typing import Any

from codetrial.editformats.edits import (
    ApplyResult,
    Edit,
    EditFailure,
    EditKind,
    EditNotApplied,
    MalformedReply,
)
from codetrial.editformats.reflection import reflection_message
from codetrial.editformats.text import known_files_note, new_path_problem, restore_newlines, to_lf
from codetrial.models.base import ToolCall

__all__ = [
    "ApplyResult", "Edit", "EditFailure", "EditFormat", "EditKind", "EditNotApplied",
    "MalformedReply", "reflection_message",
]

NO_FILE_NAME = ("the edit does not say which file it changes; write the file's path on the "
                "line just before it")


class EditFormat(ABC):
    """One way for a model to express changes to files: prompt, parser, applier, reference."""

    name: str
    uses_tools: bool = False

    @abstractmethod
    def system_prompt(self) -> str:
        """How to reply in this format, with a short example."""

    def tools(self) -> list[dict[str, Any]] | None:
        """OpenAI function-tool schemas, for the formats that use tool calls."""
        return None

    @abstractmethod
    def parse(self, text: str, tool_calls: list[ToolCall], known_files: list[str]) -> list[Edit]:
        """The edits of a reply. Raise MalformedReply when nothing usable is in it."""

    @abstractmethod
    def apply_edit(self, edit: Edit, content: str | None) -> tuple[str, str]:
        """Apply one edit to one file's LF text (None: the file does not exist yet) and return
        (new text, what was done); raise EditNotApplied when it does not fit."""

    @abstractmethod
    def reference_reply(self, before: dict[str, str],
                        after: dict[str, str]) -> tuple[str, list[ToolCall]]:
        """The reply a perfect model would send to turn `before` into `after`."""

    def apply(self, edits: list[Edit], files: dict[str, str]) -> ApplyResult:
        """Apply the edits in order to a copy of `files`; report, never raise, per edit."""
        work = {path: to_lf(content) for path, content in files.items()}
        result = ApplyResult(files={})
        for edit in edits:
            self._apply_one(edit, work, result, list(files))
        result.files = {path: _finished(path, work[path], files, result.touched) for path in work}
        return result

    def edit(self, text: str, tool_calls: list[ToolCall], files: dict[str, str]) -> ApplyResult:
        """Parse a reply and apply it; MalformedReply propagates."""
        return self.apply(self.parse(text, tool_calls, list(files)), files)

    def reflection_message(self, result: ApplyResult, files: dict[str, str]) -> str:
        return reflection_message(result, files)

    def _apply_one(self, edit: Edit, work: dict[str, str], result: ApplyResult,
                   known: list[str]) -> None:
        try:
            note = self._change(edit, work, known)
        except EditNotApplied as exc:
            result.failures.append(EditFailure(edit, str(exc), exc.missing))
            result.errors.append(f"{edit.path or '(no file name)'}: {exc}")
        else:
            result.applied.append(f"{edit.path}: {note}")
            result.touched.add(edit.path)

    def _change(self, edit: Edit, work: dict[str, str], known: list[str]) -> str:
        if edit.error:
            raise EditNotApplied(edit.error)
        if not edit.path:
            raise EditNotApplied(NO_FILE_NAME)
        if edit.path in work:
            work[edit.path], note = self.apply_edit(edit, work[edit.path])
            return note
        return self._create(edit, work, known)

    def _create(self, edit: Edit, work: dict[str, str], known: list[str]) -> str:
        """A path outside the exercise: allowed only as a new file with a sensible name. The
        grader decides which files it copies; here it is only made and reported."""
        problem = new_path_problem(edit.path)
        if problem:
            raise EditNotApplied(f"it is not a file of this exercise and {problem}. "
                                 + known_files_note(known))
        try:
            work[edit.path], _ = self.apply_edit(edit, None)
        except EditNotApplied as exc:
            raise EditNotApplied(f"{exc}. {known_files_note(known)}", exc.missing) from None
        return "created a new file that is not part of the exercise"


def _finished(path: str, content: str, files: dict[str, str], touched: set[str]) -> str:
    """Untouched files come back byte for byte; edited ones get their newline style back."""
    if path in files and path not in touched:
        return files[path]
    return restore_newlines(content, files.get(path, ""))
