"""Reading the fill out of a chat model's reply to 'fill the hole'."""

import pytest

from codetrial.protocols.infill import HOLE, extract_fill, fill_messages

SQL = ('import duckdb\n\ncon = duckdb.connect()\n# Capitalize it.\nquery = r"""', '"""\n')
PY = ("import statistics\n\ndata = [1, 2]\n# The middle value.\nresult = ", "\n")


@pytest.mark.parametrize("parts,reply,fill", [
    (SQL, "SELECT upper('a')", "SELECT upper('a')"),
    (SQL, "```sql\nSELECT upper('a')\n```\nThis query capitalizes.", "SELECT upper('a')"),
    (SQL, "`SELECT upper('a')`", "SELECT upper('a')"),
    (SQL, "```python\nquery = r\"\"\"SELECT upper('a')\"\"\"\nprint(query)\n```",
     "SELECT upper('a')"),
    (SQL, "\nSELECT a,\n       b\nFROM t\n", "SELECT a,\n       b\nFROM t"),
    (PY, "statistics.median(data)", "statistics.median(data)"),
    (PY, "```python\nimport statistics\n\ndata = [1, 2]\nresult = statistics.median(data)\n"
         "print(result)\n```", "statistics.median(data)"),
    (PY, "Here it is:\n```\nresult = statistics.median(data)\n```", "statistics.median(data)"),
])
def test_fill_is_what_stands_in_the_hole(parts, reply, fill):
    assert extract_fill(reply, *parts) == fill


def test_a_multi_line_body_keeps_its_indentation():
    prefix, suffix = "def f(x):\n", "\nprint(f(1))\n"
    reply = "```python\n    y = x + 1\n    return y\n```"
    assert extract_fill(reply, prefix, suffix) == "    y = x + 1\n    return y"


def test_request_shows_the_code_with_its_hole_and_the_hints():
    [message] = fill_messages(*PY, hints="Use `statistics.median`.")
    assert message["role"] == "user"
    assert f"result = {HOLE}\n```" in message["content"]
    assert "missing code only" in message["content"]
    assert "Use `statistics.median`." in message["content"]
