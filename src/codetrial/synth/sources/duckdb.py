"""DuckDB: every documented example in `duckdb_functions()`, as a SQL query to write.

Internal functions (named with two underscores, `__cast`) are left out. The docs give examples
but no outputs, so the expected output is what the pinned DuckDB computes, compared as VARCHAR.
Aggregate and window examples name columns (`count(A)`); for those we bind the example (no
execution) to learn which columns it needs and of which type, and give it a small table `t`
with those columns.
"""

from __future__ import annotations

import re
from collections import defaultdict
from typing import Any

from codetrial.synth.engines import ENGINES
from codetrial.synth.seeds import Draft, Seed, slug
from codetrial.synth.sources.base import Source, source

CATALOG = """
SELECT function_name, function_type, description, examples, stability, alias_of,
       has_side_effects, parameters, parameter_types, return_type, macro_definition
FROM duckdb_functions() WHERE len(examples) > 0 ORDER BY function_name, function_oid
"""
MISSING_COLUMN = re.compile(r'Referenced column "([^"]+)" (?:was )?not found')
COLUMN_TYPES = ("INTEGER", "DOUBLE", "VARCHAR", "BOOLEAN", "DATE", "TIMESTAMP")
ROWS = 6
CAPTURE = ("[list(row) for row in con.sql(f\"SELECT CAST(COLUMNS(*) AS VARCHAR) "
           "FROM ({query.strip().rstrip(';')}) ORDER BY ALL\").fetchall()]")


@source("duckdb")
class DuckDBSource(Source):
    engine = "duckdb"

    def settings(self) -> dict[str, Any]:
        return ENGINES["duckdb"].settings

    async def seeds(self, sandbox: Any) -> list[Seed]:
        import duckdb

        con = duckdb.connect()
        rows = [dict(zip(_columns(con), r, strict=True)) for r in con.execute(CATALOG).fetchall()]
        return [self._seed(con, fn, i, example, overloads)
                for fn, overloads in _by_function(rows).items() if not fn.startswith("__")
                for i, example in enumerate(_examples(overloads), 1)]

    def _seed(self, con: Any, function: str, index: int, example: str,
              overloads: list[dict[str, Any]]) -> Seed:
        first = overloads[0]
        expression = example.strip().rstrip(";").strip()
        table = table_for(con, expression)
        info = {
            "function_type": first["function_type"], "description": first["description"],
            "stability": first["stability"], "alias_of": first["alias_of"],
            "signatures": sorted({signature(function, o) for o in overloads}),
        }
        return Seed(
            id=f"{slug(function)}-{index}", function=function, example=example,
            draft=duckdb_draft(expression, table), info=info,
            volatile=any(o["stability"] == "VOLATILE" or o["has_side_effects"]
                         for o in overloads),
        )

    def is_alias(self, seed: Seed) -> bool:
        return bool(seed.info.get("alias_of"))

    def test_key(self, seed: Seed) -> str:
        """An alias's example, written with its target's name."""
        key = super().test_key(seed)
        target = seed.info.get("alias_of")
        if not target or not re.fullmatch(r"\w+", seed.function):
            return key
        return re.sub(rf"\b{re.escape(seed.function)}\(", f"{target}(", key, flags=re.I)

    def hints(self, seed: Seed) -> str:
        lines = [f"Use the DuckDB function `{seed.function}`.",
                 f"Its documentation: {seed.info.get('description') or '(none)'}",
                 "Its signatures: " + "; ".join(seed.info.get("signatures", []))]
        return "\n".join(lines)


def _columns(con: Any) -> list[str]:
    return [d[0] for d in con.description]


def _by_function(rows: list[dict[str, Any]]) -> dict[str, list[dict[str, Any]]]:
    grouped: dict[str, list[dict[str, Any]]] = defaultdict(list)
    for row in rows:
        grouped[row["function_name"]].append(row)
    return grouped


def _examples(overloads: list[dict[str, Any]]) -> list[str]:
    """Overloads repeat their function's examples: each distinct example once, in order."""
    return list(dict.fromkeys(e for o in overloads for e in o["examples"]))


def signature(name: str, overload: dict[str, Any]) -> str:
    params = ", ".join(f"{p} {t}".strip() for p, t in zip(
        overload["parameters"] or [], overload["parameter_types"] or [], strict=False))
    text = f"{name}({params})"
    if overload["return_type"]:
        text += f" -> {overload['return_type']}"
    if overload["macro_definition"]:
        text += f" = {overload['macro_definition']}"
    return text


# ---------------------------------------------------------------- the small table


def table_for(con: Any, expression: str) -> dict[str, str] | None:
    """Columns (name -> type) the example reads, or None when it reads none.

    Binding is enough to learn this (DuckDB names a missing column in its error); nothing of
    the example is executed here.
    """
    import duckdb

    columns: list[str] = []
    while len(columns) < 8:
        try:
            _bind(con, expression, dict.fromkeys(columns, "INTEGER"))
            break
        except duckdb.Error as exc:
            missing = MISSING_COLUMN.search(str(exc))
            if not missing or missing.group(1) in columns:
                break
            columns.append(missing.group(1))
    if not columns:
        return None
    for kind in COLUMN_TYPES:
        table = dict.fromkeys(columns, kind)
        try:
            _bind(con, expression, table)
            return table
        except duckdb.Error:
            continue
    return dict.fromkeys(columns, COLUMN_TYPES[0])


def _bind(con: Any, expression: str, table: dict[str, str]) -> None:
    if not table:
        con.sql(f"SELECT {expression}")
        return
    con.execute(f"CREATE OR REPLACE TABLE t AS {table_query(table)}")
    con.sql(f"SELECT {expression} FROM t")


def table_query(table: dict[str, str]) -> str:
    """A few rows, each column a different permutation of 1..6, so no ORDER BY ties."""
    names = list(table)
    steps = [3, 5, 2, 4, 6, 1]
    rows = []
    for i in range(ROWS):
        values = [_literal(table[c], (i + 1) * steps[j % len(steps)] % 7)
                  for j, c in enumerate(names)]
        rows.append("(" + ", ".join(values) + ")")
    return f"SELECT * FROM (VALUES {', '.join(rows)}) AS v({', '.join(names)})"


def _literal(kind: str, n: int) -> str:
    return {
        "INTEGER": str(n), "DOUBLE": f"{n / 2}::DOUBLE", "VARCHAR": f"'{chr(96 + n)}'",
        "BOOLEAN": "true" if n % 2 else "false", "DATE": f"DATE '2024-01-0{n}'",
        "TIMESTAMP": f"TIMESTAMP '2024-01-01 0{n}:00:00'",
    }[kind]


# ---------------------------------------------------------------- the case shape


def duckdb_draft(expression: str, table: dict[str, str] | None) -> Draft:
    setup = [
        "import duckdb", "",
        'con = duckdb.connect(config={"threads": 1})',
        "con.execute(\"SET TimeZone = 'UTC'\")",
    ]
    canonical = f"SELECT {expression}"
    if table:
        setup.append(f"con.execute({python_string('CREATE TABLE t AS ' + table_query(table))})")
        canonical += " FROM t"
    quote = "'''" if '"""' in canonical else '"""'
    return Draft(engine="duckdb", setup="\n".join(setup) + "\n",
                 hole_line=f"query = r{quote}<here>{quote}", canonical=canonical,
                 capture=CAPTURE)


def python_string(text: str) -> str:
    """A double-quoted literal when that needs no escapes (the common case), else repr."""
    if '"' not in text and "\\" not in text and "\n" not in text:
        return f'"{text}"'
    return repr(text)
