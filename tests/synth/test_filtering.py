"""Seed filtering: the reasons, their order, and the DuckDB figures on the pinned version."""

import pytest

from codetrial.synth.execute import ProbeResult
from codetrial.synth.filtering import REASONS, Filtered, counts, drop_duplicates, judge
from codetrial.synth.seeds import Draft, Seed
from codetrial.synth.sources.base import create_source
from codetrial.synth.sources.duckdb import table_for, table_query

DRAFT = Draft("duckdb", "", 'query = r"""<here>"""', "SELECT abs(-1)", "[]")


def seed(function="abs", documented=None, volatile=False, **info) -> Seed:
    return Seed(f"{function}-1", function, "abs(-1)", DRAFT, documented, info, volatile)


OK, OTHER, FAIL = ProbeResult(True, "1"), ProbeResult(True, "2"), ProbeResult(False, error="x")


@pytest.mark.parametrize("the_seed,first,second,reason", [
    (seed(), FAIL, OK, "error"),
    (seed(), OK, FAIL, "error"),
    (seed(), OK, OTHER, "unstable"),
    (seed("random"), FAIL, OK, "error"),  # the first reason that applies is the one counted
    (seed("current_date"), OK, OK, "nondeterministic"),
    (seed("uuidv7"), OK, OK, "nondeterministic"),
    (seed(volatile=True), OK, OK, "volatile"),
    (seed(documented="2"), OK, OK, "mismatch"),
    (seed(documented="1"), OK, OK, None),
    (seed(), OK, OK, None),
])
def test_judge(the_seed, first, second, reason):
    assert judge(create_source("duckdb"), the_seed, first, second).reason == reason


def test_an_alias_example_is_a_duplicate_of_its_targets():
    target = Seed("string_agg-1", "string_agg", "string_agg(A, '-')",
                  Draft("duckdb", "", "q", "SELECT string_agg(A, '-') FROM t", "[]"))
    alias = Seed("listagg-1", "listagg", "listagg(A, '-')",
                 Draft("duckdb", "", "q", "SELECT listagg(A, '-') FROM t", "[]"),
                 info={"alias_of": "string_agg"})
    judged = drop_duplicates(create_source("duckdb"),
                             [Filtered(alias, None), Filtered(target, None)])
    assert [f.reason for f in judged] == ["duplicate", None]


def test_counts_report_every_reason():
    results = [Filtered(seed("a"), None), Filtered(seed("a"), None), Filtered(seed("b"), "error")]
    assert counts(results) == {
        "examples": 3, "functions": 2, "dropped": dict.fromkeys(REASONS, 0) | {"error": 1},
        "kept_examples": 2, "kept_functions": 1}


def test_aggregate_examples_get_a_table_with_the_columns_they_read():
    import duckdb

    con = duckdb.connect()
    assert table_for(con, "abs(-1)") is None
    assert table_for(con, "count(A)") == {"A": "INTEGER"}
    assert table_for(con, "count_if(A)") == {"A": "BOOLEAN"}
    assert table_for(con, "arg_max(A, B)") == {"A": "INTEGER", "B": "INTEGER"}
    rows = con.sql(table_query({"A": "INTEGER", "B": "INTEGER"})).fetchall()
    assert sorted(r[0] for r in rows) == sorted(r[1] for r in rows) == [1, 2, 3, 4, 5, 6]
    assert [r[0] for r in rows] != [r[1] for r in rows]  # different orders: no hidden ties


def test_duckdb_filter_figures(duckdb_filtered):
    """The pinned DuckDB: these figures are the closing note's; a new version changes them."""
    import duckdb

    assert duckdb.__version__ == "2.0.1"
    assert duckdb_filtered["filter"] == {
        "examples": 558, "functions": 507,
        "dropped": {"error": 27, "unstable": 8, "nondeterministic": 12, "volatile": 3,
                    "mismatch": 0, "duplicate": 106},
        "kept_examples": 402, "kept_functions": 364,
    }


def test_a_python_result_that_is_not_plain_data_is_a_mismatch(cli, tmp_path):
    """The test of a Python hole sees plain values only: a Counter is a dict there, a namedtuple
    a tuple, so examples documented by such a repr cannot become fair cases."""
    import sqlite3

    out = tmp_path / "collections"
    result = cli("synth", "python:collections", "--out", str(out), "--json")
    assert result.code == 0, result.stderr
    rows = sqlite3.connect(out / "synth.sqlite").execute(
        "SELECT id FROM seeds WHERE reason = 'mismatch'").fetchall()
    assert {"Counter-9", "namedtuple-6", "namedtuple-7"} <= {r[0] for r in rows}
