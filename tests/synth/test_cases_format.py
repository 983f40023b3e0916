"""The YAML case format: written readably, read strictly, bad input named by file and field."""

from pathlib import Path

import pytest

from codetrial.core import UsageError
from codetrial.synth.cases import Case, dump_case, fill_hole, hashes, load_case, write_case

CASES = Path(__file__).parent / "cases"
GOOD = """\
name: gcd
context: |
  import math
  result = <here>
canonical_solution: math.gcd(4, 6)
test: |
  assert result == 2
meta:
  engine: python
"""


def write(tmp_path: Path, text: str) -> Path:
    path = tmp_path / "case.yaml"
    path.write_text(text)
    return path


def test_round_trip_keeps_every_field_and_writes_code_as_blocks(tmp_path):
    case = load_case(write(tmp_path, GOOD))
    assert case.parts() == ("import math\nresult = ", "\n")
    assert case.filled(case.canonical_solution).endswith("result = math.gcd(4, 6)\n")
    text = dump_case(case)
    assert "context: |\n  import math\n" in text
    write_case(case, tmp_path / "again.yaml")
    assert load_case(tmp_path / "again.yaml") == case


def test_hashes_change_when_the_test_changes():
    case = Case("f", "x = <here>\n", "1", "assert x == 1\n", {"engine": "python"})
    other = Case("f", "x = <here>\n", "1", "assert x == 2\n", {"engine": "python"})
    assert hashes(case)["context"] == hashes(other)["context"]
    assert hashes(case)["test"] != hashes(other)["test"]


@pytest.mark.parametrize("text,message", [
    ("name: [unclosed", "not valid YAML at line 1"),
    ("- just\n- a list\n", "expected a mapping"),
    (GOOD.replace("canonical_solution: math.gcd(4, 6)\n", ""),
     "missing field 'canonical_solution'"),
    (GOOD.replace("name: gcd", "name: 5"), "field 'name' must be a string"),
    (GOOD.replace("meta:\n  engine: python\n", "meta: python\n"), "field 'meta' must be a mapping"),
    (GOOD.replace("  engine: python\n", "  source: x\n"), "missing field 'meta.engine'"),
    (GOOD.replace("engine: python", "engine: cobol"), "field 'meta.engine' must be one of"),
    (GOOD.replace("result = <here>", "result = 1"), "field 'context' must hold the <here>"),
])
def test_bad_case_names_file_and_field(tmp_path, text, message):
    path = write(tmp_path, text)
    with pytest.raises(UsageError) as caught:
        load_case(path)
    assert str(caught.value).startswith(f"{path}: ") and message in str(caught.value)


def test_every_hand_checked_case_loads():
    cases = [load_case(p) for p in sorted(CASES.glob("*.yaml"))]
    assert len(cases) == 10
    assert {c.engine for c in cases} == {"duckdb", "python"}


def test_cli_reports_a_bad_case_in_one_line(cli, tmp_path):
    (tmp_path / "good.yaml").write_text(GOOD)
    (tmp_path / "bad.yaml").write_text(GOOD.replace("test: |\n  assert result == 2\n", ""))
    result = cli("run", "yaml", "--path", str(tmp_path), "--model", "reference")
    assert result.code == 2
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1 and "bad.yaml: missing field 'test'" in lines[0]


def test_cli_needs_a_path(cli):
    result = cli("run", "yaml", "--model", "reference")
    assert result.code == 2 and "--path DIR" in result.stderr


@pytest.mark.parametrize("context,fill,program", [
    ("result = <here>\n", "f(x)", "result = f(x)\n"),
    ('q = r"""<here>"""\n', r"SELECT '\d'", "q = \"SELECT '\\\\d'\"\n"),
    ('q = "<here>"\n', r"a\nb", "q = 'a\\nb'\n"),  # a plain literal's escapes keep their meaning
    ('s = f"{<here>}"\n', "x", 's = f"{x}"\n'),  # not the whole body of a literal: code
])
def test_fill_hole(context, fill, program):
    assert fill_hole(context, fill) == program


def test_a_fill_in_a_string_hole_cannot_break_out_and_run_python():
    breakout = '"""; import os; os._exit(0); q = r"""'
    namespace: dict = {}
    exec(fill_hole('q = r"""<here>"""\n', breakout), namespace)
    assert namespace["q"] == breakout


def test_the_imports_of_a_context_are_read_without_its_hole():
    from codetrial.synth.cases import context_imports

    context = ("import math, os.path\nimport xml.etree.ElementTree as ET\n"
               "from collections import Counter as C\nfrom . import local\n"
               "def f():\n    import json\n    return <here>\n")
    assert context_imports(context) == {
        "math": ("math", None), "os": ("os.path", None), "ET": ("xml.etree", "ElementTree"),
        "C": ("collections", "Counter")}
    assert context_imports("result = <here> +\n") == {}  # not Python: nothing to import
