"""Text helpers every format shares: newlines, lines, fences and file names in replies."""

from __future__ import annotations

import difflib
import functools
import re
from dataclasses import dataclass
from pathlib import PurePosixPath

_FENCE = re.compile(r"^ {0,3}(?P<run>`{3,}|~{3,})(?P<info>[^`]*)$")
_PATH = re.compile(r"(?:/|~/)?(?:[\w.\-]+/)*[\w\-][\w.\-]*\.(?P<ext>[A-Za-z0-9_]+)")
# A new path must end like a file a project holds, so a line of code such as `self.items`
# before a fence is not taken for a file name (exercise files are recognized by name).
_EXTENSIONS = set(
    "py pyi js mjs cjs ts jsx tsx go rs java kt kts scala c h cc cpp cxx hpp hh cs fs rb php "
    "swift m mm dart lua pl pm r jl ex exs erl hrl hs ml mli clj cljs elm nim zig v sv vhd sql "
    "sh bash zsh ps1 bat md rst txt json jsonl yaml yml toml ini cfg conf xml html htm css scss "
    "csv tsv lock mod sum gradle cmake mk proto graphql tf".split())
_BULLET = re.compile(r"^(?:[-+]|\d+[.)])\s+")
_LABEL = re.compile(r"^(?:file\s*name|file|path)\s*:\s*", re.I)
_DECOR = " \t*`'\"#>:"
_LANGUAGES = {  # the info string a writer puts on a fence first, then others seen in replies
    ".py": ("python", "py", "python3"),
    ".js": ("javascript", "js", "node"),
    ".ts": ("typescript", "ts"),
    ".go": ("go", "golang"),
    ".rs": ("rust", "rs"),
    ".java": ("java",),
    ".cpp": ("cpp", "c++", "cc"),
    ".h": ("cpp", "c", "h"),
    ".hpp": ("cpp", "c++"),
    ".c": ("c",),
    ".rb": ("ruby", "rb"),
}
_OTHER_BLOCKS = {"bash", "sh", "shell", "console", "zsh", "text", "txt", "output", "plaintext"}


# ---------------------------------------------------------------- newlines and lines


def to_lf(text: str) -> str:
    """Edits are matched on LF text; the file's own newline style is restored afterwards."""
    return text.replace("\r\n", "\n")


def restore_newlines(text: str, original: str) -> str:
    """Give an edited file back the CRLF newlines it had, so untouched lines stay byte-equal."""
    return text.replace("\n", "\r\n") if "\r\n" in original else text


def split_lines(text: str) -> list[str]:
    """Lines without their newline; unlike str.splitlines, a form feed is not a line break."""
    if not text:
        return []
    parts = text.split("\n")
    return parts[:-1] if parts[-1] == "" else parts


def keep_ends(text: str) -> list[str]:
    """Lines with their newline, so a splice keeps a missing final newline as it was."""
    lines = [line + "\n" for line in text.split("\n")]
    lines[-1] = lines[-1][:-1]
    return lines if lines[-1] else lines[:-1]


def join_lines(lines: list[str]) -> str:
    """The inverse of split_lines for text that ends with a newline."""
    return "".join(line + "\n" for line in lines)


# ---------------------------------------------------------------- fences


@dataclass(frozen=True)
class Fence:
    run: str
    info: str

    def closes(self, line: str) -> bool:
        """A closing fence: the same character, at least as long, and no info string."""
        other = fence_of(line)
        return (other is not None and not other.info and other.run[0] == self.run[0]
                and len(other.run) >= len(self.run))


@functools.lru_cache(maxsize=4096)  # a reply's lines are looked at again for every block
def fence_of(line: str) -> Fence | None:
    """The fence a line opens or closes (CommonMark: up to three spaces of indentation)."""
    match = _FENCE.match(line.rstrip())
    return Fence(match["run"], match["info"].strip()) if match else None


def fence_for(content: str) -> str:
    """A backtick fence longer than any fence inside `content`, so the block stays whole."""
    runs = [len(f.run) for f in map(fence_of, content.split("\n")) if f and f.run[0] == "`"]
    return "`" * max([3] + [n + 1 for n in runs])


def language_for(path: str) -> str:
    """The info string a careful writer would put on a fence for this file."""
    return _LANGUAGES.get(PurePosixPath(path).suffix, ("",))[0]


def block_fits(info: str, path: str) -> bool:
    """Whether an unnamed block with this info string can be the content of `path`."""
    language = info.split()[0].lower() if info.split() else ""
    if not language:
        return True
    if language in _OTHER_BLOCKS:
        return False
    expected = _LANGUAGES.get(PurePosixPath(path).suffix)
    return expected is None or language in expected


# ---------------------------------------------------------------- file names


def path_candidate(line: str, known: list[str]) -> str | None:
    """The path on a line that holds only a path, decorated the ways models decorate it:
    `**a.py**`, `` `a.py`: ``, `# a.py`, `File: a.py`, `- a.py`."""
    text = _BULLET.sub("", line.strip()).strip(_DECOR)
    text = _LABEL.sub("", text).strip(_DECOR).replace("\\", "/")
    text = text.removeprefix("./")
    match = _PATH.fullmatch(text)
    if text in known or (match and match["ext"].lower() in _EXTENSIONS):
        return text
    return None


def path_in_info(info: str) -> str | None:
    """A path written as (part of) a fence's info string: ```python path/to/file.py (or
    ```python:path/to/file.py)."""
    for token in info.replace(":", " ").split():
        candidate = path_candidate(token, [])
        if candidate:
            return candidate
    return None


def path_in_prose(line: str, known: list[str]) -> str | None:
    """The one known file a sentence names, as in "Here is the updated `b.py`:"."""
    named = {path for path in known if _mentions(line, path)}
    if len(named) != 1:
        named = {path for path in known if _mentions(line, PurePosixPath(path).name)}
    return named.pop() if len(named) == 1 else None


def _mentions(line: str, name: str) -> bool:
    return re.search(rf"(?<![\w/.\-]){re.escape(name)}(?![\w/\-]|\.\w)", line) is not None


def path_near(line: str, known: list[str]) -> str | None:
    """The path a line just before an edit names, strictly or in a sentence."""
    return path_candidate(line, known) or path_in_prose(line, known)


def path_heading(line: str, known: list[str]) -> str | None:
    """A path as a heading: alone on its line, or named in a sentence that ends with a colon."""
    if line.rstrip().rstrip("*`").endswith(":"):
        return path_near(line, known)
    return path_candidate(line, known)


def resolve_path(raw: str, known: list[str]) -> str:
    """Map the name a model wrote onto an exercise file: exact, same tail, same base name, or a
    close spelling (difflib); anything else stays as written and may become a new file."""
    path = raw.strip().strip("`'\"*").replace("\\", "/").removeprefix("./")
    if path in known:
        return path
    for match in (_same_tail(path, known), _same_name(path, known), _close(path, known)):
        if match:
            return match
    return path


def _same_tail(path: str, known: list[str]) -> str | None:
    hits = [k for k in known if path.endswith("/" + k) or k.endswith("/" + path)]
    return hits[0] if len(hits) == 1 else None


def _same_name(path: str, known: list[str]) -> str | None:
    name = PurePosixPath(path).name
    hits = [k for k in known if PurePosixPath(k).name == name]
    return hits[0] if len(hits) == 1 else None


def _close(path: str, known: list[str]) -> str | None:
    """A misspelling: at most two characters differ (so `x_test.py` is not taken for `x.py`).
    Never in Java, where a file is named after its class: `Hand.java` beside `Hands.java` is
    another class (poker's, bowling's helper classes)."""
    if path.endswith(".java"):
        return None
    hits = [k for k in known if _typos(path, k) <= min(2, len(k) // 4)]
    return hits[0] if len(hits) == 1 else None


def _typos(a: str, b: str) -> int:
    opcodes = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for tag, i1, i2, j1, j2 in opcodes if tag != "equal")


def new_path_problem(path: str) -> str | None:
    """Why a path that is not part of the exercise may not be created, or None when it may."""
    parts = path.split("/")
    if path.startswith(("/", "~")) or re.match(r"^[A-Za-z]:", path):
        return "absolute paths cannot be created"
    if any(part in ("", ".", "..") for part in parts):
        return "the path leaves the exercise folder or is empty"
    if any(part.startswith(".") for part in parts):
        return "hidden files and folders cannot be created"
    if len(path) > 200 or not all(re.fullmatch(r"[\w.\-]+", part) for part in parts):
        return "the name has characters that a source file name would not have"
    return None


def known_files_note(known: list[str]) -> str:
    """The sentence that lists the exercise's files in error messages."""
    return "The exercise's files are: " + (", ".join(sorted(known)) or "(none)") + "."
