"""What the model is told when an edit does not apply, and the lazy-comment counter."""

from __future__ import annotations

from codetrial.editformats import find_lazy_comments, get_format, reflection_message

FILES = {
    "clock.py": "class Clock:\n    def __init__(self, hour, minute):\n        pass\n\n"
                "    def __repr__(self):\n        pass\n\n    def __add__(self, minutes):\n"
                "        pass\n",
}

REPLY = """\
clock.py
```python
<<<<<<< SEARCH
    def __repr__(self):
        pass
=======
    def __repr__(self):
        return f"Clock({self.hour}, {self.minute})"
>>>>>>> REPLACE
```

clock.py
```python
<<<<<<< SEARCH
    def __add__(self, minute):
        return None
=======
    def __add__(self, minutes):
        return Clock(self.hour, self.minute + minutes)
>>>>>>> REPLACE
```
"""


def test_reflection_names_file_shows_lines_similar_lines_and_applied_edits() -> None:
    fmt = get_format("diff")
    result = fmt.edit(REPLY, [], FILES)
    assert not result.ok and len(result.applied) == 1
    message = reflection_message(result, result.files)
    assert "The edit to clock.py could not be applied" in message
    assert "These lines were not found in clock.py:" in message
    assert "    def __add__(self, minute):\n        return None" in message
    similar = message.split("The most similar lines in clock.py are:")[1]
    assert "    def __add__(self, minutes):\n        pass" in similar
    assert "These other edits were applied" in message
    assert "- clock.py: replaced lines 5-6" in message
    assert "Send again only the edits that failed" in message
    assert fmt.reflection_message(result, result.files) == message


def test_reflection_without_applied_edits_or_file_name() -> None:
    result = get_format("diff").edit(
        "<<<<<<< SEARCH\nX = 1\n=======\nX = 2\n>>>>>>> REPLACE\n", [],
        {"a.py": "X = 1\n", "b.py": "Y = 1\n"})
    message = reflection_message(result, result.files)
    assert "(no file name)" in message and "does not say which file" in message
    assert "None of the other edits were applied." in message


def test_reflection_leaves_out_far_off_lines() -> None:
    result = get_format("udiff").edit(
        "```diff\n--- a.py\n+++ a.py\n@@ @@\n-completely different\n+new\n```\n", [],
        {"a.py": "import os\n"})
    message = reflection_message(result, result.files)
    assert "completely different" in message
    assert "most similar" not in message


def test_lazy_comments() -> None:
    reply = "\n".join([
        "def f():",
        "    # ... rest of code",
        "    # existing code here",
        "    // ...",
        "    # ...",
        "    /* remaining methods unchanged */",
        "    # compute the sum of squares",
        "    ...",
        "    # keep the original implementation as is",
        "    # the algorithm is from Knuth, vol. 2",
        "#!/usr/bin/env python",
    ])
    assert find_lazy_comments(reply) == [
        "# ... rest of code", "# existing code here", "// ...", "# ...",
        "/* remaining methods unchanged */", "# keep the original implementation as is",
    ]
