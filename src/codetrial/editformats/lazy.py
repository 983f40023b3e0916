"""Spot comment lines that stand in for code a model left out (`# ... existing code ...`).

A whole-line comment is an elision when it is an ellipsis on its own (`# ...`), an ellipsis
followed by words about code (`// ... rest of the class`), or a phrase that says code was left
out or kept (`# rest of the file`, `/* remaining methods unchanged */`, `# keep the original
implementation as is`). A comment that names no code ("# other letters stay unchanged") is an
ordinary comment of a solution, and so is any line the file already had before the edit: only
what the model wrote is counted.
"""

from __future__ import annotations

import re

from codetrial.editformats.edits import Edit
from codetrial.editformats.reference import new_side
from codetrial.editformats.udiff import read_ops

_COMMENT = re.compile(r"^\s*(?:#|//|--|/\*+|\*|<!--|;)\s*(?P<body>.*?)\s*(?:\*/|-->)?\s*$")
_CODE = (r"(?:code|implementations?|methods?|functions?|class(?:es)?|module|logic|body"
         r"|functionality|definitions?|helpers?|imports?)")
_ELLIPSIS = re.compile(r"^(?:\.\s?){3,}|^…")
# A phrase that says by itself that code was left out.
_SAYS_ELIDED = re.compile(
    rf"\b{_CODE} (?:omitted|elided|unchanged|not shown|goes here|as before|"
    r"(?:remains?|stays?|is|are) (?:the same(?! as (?!before|above))|unchanged|as (?:is|before)))\b"
    r"|\b(?:omitted|elided|left out) for brevity\b|\bcode omitted\b"
    r"|\bthe rest (?:remains?|stays?|is) (?:the same|unchanged|as before)\b"
    r"|^(?:unchanged|same as (?:before|above)|as before)\W*$",
    re.IGNORECASE)
# Code named as kept: an elision when it is all the comment says, or said with KEPT_WORDS
# ("# rest of the file" / "# remaining methods unchanged", not "# the remaining methods are
# order-aware").
_KEPT = (rf"(?:(?:rest|remainder) of (?:the |this |your )?(?:{_CODE}|file)"
         rf"|(?:existing|remaining|previous|original) {_CODE})")
_NAMES_KEPT = re.compile(rf"\b(?:{_KEPT}|(?:other|old) {_CODE})\b", re.IGNORECASE)
_ONLY_KEPT = re.compile(rf"^(?:the )?{_KEPT}(?: here)?\W*$", re.IGNORECASE)
_KEPT_WORDS = re.compile(r"\b(?:unchanged|as is|as before|the same|untouched|omitted|elided"
                         r"|not shown|goes here|here|etc)\b|\.\.\.|…", re.IGNORECASE)
_CODE_WORD = re.compile(rf"\b{_CODE}\b|\band so on\b|\betc\b", re.IGNORECASE)


def is_elision(body: str) -> bool:
    """Whether a comment's text (marker stripped) says that code was left out."""
    if _ELLIPSIS.match(body):
        rest = _ELLIPSIS.sub("", body).strip(" .…:;,-()")
        return not rest or bool(_CODE_WORD.search(rest) or _SAYS_ELIDED.search(rest)
                                or _NAMES_KEPT.search(rest))
    if _SAYS_ELIDED.search(body) or _ONLY_KEPT.match(body):
        return True
    return bool(_NAMES_KEPT.search(body) and _KEPT_WORDS.search(body))


def find_lazy_comments(text: str, before: str = "") -> list[str]:
    """The stripped comment lines of `text` that elide code, leaving out lines `before` has."""
    known = {line.strip() for line in before.split("\n")}
    found = []
    for line in text.split("\n"):
        match = _COMMENT.match(line)
        if (match and line.strip() not in known
                and not line.lstrip().startswith(("#!", "# -*-")) and is_elision(match["body"])):
            found.append(line.strip())
    return found


def written_text(edit: Edit) -> str:
    """The lines an edit puts into its file: the new file, the replacement, a hunk's new side
    (an unmarked line counts as added)."""
    if edit.kind == "whole":
        return edit.content
    if edit.kind == "replace":
        return edit.replace
    return "\n".join(new_side(read_ops(edit.hunk, lambda line: "+")))


def lazy_comments(edits: list[Edit], files: dict[str, str]) -> list[str]:
    """The elisions the edits would write, not counting what each file or SEARCH already had."""
    return [line for edit in edits
            for line in find_lazy_comments(written_text(edit),
                                           f"{files.get(edit.path) or ''}\n{edit.search}")]
