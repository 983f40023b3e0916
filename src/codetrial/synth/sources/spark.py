"""Spark SQL: `SHOW FUNCTIONS`, then `DESCRIBE FUNCTION EXTENDED` for each, whose `Examples:`
block gives `> SELECT ...;` queries with the documented output in spark-sql shell text.

Needs pyspark and Java 17+ (`pip install 'codetrial[spark]'`). The listing runs in the
sandbox like every other Spark program; the docs assume the America/Los_Angeles time zone.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from codetrial.core import InfraError
from codetrial.synth.seeds import Draft, Seed, slug
from codetrial.synth.sources.base import Source, source

LISTING = '''
__results__ = {"version": spark.version, "docs": {
    name: "\\n".join(row[0] for row in spark.sql(f"DESCRIBE FUNCTION EXTENDED `{name}`").collect())
    for name in sorted(row[0] for row in spark.sql("SHOW FUNCTIONS").collect())
    if name not in NAMES_LEFT_OUT and (not ONLY or name in ONLY)}}
'''
# The listing's own sections that end an Examples: block.
SECTION = re.compile(r"^\s*(Since|Note|Group|Deprecated|Arguments|Examples):")


@dataclass
class FunctionDoc:
    name: str
    usage: str = ""
    note: str = ""
    examples: list[tuple[str, str]] = field(default_factory=list)  # (query, documented output)


def parse_describe(text: str) -> FunctionDoc:
    """Read the text `DESCRIBE FUNCTION EXTENDED` prints into name, usage, note and examples."""
    lines = text.splitlines()
    doc = FunctionDoc(name=_field(lines, "Function"))
    doc.usage = _section(lines, "Usage", inline=True)
    doc.note = _section(lines, "Note")
    start = next((i for i, ln in enumerate(lines) if ln.strip() == "Examples:"), None)
    if start is not None:
        doc.examples = _examples(lines[start + 1:])
    return doc


def _field(lines: list[str], key: str) -> str:
    return next((ln.split(":", 1)[1].strip() for ln in lines if ln.startswith(f"{key}:")), "")


def _section(lines: list[str], key: str, inline: bool = False) -> str:
    """The text of `Key:` up to the next section (Usage runs until `Extended Usage:`)."""
    for i, line in enumerate(lines):
        if line.strip().startswith(f"{key}:"):
            body = [line.split(":", 1)[1].strip()] if inline else []
            for rest in lines[i + 1:]:
                if SECTION.match(rest) or rest.startswith("Extended Usage:"):
                    break
                body.append(rest.strip())
            return " ".join(b for b in body if b)
    return ""


def _examples(lines: list[str]) -> list[tuple[str, str]]:
    examples: list[tuple[str, str]] = []
    i = 0
    while i < len(lines) and not SECTION.match(lines[i]):
        line = lines[i]
        if not line.lstrip().startswith("> "):
            i += 1
            continue
        indent = line.index(">") + 1
        query = [line[indent:].strip()]
        i += 1
        while not query[-1].endswith(";") and i < len(lines) and lines[i].strip():
            query.append(lines[i].strip())
            i += 1
        output = []
        while i < len(lines) and lines[i].strip() and not lines[i].lstrip().startswith("> "):
            text = lines[i]
            output.append(text[indent:] if text[:indent].isspace() else text.lstrip())
            i += 1
        examples.append((" ".join(query).rstrip(";").strip(), "\n".join(output)))
    return examples


@source("spark")
class SparkSource(Source):
    engine = "spark"
    left_out = ("measure",)  # documented against a metric view that does not exist

    async def seeds(self, sandbox: Any) -> list[Seed]:
        from codetrial.synth.execute import run_case_program

        code = (f"NAMES_LEFT_OUT = {list(self.left_out)!r}\nONLY = {self.only!r}\n"
                + LISTING)
        outcome = await run_case_program(sandbox, self.runtime, code)
        if outcome.status != "ok" or not isinstance(outcome.report, dict):
            raise InfraError(f"listing Spark functions failed: {outcome.status} "
                             f"{outcome.stderr[-2000:]}")
        docs = [parse_describe(text) for text in outcome.report["docs"].values()]
        return [seed for doc in docs for seed in spark_seeds(doc)]

    def hints(self, seed: Seed) -> str:
        return (f"Use the Spark SQL function `{seed.function}`.\n"
                f"Its documentation: {seed.info.get('usage', '')}")

    def matches(self, seed: Seed, output: Any) -> bool:
        return seed.documented is None or _shell_text(output) == _shell_text(seed.documented)


def _shell_text(output: Any) -> str:
    """Rows as text; docs sometimes show a tab as spaces, so runs of blanks compare equal."""
    text = "\n".join(output) if isinstance(output, list) else str(output)
    return "\n".join(re.sub(r"[ \t]+", " ", ln.strip()) for ln in text.splitlines())


def spark_seeds(doc: FunctionDoc) -> list[Seed]:
    """One seed per query; a `SET key=value` example is setup for the examples after it."""
    volatile = "non-deterministic" in (doc.note + doc.usage).lower()
    setup, seeds = "", []
    for query, output in doc.examples:
        if query.upper().startswith("SET "):
            setup += f"spark.sql({query!r})\n"
            continue
        seeds.append(Seed(
            id=f"{slug(doc.name)}-{len(seeds) + 1}", function=doc.name, example=query,
            documented=output, info={"usage": doc.usage, "note": doc.note}, volatile=volatile,
            draft=Draft("spark", setup, 'df = spark.sql(r"""<here>""")', query, "hive_rows(df)"),
        ))
    return seeds
