"""What a case needs to run: plain Python, DuckDB, or a local Spark session.

An engine adds hidden setup before the case's code (Spark's `spark` session, as a notebook
would have it), its own sandbox limits, and a clear message when it is not installed.
"""

from __future__ import annotations

import importlib.metadata
import importlib.util
import platform
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codetrial.core import UsageError
from codetrial.sandbox.types import Limits

# The Spark docs assume this time zone (outputs differ in any other) and the TIME type preview.
SPARK_SETTINGS = {
    "spark.sql.session.timeZone": "America/Los_Angeles",
    "spark.sql.timeType.enabled": "true",
    "spark.ui.enabled": "false",
    "spark.driver.host": "127.0.0.1",
    "spark.driver.bindAddress": "127.0.0.1",
    "spark.sql.shuffle.partitions": "1",
}

SPARK_PREAMBLE = f'''\
from pyspark.sql import SparkSession

_builder = SparkSession.builder.master("local[1]").appName("codetrial")
for _key, _value in {SPARK_SETTINGS!r}.items():
    _builder = _builder.config(_key, _value)
spark = _builder.getOrCreate()
spark.sparkContext.setLogLevel("ERROR")


def hive_rows(df):
    """Rows as the spark-sql shell prints them, which is how the docs show outputs."""
    plan = df._jdf.queryExecution().executedPlan()
    rows = spark._jvm.org.apache.spark.sql.execution.HiveResult.hiveResultString(plan)
    return [rows.apply(i) for i in range(rows.size())]


def engine_alive():
    try:
        return spark.sql("SELECT 1").collect()[0][0] == 1
    except Exception:
        return False


def engine_reset():
    spark.sql("RESET")
    for _key, _value in {SPARK_SETTINGS!r}.items():
        if _key.startswith("spark.sql."):
            spark.conf.set(_key, _value)

'''


@dataclass(frozen=True)
class Engine:
    name: str
    package: str | None  # distribution whose version is recorded and must be installed
    install_hint: str = ""
    preamble: str = ""
    limits: Limits = field(default_factory=lambda: Limits(wall_seconds=20, cpu_seconds=20))
    settings: dict[str, Any] = field(default_factory=dict)
    batch: int = 40  # documented examples run per sandboxed program (start-up is amortized)

    def check(self) -> None:
        """Raise UsageError with what to install when the engine cannot run here."""
        if self.package and importlib.util.find_spec(self.package) is None:
            raise UsageError(f"cases on engine {self.name!r} need {self.package}: "
                             f"{self.install_hint}")
        if self.name == "spark":
            java_home()

    def env(self) -> dict[str, str]:
        return {"JAVA_HOME": java_home()} if self.name == "spark" else {}

    def versions(self) -> dict[str, str]:
        found = {"python": platform.python_version()}
        if self.package:
            found[self.package] = importlib.metadata.version(self.package)
        return found


def java_home() -> str:
    """Spark needs a JVM (Java 17 or later); say so plainly when there is none."""
    java = shutil.which("java")
    if java is None:
        raise UsageError("the spark engine needs Java 17 or later on PATH "
                         "(e.g. apt-get install openjdk-17-jre-headless)")
    return str(Path(java).resolve().parent.parent)


ENGINES: dict[str, Engine] = {e.name: e for e in (
    Engine("python", None),
    Engine("duckdb", "duckdb", "pip install duckdb", settings={"threads": 1, "TimeZone": "UTC"}),
    Engine("spark", "pyspark", "pip install 'codetrial[spark]'", preamble=SPARK_PREAMBLE,
           limits=Limits(wall_seconds=180, cpu_seconds=300, memory_mb=8192, max_processes=1024),
           settings=SPARK_SETTINGS, batch=400),
)}


def engine(name: str) -> Engine:
    return ENGINES[name]
