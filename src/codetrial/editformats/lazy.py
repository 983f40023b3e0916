"""Spot comment lines that stand in for code a model left out ("# ... rest of code")."""

from __future__ import annotations

import re

_COMMENT = re.compile(r"^\s*(?:#|//|--|/\*+|\*|<!--|;)\s*(?P<body>.*?)\s*(?:\*/|-->)?\s*$")
_ELISION = re.compile(
    r"^(?:\.{3}|…)"
    r"|(?:\.{3}|…)$"
    r"|\brest of (?:the )?(?:code|file|class|function|method|implementation|module)\b"
    r"|\b(?:existing|previous|original|other) (?:code|methods|functions|implementation|logic)\b"
    r"|\b(?:remains?|stays?|is|are|left) (?:the same|unchanged|as (?:is|before))\b"
    r"|\bunchanged\b|\bsame as (?:before|above|original)\b|\bas before\b"
    r"|\b(?:omitted|elided) for brevity\b|\bfor brevity\b|\bcode omitted\b",
    re.IGNORECASE,
)


def find_lazy_comments(text: str) -> list[str]:
    """The stripped comment lines of `text` that elide code instead of writing it."""
    found = []
    for line in text.split("\n"):
        match = _COMMENT.match(line)
        if match and not line.lstrip().startswith(("#!", "# -*-")) and _ELISION.search(
                match["body"]):
            found.append(line.strip())
    return found
