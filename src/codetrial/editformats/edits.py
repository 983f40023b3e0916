"""What a parsed reply is made of, and what applying it produced."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

EditKind = Literal["whole", "replace", "udiff"]


class MalformedReply(Exception):
    """Nothing usable could be parsed. The message is written to be sent back to the model."""


class EditNotApplied(Exception):
    """One edit could not be applied. `missing` holds the lines that were looked for and not
    found, so the reflection can show them next to the most similar lines of the file."""

    def __init__(self, message: str, missing: str = "") -> None:
        super().__init__(message)
        self.missing = missing


@dataclass
class Edit:
    """One change to one file. `error` carries a problem found while parsing (a block that was
    never closed, a block without a file name) so that `apply` reports it and still applies the
    good edits of the same reply."""

    path: str
    kind: EditKind
    content: str = ""  # whole: the complete new file
    search: str = ""  # replace: the lines to find
    replace: str = ""  # replace: the lines to put in their place
    hunk: list[str] = field(default_factory=list)  # udiff: body lines, marks included
    error: str = ""


@dataclass
class EditFailure:
    """An edit that was not applied, why, and the lines that did not match (if any)."""

    edit: Edit
    reason: str
    missing: str = ""


@dataclass
class ApplyResult:
    """The files after the edits that could be applied; `errors` has one line per failed edit."""

    files: dict[str, str]
    applied: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    touched: set[str] = field(default_factory=set)
    failures: list[EditFailure] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.errors
