"""Pull the code out of a chat reply: fenced or not, one block or several, signature or not."""

from __future__ import annotations

import ast
import re

_FENCE = re.compile(r"^[ \t]*(`{3,}|~{3,})[ \t]*([\w+#.-]*)[^\n]*\n(.*?)(?:^[ \t]*\1[ \t]*$|\Z)",
                    re.M | re.S)
_NOT_PYTHON = {"bash", "sh", "shell", "console", "text", "json", "yaml", "output", "diff"}
_CODE_START = re.compile(r"^(def |async def |class |import |from |@)", re.M)


def fenced_blocks(text: str) -> list[tuple[str, str]]:
    """(language, body) of every fenced block; an unclosed last fence runs to the end."""
    return [(m.group(2).lower(), m.group(3)) for m in _FENCE.finditer(text)]


def extract_code(reply: str, entry_point: str | None = None) -> str | None:
    """The block that defines `entry_point`, else all Python blocks joined, else bare code."""
    blocks = [body for lang, body in fenced_blocks(reply) if lang not in _NOT_PYTHON]
    blocks = [b for b in blocks if b.strip()]
    if blocks:
        if entry_point:
            defining = [b for b in blocks if _defines(b, entry_point)]
            if defining:
                return defining[-1]
        return "\n\n".join(blocks)
    return _bare_code(reply)


def _defines(code: str, name: str) -> bool:
    return re.search(rf"^\s*(async\s+)?def\s+{re.escape(name)}\s*\(", code, re.M) is not None


def _bare_code(reply: str) -> str | None:
    """No fences: start at the first line that looks like code, drop trailing prose."""
    match = _CODE_START.search(reply)
    if not match:
        return None
    lines = reply[match.start():].splitlines()
    for end in range(len(lines), 0, -1):
        candidate = "\n".join(lines[:end]) + "\n"
        if _parses(candidate):
            return candidate
    return None


def _parses(code: str) -> bool:
    try:
        ast.parse(code)
    except SyntaxError:
        return False
    return True


def truncate_at_stops(text: str, stops: list[str]) -> str:
    """Servers may ignore stop sequences (or accept only four): cut where the first one starts."""
    cut = min((i for s in stops if (i := text.find(s)) != -1), default=len(text))
    return text[:cut]
