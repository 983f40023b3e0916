"""Spark SQL: reading `DESCRIBE FUNCTION EXTENDED` (recorded from pyspark 4.3.0), and a live
filter run when pyspark and Java are installed."""

import importlib.util
import json
import shutil
from pathlib import Path

import pytest

from codetrial.synth.sources.spark import parse_describe, spark_seeds

RECORDED = json.loads((Path(__file__).parent / "fixtures" / "spark_describe.json").read_text())


def doc(name: str):
    return parse_describe(RECORDED["describe"][name])


def test_examples_with_their_documented_output():
    abs_doc = doc("abs")
    assert abs_doc.name == "abs"
    assert abs_doc.usage.startswith("abs(expr) - Returns the absolute value")
    assert abs_doc.examples == [("SELECT abs(-1)", "1"),
                                ("SELECT abs(INTERVAL -'1-1' YEAR TO MONTH)", "1-1")]


def test_output_keeps_its_own_leading_blanks_and_rows_and_tabs():
    assert ("SELECT lpad('hi', 5)", "   hi") in doc("lpad").examples
    assert doc("inline").examples[0] == (
        "SELECT inline(array(struct(1, 'a'), struct(2, 'b')))", "1\ta\n2\tb")


def test_a_query_over_several_lines_is_joined():
    [(query, output)] = doc("measure").examples
    assert query == ("SELECT dimension_col, measure(measure_col) FROM test_metric_view "
                     "GROUP BY dimension_col")
    assert output == "dim_1, 100\ndim_2, 200"


def test_notes_mark_nondeterministic_functions_volatile():
    assert "non-deterministic" in doc("rand").note
    assert all(s.volatile for s in spark_seeds(doc("rand")))
    assert all(s.volatile for s in spark_seeds(doc("array_agg")))
    assert not any(s.volatile for s in spark_seeds(doc("to_json")))


def test_seeds_are_spark_sql_holes():
    seed = spark_seeds(doc("abs"))[0]
    assert (seed.id, seed.function, seed.documented) == ("abs-1", "abs", "1")
    assert seed.draft.context("Give the absolute value of -1.") == (
        '# Give the absolute value of -1.\ndf = spark.sql(r"""<here>""")\n')


def test_operator_names_make_safe_ids():
    assert spark_seeds(doc("+"))[0].id == "op-plus-1"


SPARK_MISSING = importlib.util.find_spec("pyspark") is None or shutil.which("java") is None


@pytest.mark.skipif(SPARK_MISSING, reason="needs pyspark (pip install 'codetrial[spark]') "
                                          "and Java 17+ on PATH")
def test_live_filter_on_a_few_functions(cli, tmp_path):
    result = cli("synth", "spark", "--functions", "abs,lpad,rand", "--out",
                   str(tmp_path / "spark"), "--json")
    assert result.code == 0, result.stderr
    figures = result.json()["filter"]
    assert (figures["examples"], figures["functions"]) == (10, 3)
    assert figures["dropped"]["mismatch"] == 0  # documented outputs match in the docs' zone
    assert figures["kept_functions"] == 2  # rand is random
