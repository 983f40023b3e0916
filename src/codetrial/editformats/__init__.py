"""Edit formats: how a model expresses changes to files (whole files, SEARCH/REPLACE blocks,
unified diffs, or tool calls), with each format's prompt, parser, applier and reference reply."""

from codetrial.editformats.base import EditFormat
from codetrial.editformats.edits import (
    ApplyResult,
    Edit,
    EditFailure,
    EditNotApplied,
    MalformedReply,
)
from codetrial.editformats.lazy import find_lazy_comments
from codetrial.editformats.reflection import reflection_message
from codetrial.editformats.registry import FORMATS, get_format

__all__ = [
    "FORMATS", "ApplyResult", "Edit", "EditFailure", "EditFormat", "EditNotApplied",
    "MalformedReply", "find_lazy_comments", "get_format", "reflection_message",
]
